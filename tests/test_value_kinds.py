"""A question that names the kind of value it asks for ("what is my profession?", "which city do
I live in?", "my trade and town") is told by a record holding a value of that kind, and answered
with one (turn/value_kinds.py, told.py; issue 43). No model."""

import datetime as dt

import pytest

from local_agent.reading import read
from local_agent.reading.introductions import introduced_name
from local_agent.turn.aliases import with_antecedents
from local_agent.turn.evidence import from_dialogue, from_memory
from local_agent.turn.kind_recall import with_kind_records
from local_agent.turn.names_asked import named_inside
from local_agent.turn.plans import plan_reply
from local_agent.turn.senses import misspelled
from local_agent.turn.told import (
    asks_of_records,
    draws_on_each_part,
    names_each_kind,
    parts,
    untold_parts,
)
from local_agent.turn.value_kinds import asked_kind, kind_values
from local_agent.types import MemoryKind, MemoryRecord, Provenance, RecallHit

NOW = dt.datetime(2026, 11, 12, 20)
OMAR = [from_dialogue("Omar. 41. taxi driver, Cairo.")]
LENA = [from_memory("- 14 October 2026, you: Hi, I'm Lena. I work as a dental hygienist in Leeds."),
        from_memory("- 21 October 2026, you: Big news, I switched jobs, I'm now a receptionist at a vet clinic.")]
PRIYA = [from_dialogue("My friend Priya brought me soup, she's the best.")]


@pytest.mark.parametrize(("part", "kind"), [
    ("What is my profession?", "job"), ("what did my dad do for a living?", "job"),
    ("what do I do for work these days", "job"), ("what does Clara do", "job"), ("my trade", "job"),
    ("which city do I live in", "place"), ("my city?", "place"), ("what city am I living in", "place"),
    ("how do I earn my living again", "job"),
    # look-alikes: another question word asks a value of its own; "work" alone names no job
    ("where is it I went back to work?", ""), ("how many jobs have I had?", ""), ("did I work today?", ""),
    ("what did I do at the weekend?", ""),
])
def test_the_kind_a_part_asks_for(part, kind):
    assert asked_kind(part)[0] == kind


def test_what_a_record_holds_of_each_kind():
    assert kind_values("Omar. 41. taxi driver, Cairo.", "job") == {"driver"}
    assert kind_values("Omar. 41. taxi driver, Cairo.", "place") == {"cairo"}
    assert kind_values("You are a veterinary surgeon practising in Graz.", "job") == {"surgeon"}
    assert kind_values("I'm staying at Nadia's place, she's the best.", "job") == set()
    assert kind_values("My friend Priya brought me soup.", "place") == set()  # a person is no place


@pytest.mark.parametrize(("question", "records", "untold"), [
    ("What is my profession?", [from_memory("You are a veterinary surgeon practising in Graz.")], []),
    ("my city?", OMAR, []),
    ("which city do I live in", LENA, []),
    ("what do I do for work these days", LENA, []),
    ("what does Priya do for work?", PRIYA, ["what does Priya do for work?"]),  # told of her, not her job
    ("which city does Priya live in?", PRIYA, ["which city does Priya live in?"]),
])
def test_a_kind_is_told_by_a_record_holding_one(question, records, untold):
    assert untold_parts(question, records) == untold


def test_two_kinds_after_and_are_two_parts():
    assert parts("my trade and town") == ["my trade", "town"]
    assert parts("salt and pepper") == ["salt and pepper"]


def test_an_answer_names_a_value_of_the_kind_from_the_newest_record():
    assert names_each_kind("You're a receptionist at a vet clinic now.", "what's my job these days", LENA)
    assert not names_each_kind("That's a great job!", "what's my job these days", LENA)
    assert not names_each_kind("You work as a dental hygienist.", "what's my job these days", LENA)  # the old one
    assert names_each_kind("Anything at all.", "what did I eat?", LENA)  # no kind asked: no say here


def test_a_value_asked_of_something_told_is_a_memory_question():
    shown = ["You are now a receptionist at a vet clinic. (noted 21 October 2026)"]
    assert asks_of_records("what's the vet clinic called", [from_memory(m) for m in shown])
    assert plan_reply(read("what's the vet clinic called", NOW), shown).kind == "past"
    assert plan_reply(read("what's the capital of France called", NOW), shown).kind == "open"


def test_the_day_of_a_date_is_no_number_told():
    birthday = [from_dialogue("Wait, I got that wrong, her birthday is 14 December.")]
    assert untold_parts("how old is Greta turning", birthday) == ["how old is Greta turning"]
    assert untold_parts("how old am I", OMAR) == []


def test_a_question_the_user_asked_is_no_evidence():
    asked = [from_memory("- 18 November 2026, you: what city am I living in")]
    assert untold_parts("what's my job", asked) == ["what's my job"]
    assert untold_parts("which city am I in", asked) == ["which city am I in"]


def test_a_name_opening_a_sentence_counts_only_before_a_function_word():
    assert named_inside("Big news, I switched jobs, I'm now a receptionist at a vet clinic. Less stress!") == []
    assert named_inside("Jonas is my partner.") == ["Jonas"]
    assert named_inside("We got a cat, calling her Pixel.") == ["Pixel"]
    assert untold_parts("what's the vet clinic called", LENA) == ["what's the vet clinic called"]


@pytest.mark.parametrize(("text", "owner", "values"), [
    ("His name was Walter. He was a carpenter, built half the furniture.", "", set()),  # his, not the user's
    ("His name was Walter. He was a carpenter, built half the furniture.", "walter", {"carpenter"}),
    ("My sister Clara visited from Berlin, she's an architect.", "", set()),
    ("My sister Clara visited from Berlin, she's an architect.", "clara", {"architect"}),
    ("Booked Italian lessons with a tutor named Giorgio.", "", set()),
    ("Right, facts about me: Priscilla, nurse, night shifts, live in Dublin.", "", {"nurse"}),
    ("I'm a teacher and my husband is a chef.", "", {"teacher"}),
])
def test_a_job_is_the_owners_when_said_of_them(text, owner, values):
    assert kind_values(text, "job", frozenset(owner.split())) == values


def test_a_job_told_of_someone_else_does_not_tell_theirs():
    walter = [from_dialogue("His name was Walter. He was a carpenter, built half the furniture in our house.")]
    assert untold_parts("what does Priya do for work?", walter) == ["what does Priya do for work?"]
    assert untold_parts("what's my job", walter) == ["what's my job"]
    assert untold_parts("what did Walter do for a living?", walter) == []


def _record(ident: str, kind: MemoryKind, text: str, date: str, role: str = "user") -> MemoryRecord:
    return MemoryRecord(ident, kind, text, provenance=Provenance(role=role, date=date))


def test_a_record_with_a_value_of_the_kind_joins_a_recall_that_has_none():
    nurse = _record("a", "turn", "Right, facts about me: Priscilla, nurse, night shifts, live in Dublin.", "2026-10-22")
    asked = _record("b", "turn", "what's my job", "2026-11-05")  # a question asked: never evidence
    said = _record("c", "turn", "Good luck with your job, nurse!", "2026-10-23", role="assistant")
    blue = RecallHit(_record("d", "turn", "Long night. Had a code blue at work.", "2026-10-29"), 0.4)
    everything = [nurse, asked, said, blue.record]
    hits = with_kind_records(read("what's my job", NOW), [blue], lambda: everything, k=6)
    assert [hit.record.id for hit in hits] == ["a", "d"]
    ate = with_kind_records(read("what did I eat?", NOW), [blue], lambda: everything, 6)
    assert [h.record.id for h in ate] == ["d"]
    stated = with_kind_records(read("my job is boring", NOW), [blue], lambda: everything, 6)  # a statement asks nothing
    assert [h.record.id for h in stated] == ["d"]
    answered = [RecallHit(nurse, 0.5)]
    assert with_kind_records(read("what's my job", NOW), answered, lambda: everything, k=6) == answered


def test_a_job_of_someone_else_never_joins_the_recall():
    walter = _record("w", "turn", "His name was Walter. He was a carpenter.", "2026-10-20")
    tutor = _record("t", "turn", "Booked Italian lessons with a tutor named Giorgio.", "2026-11-01")
    assert with_kind_records(read("what does Priya do for work?", NOW), [], lambda: [walter, tutor], k=6) == []
    assert with_kind_records(read("what's my job", NOW), [], lambda: [walter, tutor], k=6) == []


@pytest.mark.parametrize(("text", "ages"), [
    ("Omar. 41. taxi driver, Cairo.", {"41"}), ("Some basics: I'm Ines, 27, software tester in Bilbao", {"27"}),
    ("I am 35 years old", {"35"}), ("I'm 41 and tired", {"41"}),
    # look-alikes: a count, a score, someone else's age, a distance
    ("I have 2 cats", set()), ("got a 72 on my essay", set()), ("my daughter is 12 years old", set()),
    ("I'm 5 minutes away", set()),
])
def test_the_users_age_in_a_record(text, ages):
    assert kind_values(text, "age") == ages


def test_an_age_is_asked_as_an_age_and_told_of_its_owner():
    assert asked_kind("my age?")[0] == "age" and asked_kind("how old am I")[0] == "age"
    assert asked_kind("how old is Greta turning")[0] == "age"
    assert untold_parts("how old is Greta turning", [from_dialogue("Her birthday is 14 December.")]) != []
    assert untold_parts("how old is Bolt?", [from_dialogue("I've got two dogs, a greyhound called Bolt.")]) != []
    assert untold_parts("how old is yaw", [from_dialogue("my son yaw is nine years old")]) == []
    assert untold_parts("how old is yaw", [from_dialogue("my son Kofi is nine years old")]) != []
    assert untold_parts("my age?", OMAR) == []
    assert untold_parts("how old am I", [from_dialogue("I have 2 cats and a dog.")]) == ["how old am I"]


def test_a_message_of_nothing_but_kinds_of_value_asks_for_them():
    assert plan_reply(read("my trade and town", NOW), []).kind == "past"
    assert plan_reply(read("my trade and town are lovely", NOW), []).kind != "past"
    assert untold_parts("my trade and town", [from_dialogue("Pete. plumber. Cork.")]) == []
    assert kind_values("Hi. I love it. Sarah came over.", "place") == set()  # a name opening a sentence is no place


def test_a_word_spelled_another_way_and_an_irregular_past_are_held():
    aisha = [from_dialogue("hi hi im aisha, studyng law at uni in manchester")]
    assert untold_parts("what am i studyin", aisha) == []
    assert untold_parts("what am i teachin", aisha) == ["what am i teachin"]
    duchess = [from_dialogue("Duchess laid her first egg in weeks on Sunday, we celebrated.")]
    assert untold_parts("what date did Duchess finally lay again", duchess) == []
    assert not misspelled("marked", {"market"})  # alike, and another word


def test_what_someone_works_in_is_a_job_and_a_firm_or_town_is_not():
    assert kind_values("Hey, I'm Tobias, I live in Munich and work in IT support.", "job") == {"support"}
    assert kind_values("I work in Leeds.", "job") == set() and kind_values("I work for Google.", "job") == set()


def test_the_assistants_words_do_not_stop_the_users_record_joining_the_recall():
    ines = _record("i", "turn", "Some basics: I'm Ines, 27, software tester in Bilbao.", "2026-11-15")
    echo = RecallHit(_record("e", "turn", "You're right: you are Ines, 27, software tester.", "2026-11-19",
                             role="assistant"), 0.6)
    hits = with_kind_records(read("what's my job and how old am I", NOW), [echo], lambda: [ines, echo.record], k=6)
    assert [hit.record.id for hit in hits] == ["i", "e"]


@pytest.mark.parametrize(("question", "said", "untold"), [
    ("what's my restaurant called?", "I'm a chef at a Turkish restaurant in Berlin.", True),  # a kind, a place
    ("what's my sister's name", "My sister lives in Berlin.", True),
    ("whats the cat called", "got a cat yesterday in Leeds. calling her Pixel.", False),
    ("what's the band called", "I play drums in a band called The Loud Neighbours.", False),
])
def test_a_place_or_a_word_of_kind_names_nothing_asked(question, said, untold):
    assert bool(untold_parts(question, [from_dialogue(said)])) is untold


def test_a_number_asked_is_answered_with_the_records_number():
    aoife = [from_dialogue("I have known my best friend Aoife for six years, she moved to Australia.")]
    assert not names_each_kind("You have been feeling low since Aoife moved to Australia.",
                               "how long have I known Aoife?", aoife)
    assert names_each_kind("For 6 years.", "how long have I known Aoife?", aoife)


def test_a_place_answers_no_who():
    assert untold_parts("Who keeps my bees?", [from_memory("The user keeps bees in Lisbon.")]) == ["Who keeps my bees?"]


@pytest.mark.parametrize(("question", "kind"), [
    ("where do i live now", "place"), ("Where does Kofi live?", "place"), ("where am I based these days", "place"),
    ("where did I park", ""), ("where is it I went back to work?", ""),  # a where of its own: no kind
])
def test_where_with_a_verb_of_living_asks_for_a_place(question: str, kind: str) -> None:
    assert asked_kind(question)[0] == kind


@pytest.mark.parametrize(("question", "expected"), [
    ("where does Kofi live and what's his job", ["where does Kofi live", "what's Kofi's job"]),
    ("what is Maya's job and where does she live", ["what is Maya's job", "where does Maya live"]),
    ("where do I live and what does Jonas do?", ["where do I live", "what does Jonas do?"]),  # its own name
    ("where does Kofi live and what's my job", ["where does Kofi live", "what's my job"]),  # no pronoun
    ("what did you tell her", ["what did you tell her"]),  # one part: no one named before
])
def test_a_pronoun_in_a_later_part_is_the_one_named_before(question: str, expected: list[str]) -> None:
    assert parts(question) == expected


def test_a_name_asked_is_answered_with_a_name_a_record_holds():
    chef = [from_dialogue("I'm a chef at a Turkish restaurant in Berlin. It's called Anatolia.")]
    question = "what's my restaurant called?"
    assert not names_each_kind("You are a chef at a Turkish restaurant in Berlin.", question, chef)  # no name
    assert not names_each_kind("Your restaurant is called Bosporus.", question, chef)  # a name nobody told
    assert names_each_kind("Your restaurant is called Anatolia.", question, chef)
    untold = [from_dialogue("I'm a chef at a Turkish restaurant in Berlin.")]
    assert not names_each_kind("You work in Berlin.", question, untold)  # a place is no restaurant's name
    assert names_each_kind("You're a chef.", "what's my job?", untold)  # a job asked: no name needed


@pytest.mark.parametrize(("text", "owner", "values"), [
    # the nearest person before the value says whose it is
    ("I'm Liam, 34, software tester in Cork, married to Aoife, two kids", "", {"tester"}),
    ("I'm Liam, 34, software tester in Cork, married to Aoife, two kids", "aoife", set()),
    ("Jonas, my partner, is a nurse.", "jonas", {"nurse"}),
    ("My partner Jonas is a nurse and I'm a teacher.", "partner", {"nurse"}),
    ("My partner Jonas is a nurse and I'm a teacher.", "", {"teacher"}),
    # work said as a verb, before "job", or spelled another way; look-alikes that tell none
    ("helo, im Marcus, i wrok as a plumbr in Denver", "", {"plumbr"}),
    ("I just moved to Lisbon for a design job", "", {"design"}),
    ("Hello, I'm Tariq. I drive a bus in Leicester.", "", {"drive"}),
    ("I teach chemistry at a high school", "", {"teach"}),
    ("I drive a Honda to work", "", set()), ("I got a new job!", "", set()), ("you did a good job", "", set()),
    ("she can teach me to swim", "", set()), ("I love my plumber", "", set()), ("the planet is warming", "", set()),
])
def test_a_job_is_the_nearest_persons_and_told_in_more_ways(text, owner, values):
    assert kind_values(text, "job", frozenset(owner.split())) == values


def test_a_sort_of_occupation_asks_a_job_and_a_word_is_held_spelled_two_ways():
    assert asked_kind("What sort of doctor am I?")[0] == "job"
    assert asked_kind("what kind of music do I like?")[0] == ""
    vet = [from_dialogue("Good afternoon. My name is Dr. Helena Varga; I am a veterinary surgeon based in Vienna.")]
    assert untold_parts("What sort of doctor am I?", vet) == []
    yuki = [from_dialogue("my bf Kenji got me a pottery wheel"), from_dialogue("also im alergic to shelfish fyi")]
    assert untold_parts("whats my boyfriends name", yuki) == [] and untold_parts("what am i allergic to", yuki) == []
    assert untold_parts("whats my girlfriends name", yuki) != []
    assert misspelled("allergic", {"alergic"}) and not misspelled("latter", {"later"})  # a word of five is no typo


def test_a_thing_asked_of_something_told_of_asks_about_the_users_life():
    wedding = [from_dialogue("Oh, and scratch what I said about December — Hannah's wedding got moved to January.")]
    assert asks_of_records("what venue is the wedding at?", wedding)
    assert untold_parts("what venue is the wedding at?", wedding) == ["what venue is the wedding at?"]
    assert not asks_of_records("what planet is the largest?", wedding)  # a thing of nothing told of
    assert not asks_of_records("which colour is the sky?", wedding)


def test_where_someone_came_from_is_told_by_the_place_they_came_from():
    karim = [from_dialogue("My brother Karim flew in from Beirut yesterday and he's staying with me for two weeks.")]
    assert untold_parts("where did Karim come from?", karim) == []
    assert untold_parts("where did Nadia come from?", karim) != []


def test_she_or_he_opening_a_record_is_the_one_of_theirs_said_that_day():
    cat = ["- 20 October 2026, you: So sad today. My cat Mochi passed away last night",
           "- 20 October 2026, you: She was 16. I've had her since I was in college."]
    read = with_antecedents([from_memory(line) for line in cat])
    assert read[1].text.endswith("(my cat Mochi)") and read[1].told == from_memory(cat[1]).told  # said back as said
    assert untold_parts("how old was my cat?", read) == []
    assert untold_parts("how old am I?", read) != [] and untold_parts("how old is my dog?", read) != []
    brother = ["- 5 November 2026, you: my brother Karim visited.", "- 5 November 2026, you: She is studying law."]
    assert [c.text for c in with_antecedents([from_memory(line) for line in brother])][1] == "She is studying law."
    two = ["- 5 November 2026, you: my sister came.", "- 5 November 2026, you: my mum came too.",
           "- 5 November 2026, you: She is studying law."]
    assert with_antecedents([from_memory(line) for line in two])[2].text == "She is studying law."  # which one?
    other_day = ["- 4 November 2026, you: my sister came.", "- 5 November 2026, you: She is studying law."]
    assert with_antecedents([from_memory(line) for line in other_day])[1].text == "She is studying law."


def test_a_kind_with_members_is_told_by_one_of_them():
    oskar = [from_dialogue("started guitar lessons 2 days ago"), from_dialogue("dog = Biscuit. beagle")]
    assert untold_parts("what instrument am i learning", oskar) == []
    assert untold_parts("which hospital do i work at", [from_dialogue("i'm Dana. ER nurse.")]) != []
    assert untold_parts("what language am i learning", oskar) != []  # learning, but no language
    assert untold_parts("what breed is my dog?", oskar) == [] and untold_parts("what sport do i play?", oskar) != []
    assert asks_of_records("dog's name and breed?", oskar)


def test_a_name_after_a_verb_said_to_someone_is_no_place_and_a_name_before_he_is_someone_else():
    liam = "I'm Liam, 34, software tester in Cork, married to Aoife, two kids"
    assert kind_values(liam, "place") == {"cork"} and kind_values("We moved to Lisbon", "place") == {"lisbon"}
    assert kind_values(liam, "age") == {"34"} and kind_values(liam, "age", frozenset({"aoife"})) == set()
    biscuit = "I told you Biscuit was 3 but he actually turned 4 in September"
    assert kind_values(biscuit, "age") == set() and kind_values(biscuit, "age", frozenset({"biscuit"})) == {"3", "4"}
    assert kind_values("Nadia here, pastry chef in Montreal", "job") == {"chef"}  # no one else: her own
    dog = [from_dialogue("oh and I have a golden retriever named Biscuit, he's 3"), from_dialogue(biscuit)]
    assert untold_parts("how old is my dog?", dog) == [] and untold_parts("how old am I?", dog) != []
    assert untold_parts("how old is my cat?", dog) != []


def test_what_one_eats_and_avoids_is_told_in_other_words_and_spellings():
    said = [from_dialogue("doc says my colesterol is high so cuting out red meat"),
            from_dialogue("Hi, I'm Aiko, 34, I live in Leeds and I've been vegetarian for ten years.")]
    assert untold_parts("what food am i trying to avoid", said) == []  # "cuting" is "cutting", meat a food
    assert untold_parts("do I eat meat?", said) == [] and untold_parts("is there anything I don't eat?", said) == []
    assert untold_parts("what did I eat for dinner?", said) != []
    assert untold_parts("what sport am i trying?", said) != []


def test_a_title_or_an_abbreviation_ends_no_sentence():
    from local_agent.reading.clauses import split_clauses
    said = [clause.text for clause in split_clauses("I am Dr. Amara Nwosu. I work as a cardiologist at St. Mary's.")]
    assert said == ["I am Dr. Amara Nwosu", "I work as a cardiologist at St. Mary's"]
    assert [c.text for c in split_clauses("We met at noon. It was fun.")] == ["We met at noon", "It was fun"]


def test_a_member_tells_its_kind_never_another_member_nor_a_name():
    said = [from_dialogue("I play guitar on Sundays"), from_dialogue("dog = Biscuit. beagle")]
    assert untold_parts("what instrument do i play", said) == [] and untold_parts("do i play piano?", said) != []
    assert untold_parts("what breed is my dog?", said) == [] and untold_parts("is my dog a poodle?", said) != []
    yusuf = [from_dialogue("I'm Yusuf, a chef at a Turkish restaurant in Berlin, I speak German and English.")]
    assert untold_parts("what's my restaurant called?", yusuf) != []  # a language names no restaurant
    assert untold_parts("what languages do I speak?", yusuf) == []


def test_a_name_standing_for_the_subject_answers_nothing_of_it():
    told = ["- 5 November 2026, you: I should mention that my granddaughter, Zainab, visited me on Tuesday.",
            "- 5 November 2026, you: She is studying law in Lagos."]
    said = with_antecedents([from_memory(line) for line in told])
    question = "What is my granddaughter's name and what does she study?"
    assert not draws_on_each_part("Your granddaughter, Zainab, visited you on Tuesday.", question, said, [])
    assert draws_on_each_part("Your granddaughter is Zainab and she studies law.", question, said, [])


def test_a_change_of_a_trip_said_as_its_flights_is_the_latest_value():
    from local_agent.turn.latest import changed
    said = [from_memory("- 5 November 2026, you: big news, me and mates booked a trip to Lisbon for december!!"),
            from_memory("- 9 November 2026, you: lol change of plans, flights to lisbon went crazy so we're doing "
                        "Porto instead, same dates")]
    assert changed("where's the december trip to?", said) is not None
    assert changed("what's my job?", said) is None


def test_a_part_asking_a_kind_is_answered_with_a_member_told():
    oskar = [from_dialogue("dog = Biscuit. beagle")]
    assert parts("dog's name and breed?") == ["dog's name", "breed?"]
    assert untold_parts("dog's name and breed?", oskar) == []
    assert not names_each_kind("The dog is a Biscuit.", "dog's name and breed?", oskar)
    assert names_each_kind("Biscuit, a beagle.", "dog's name and breed?", oskar)
    assert untold_parts("what breed is my dog?", [from_dialogue("I have a dog named Rex")]) != []  # a dog is no breed
    assert parts("what are my husband and dog called?") == ["what are my husband and dog called?"]


def test_a_terse_note_naming_someone_of_theirs_and_a_value_asks_about_them():
    assert plan_reply(read("wife's name", NOW), []).kind == "past"
    assert plan_reply(read("kids' names", NOW), []).kind == "past"
    assert plan_reply(read("wife's name is Ada", NOW), []).kind != "past"  # it tells, it does not ask
    assert plan_reply(read("names of both my dogs", NOW), []).kind == "past"  # the value "of" them
    assert plan_reply(read("names of both my dogs are silly", NOW), []).kind != "past"
    assert plan_reply(read("names of the planets", NOW), []).kind != "past"  # nobody of the user's
    assert introduced_name("names of both my dogs") is None  # "names of": no introduction of "Of"
    assert plan_reply(read("sister's wedding was lovely", NOW), []).kind != "past"
    terse = [from_dialogue("wife Ada, 2 kids"), from_dialogue("ran 10k this morning, 52 mins")]
    assert untold_parts("what's my wife called?", terse) == [] and untold_parts("what was my 10k time", terse) == []
    assert untold_parts("what are my kids called", terse) != []  # Ada is the wife


def test_a_part_naming_someone_is_told_only_by_a_record_of_theirs():
    said = [from_dialogue("I'm learning to play the cello, lessons on Mondays."),
            from_dialogue("My sister Marta is getting married next spring, she's a lawyer.")]
    assert untold_parts("what day are Marta's lessons?", said) != []
    assert untold_parts("what day are my lessons?", said) == []
    assert untold_parts("what does Marta do?", said) == []


def test_a_record_told_by_a_name_that_stands_for_the_animal_joins_the_recall():
    collie = _record("c", "turn", "I've got a border collie called Nuno.", "2026-09-10")
    turned = _record("t", "turn", "Nuno turned 5 yesterday!", "2026-09-15")
    hits = with_kind_records(read("how old is my dog?", NOW), [RecallHit(collie, 0.5)], lambda: [collie, turned], k=6)
    assert [hit.record.id for hit in hits] == ["t", "c"]


def test_a_member_told_of_someone_else_tells_no_kind_of_the_users():
    said = [from_dialogue("My husband, Konrad, has recently taken up beekeeping."),
            from_dialogue("I'm Gwen, I keep chickens in my back garden in Cardiff, six of them.")]
    assert untold_parts("what hobby have I taken up?", said) != []  # the husband's
    assert untold_parts("what hobby has my husband taken up?", said) == []
    assert untold_parts("how many hens have I got?", said) == []
    assert untold_parts("how many dogs have I got?", said) != []


def test_a_record_of_her_naming_no_one_else_may_be_the_named_persons():
    greta = [from_dialogue("My sister's birthday is on 12 December."),
             from_dialogue("Wait, I got that wrong, her birthday is 14 December. She'd kill me lol."),
             from_dialogue("Her name's Greta by the way.")]
    assert untold_parts("When is Greta's birthday?", greta) == []
    others = [from_dialogue("Tom came over, his birthday is 3 May."), from_dialogue("Greta is my sister.")]
    assert untold_parts("When is Greta's birthday?", others) != []  # his, and he is Tom


def test_parts_joined_by_a_plus_a_day_changed_and_a_thing_called_by_name():
    assert parts("my job + my sister's name?") == ["my job", "my sister's name?"]
    assert parts("who are Tom & Jerry?") == ["who are Tom & Jerry?"]
    from local_agent.turn.latest import changed
    vienna = [from_memory("- 2 March 2026, you: I am presenting a paper at a conference in Vienna on 14 April."),
              from_memory("- 4 March 2026, you: Note that the Vienna conference has been moved to 21 April.")]
    assert changed("On what date am I presenting in Vienna?", vienna) is not None
    dentist = [from_memory("- 2 March 2026, you: I have a dentist appointment on 14 April."),
               from_memory("- 4 March 2026, you: moved to Lisbon on 21 April.")]
    assert changed("when is my dentist appointment?", dentist) is None
    from local_agent.turn.told import answering
    band = [from_memory("- 20 April 2026, you: I play bass in a band called The Static Hours."),
            from_memory("- 22 April 2026, you: Our band has a gig at the Rialto on May 9.")]
    assert answering("What's my band called?", band) == [band[0]]


def test_a_newer_record_of_the_kind_asked_joins_a_recall_that_has_an_older_one():
    gdansk = _record("g", "turn", "live in Gdansk", "2026-04-06")
    sopot = _record("s", "turn", "update: not Gdansk anymore. moved to Sopot on the weekend", "2026-04-08")
    hits = with_kind_records(read("where do i live", NOW), [RecallHit(gdansk, 0.5)], lambda: [gdansk, sopot], k=6)
    assert [hit.record.id for hit in hits] == ["s", "g"]
    older = with_kind_records(read("where do i live", NOW), [RecallHit(sopot, 0.5)], lambda: [gdansk, sopot], k=6)
    assert [hit.record.id for hit in older] == ["s"]  # the recalled one is the newest: nothing joins


def test_a_place_said_as_an_item_of_its_own_comes_after_a_short_item():
    assert kind_values("Pete. plumber. Cork.", "place") == {"cork"}
    assert kind_values("dana. 34. vet nurse. Leeds.", "place") == {"leeds"}
    assert kind_values("Sorry, typo yesterday - his name is Mike, not Mark. Autocorrect.", "place") == set()


def test_a_correction_owning_a_mistake_is_the_latest_value():
    from local_agent.turn.latest import changed
    said = [from_memory("- 2 November 2026, you: I have daughter Mila, she is 8 years, she go to second class."),
            from_memory("- 20 November 2026, you: Also Mila is not 8, she is 9 already, I make mistake before.")]
    found = changed("How old is my daughter?", said)
    assert found is not None and "9 already" in found[1].text
    kept = [said[0], from_memory("- 20 November 2026, you: Also Mila loved the museum, no mistake about it.")]
    assert changed("How old is my daughter?", kept) is None  # look-alike: no age in it


def test_the_business_someone_runs_is_their_work():
    from local_agent.turn.value_kinds import kind_values
    tom = "I'm Tom, 44, I run a little bike repair shop in Galway called Spoke & Chain."
    assert kind_values(tom, "job") == {"shop"}
    assert kind_values("we run a marathon every year and I own a dog", "job") == set()  # look-alikes
    # a practice is run by someone whose job is said besides ("a veterinarian ... I run a small practice")
    assert kind_values("I run a small practice in Graz, Austria.", "job") == set()
