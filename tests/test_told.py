"""What the user told, and the program's reply when a question asks for something they did not
(turn/told.py; issue 43), with a scripted model."""

import pytest

from local_agent.turn.evidence import from_dialogue, from_memory
from local_agent.turn.not_told import asked_phrase, not_told_reply
from local_agent.turn.result import outcome_of
from local_agent.turn.told import parts, untold_parts
from tests.test_replies import make_agent

TOMAS = [from_dialogue("Hi, I'm Tomás. I moved to Ghent last spring and I teach chemistry at a secondary school."),
         from_dialogue("My partner Jonas is a nurse and we have a cat called Pixel.")]


@pytest.mark.parametrize(("question", "untold"), [
    ("What's my cat's name?", []),
    ("Where do I live and what does Jonas do?", []),
    ("What does Jonas like to cook?", ["What does Jonas like to cook?"]),
    ("What's my dog's name?", ["What's my dog's name?"]),
    ("How old is Jonas?", ["How old is Jonas?"]),  # no number told
    ("What's Jonas's surname?", ["What's Jonas's surname?"]),
    ("Where do I live and what does Jonas cook?", ["what does Jonas cook?"]),  # part by part
    ("which subject do I teach?", []),  # "subject" says what kind of answer, the answer is "chemistry"
    ("What does my mum do?", ["What does my mum do?"]),
])
def test_the_parts_of_a_question_no_record_answers(question, untold):
    assert untold_parts(question, TOMAS) == untold


def test_words_of_the_same_sense_and_stems_count_as_told():
    told = [from_dialogue("My mum Gloria turns 80 on the 21st."), from_dialogue("We adopted a kitten yesterday.")]
    assert untold_parts("what's my mother's name?", told) == []
    assert untold_parts("how old is my mum turning?", told) == []
    assert untold_parts("when did we adopt the kitten?", told) == []
    assert untold_parts("what's my father's name?", told) == ["what's my father's name?"]


@pytest.mark.parametrize(("question", "said", "told"), [
    ("when did i pay rent", "paid rent on the 3rd", True),  # a past form of the same sense; an ordinal day
    ("when did I see the dentist", "saw the dentist on Monday", True),
    ("when did I call Marco?", "Called my brother Marco just now, he's engaged!", True),  # "just now" is a day
    ("when did I pay the plumber", "paid rent on the 3rd", False),  # not the same event
    ("when did I call Marco?", "Called my brother Marco, he's engaged!", False),  # no day told
    ("when did we move?", "we live on the 3rd floor", False),  # a floor is no day
])
def test_a_when_question_is_told_by_a_record_of_the_event_with_a_day(question, said, told):
    assert (untold_parts(question, [from_dialogue(said)]) == []) is told


def test_the_assistants_own_earlier_answers_tell_nothing():
    mine = [from_memory("- 3 May 2024, me: Jonas likes to cook pasta.")]
    assert untold_parts("What does Jonas like to cook?", mine) == ["What does Jonas like to cook?"]


@pytest.mark.parametrize(("part", "phrase"), [
    ("What's my cat's name?", "your cat's name"),
    ("How old is Zara?", "how old Zara is"),
    ("where's my next marathon?", "where your next marathon is"),
    ("When is my dad's birthday?", "when your dad's birthday is"),
    ("who did i travel with", "who you travel with"),
    ("Tell me about it", "that"),
    ("what was i building", "that"),
    ("how old am i", "how old you are"),
    ("what does my partner do", "what your partner does"),
])
def test_what_was_not_told_reads_as_a_phrase(part, phrase):
    assert asked_phrase(part) == phrase


def test_the_not_told_reply_says_what_was_told():
    reply = not_told_reply(["What does Jonas like to cook?"], TOMAS[1])
    assert reply.startswith("You haven't told me what Jonas likes to cook.") and "Jonas is a nurse" in reply
    assert not_told_reply(["what's my dog's name?"], None) == "You haven't told me your dog's name."


def test_parts_of_a_question():
    assert parts("Where do I live and what does Jonas do?") == ["Where do I live", "what does Jonas do?"]
    assert parts("What do Sam and Jo like?") == ["What do Sam and Jo like?"]


@pytest.mark.parametrize(("asks", "route", "answer", "outcome"), [
    (True, "grounded", "Your cat is called Pixel.", "answer"),
    (True, "template:not-told", "You haven't told me that.", "not_told"),
    (True, "dont-remember", "I don't remember that.", "not_told"),
    (True, "model", "I'm not sure, maybe Tuesday.", "unsure"),
    (True, "template:evidence", "You told me Jonas is a nurse.", "answer"),
    (True, "template:introduction+model", "Nice to meet you, Tomás! Ghent is lovely.", "answer"),
    (False, "template:statement", "Got it: you keep bees.", None),
    (False, "template:farewell", "Bye for now, talk soon!", None),
    (False, "model", "That's lovely.", None),
])
def test_the_outcome_of_a_turn(asks, route, answer, outcome):
    assert outcome_of(asks, route, answer) == outcome


def test_a_never_told_question_gets_not_told_with_what_was_told(tmp_path):
    agent, backend = make_agent(tmp_path, ["Nice!", "Jonas likes to cook pizza and pasta."])
    agent.respond("My partner Jonas is a nurse and we have a cat called Pixel.")
    result = agent.respond("What does my partner like to cook?")
    assert result.answer.startswith("You haven't told me what your partner likes to cook.")
    assert "Jonas is a nurse" in result.answer and "pizza" not in result.answer
    assert result.outcome == "not_told" and result.reply_route == "template:not-told"
    assert len(backend.prompts) == 1  # the model was not asked: the program knew it was not told


def test_a_told_question_is_answered_by_the_model_when_it_draws_on_the_record(tmp_path):
    agent, _ = make_agent(tmp_path, ["Nice!", "Your cat is called Pixel."])
    agent.respond("My partner Jonas is a nurse and we have a cat called Pixel.")
    result = agent.respond("What's my cat's name?")
    assert result.answer == "Your cat is called Pixel." and result.outcome == "answer"


def test_a_statement_has_no_outcome(tmp_path):
    agent, _ = make_agent(tmp_path, ["Lovely!"])
    assert agent.respond("I keep bees in Lisbon.").outcome is None


def test_an_answer_naming_a_job_nobody_said_is_replaced_by_the_records_part_by_part(tmp_path):
    agent, _ = make_agent(tmp_path, ["Nice!", "Lovely!", "Tomás is a doctor.", "Tomás is a doctor."])
    agent.respond("I moved to Ghent last spring and I teach chemistry.")
    agent.respond("My partner Jonas is a nurse.")
    result = agent.respond("Where do I live and what does Jonas do?")
    assert "doctor" not in result.answer and "Ghent" in result.answer and "nurse" in result.answer
    assert result.reply_route == "template:evidence" and result.outcome == "answer"


def test_an_answer_that_only_says_back_memory_is_not_stored_as_something_said(tmp_path):
    from local_agent.memory.store import MemoryStore
    from tests.reliability import HashEmbedder

    store = MemoryStore.open(tmp_path / "mem", HashEmbedder())
    agent, _ = make_agent(tmp_path, ["Nice! Enjoy quiet evenings.", "Your cat is called Pixel."], store=store)
    agent.respond("My partner Jonas is a nurse and we have a cat called Pixel.")
    agent.wait()
    asked = agent.respond("What's my cat's name?")
    agent.wait()
    said = [r.text for r in store.records("turn") if r.kind == "turn" and r.provenance.role == "assistant"]
    assert asked.reply_route == "grounded" and "Nice! Enjoy quiet evenings." in said and asked.answer not in said


def test_a_model_answer_whose_words_all_come_from_memory_is_not_stored(tmp_path):
    from local_agent.memory.store import MemoryStore
    from tests.reliability import HashEmbedder

    store = MemoryStore.open(tmp_path / "mem", HashEmbedder())
    agent, _ = make_agent(tmp_path, ["Nice! Enjoy quiet evenings.", "Jonas is a nurse with a cat called Pixel.",
                                     "Try a museum visit."], store=store)
    agent.respond("My partner Jonas is a nurse and we have a cat called Pixel.")
    agent.wait()
    repeated = agent.respond("Tell me something")  # an open request: the model's answer, streamed
    agent.wait()
    new = agent.respond("Any idea for Sunday?")
    agent.wait()
    said = [r.text for r in store.records("turn") if r.provenance.role == "assistant"]
    assert repeated.reply_route == new.reply_route == "model"
    assert repeated.answer not in said and new.answer in said


def test_a_line_of_an_imported_conversation_is_someone_s_words_and_a_long_question_may_miss_one_word():
    imported = [from_memory("- 27 June 2023, me: Melanie: I just took my fam camping in the mountains "
                            "last week (the week before 27 June 2023).")]
    assert untold_parts("When did Melanie go camping?", imported) == []
    assert untold_parts("When did Melanie go camping with her family in the mountains?", imported) == []  # one missed
    assert untold_parts("What did Melanie cook?", imported) == ["What did Melanie cook?"]


def test_an_earlier_question_tells_nothing(tmp_path):
    agent, backend = make_agent(tmp_path, ["You're a nurse."])
    agent.respond("What do I do?")
    again = agent.respond("what do I do?")
    assert again.answer == "You haven't told me what you do." and again.outcome == "not_told"
    assert len(backend.prompts) == 1


@pytest.mark.parametrize(("answer", "draws"), [
    ('You can find Jonas at the "Ghent" residence.', False),  # a word of the record, not of the clause on Jonas
    ("You live in Ghent and Jonas is a nurse.", True),
])
def test_a_part_that_names_its_subject_is_answered_from_the_records_clause_about_it(answer, draws):
    from local_agent.turn.told import draws_on_each_part

    said = [from_dialogue("Hi, I'm Tomás. I moved to Ghent last spring and I teach chemistry at a secondary "
                          "school. My partner Jonas is a nurse and we have a cat called Pixel.")]
    assert draws_on_each_part(answer, "Where do I live and what does Jonas do?", said, ["Tomás"]) is draws


@pytest.mark.parametrize(("question", "said"), [
    ("What is my son's name and how old is he?",  # he is the son; "a son, Tobi," names him, no place
     ["I work as an accountant in Lagos, and I have a son, Tobi, who is seven years old."]),
    ("Which medication am I allergic to, and in which city is my practice located?",  # a part after "and in which"
     ["I am allergic to penicillin.", "I am a veterinarian and I run a small practice in Graz, Austria."]),
    ("what's my dog called again?", ["I have a golden retriever named Biscuit"]),  # a breed is a dog
    ("when did i hurt my ankle", ["sprained my ankle yesterday. stairs."]),
    ("On which date was Kenji born?", ["My grandson Kenji was born on Monday of last week."]),  # a day is asked
    ("what's my boyfriend's job?", ["my boyfriend Joost is a chef, he works crazy hours"]),  # the boyfriend's
    ("where do I work?", ["I work at a bakery, early shifts"]),  # somewhere said, no name needed
])
def test_a_question_told_in_other_words_or_parts_is_told(question, said):
    assert untold_parts(question, [from_dialogue(text) for text in said]) == []


@pytest.mark.parametrize(("question", "said"), [
    ("What is my son's name and how old is he?", ["I have a son who loves piano."]),  # no name, no age
    ("what's my dog called again?", ["I have a golden retriever."]),  # no name said
    ("which city is my practice located in?", ["I run a small practice, and I have a son, Tobi."]),  # Tobi is no place
    ("On which date was Kenji born?", ["My grandson Kenji is lovely."]),  # no day said
    ("where does Joost work?", ["my boyfriend Joost is a chef, he works crazy hours"]),  # no place said
    ("where does Joost work?", ["I'm Lena, I just started a new job as a pharmacist in Rotterdam"]),  # the user's place
])
def test_look_alikes_stay_untold(question, said):
    assert untold_parts(question, [from_dialogue(text) for text in said]) != []


def test_a_name_asked_of_someone_of_the_users_is_never_their_own():
    from local_agent.turn.told import names_for
    assert names_for("what's my mom's name?", "my name is Tomás and my mom is in the hospital") == set()
    assert names_for("what's my mom's name?", "my name is Tomás and my mom Ana is in the hospital") == {"ana"}
    assert names_for("what's my name?", "my name is Tomás") == {"tomás"}  # the look-alike: the user's own is asked


@pytest.mark.parametrize(("text", "act"), [
    ("Had such a lovely time yesterday at my sister's wedding in York!", "statement"),  # "I" left out: it tells
    ("Was at the dentist today", "statement"),
    ("Did great on my exam", "statement"),
    ("did you see that", "question"),  # a subject after the auxiliary: it asks
    ("Is Lily ok", "question"),
    ("was the shop open", "question"),
    ("is next year a leap year", "question"),  # a time word or a year is the subject
    ("is 2028 a leap year", "question"),
    ("Was 5 minutes late today", "statement"),  # a number that is no year: the "I" left out
])
def test_an_auxiliary_with_no_subject_after_it_opens_a_statement(text, act):
    from local_agent.reading.clauses import split_clauses
    assert [clause.act for clause in split_clauses(text)] == [act]


def test_the_record_that_names_the_kind_asked_answers_before_a_newer_one_that_does_not():
    from local_agent.turn.told import answering
    race = [from_dialogue("training for a half marathon in December"),
            from_dialogue("knee is fine, I just wanted more time to train properly")]
    assert [c.text for c in answering("what race am I training for?", race)] == [race[0].text]
    assert [c.text for c in answering("what am I training for?", race)] != []  # no kind named: any that answers


def test_a_name_said_of_a_relation_stands_for_it():
    said = [from_dialogue("I have a son, Tobi, who is seven years old."),
            from_dialogue("Also, Tobi has started piano lessons.")]
    assert untold_parts("Which instrument is my son learning?", said) == []  # Tobi is the son; piano an instrument
    assert untold_parts("Which instrument is my daughter learning?", said) != []  # no daughter was named


def test_a_name_said_of_two_relations_stands_for_neither():
    from local_agent.turn.aliases import aliases
    assert aliases(["my son Sam", "my brother Sam"]) == {}
    assert aliases(["a golden retriever named Biscuit"]) == {"biscuit": frozenset({"retriever"})}



def test_not_told_says_back_the_record_the_recall_ranked_first_too():
    from local_agent.turn.not_told import closest_told
    recalled = [from_memory("- 12 October 2026, you: started guitar 2 days ago"),
                from_memory("- 12 October 2026, me: That's great!"),  # the assistant's words tell nothing
                from_memory("- 10 October 2026, you: what instrument is easiest?")]  # nor a question asked
    assert closest_told([], recalled) == [recalled[0]]
    reply = not_told_reply(["what instrument am i learning"], closest_told([], recalled))
    assert reply.startswith("You haven't told me") and '"started guitar 2 days ago"' in reply
    lexical = [from_memory("- 9 October 2026, you: my guitar teacher is Ana")]
    assert closest_told(lexical, recalled) == [lexical[0], recalled[0]]  # each once, at most two


def test_a_name_asked_is_taken_from_the_stretch_that_speaks_of_whom_it_is_asked():
    from local_agent.turn.told import answering

    marcus = [from_memory("- 12 October 2026, you: Marcus here, ER nurse in Phoenix, married to Jill, two kids Sam "
                          "and Ella."),
              from_memory("- 14 October 2026, you: Jill's birthday was yesterday, took her to Olive Garden, kids "
                          "behaved for once.")]
    assert answering("what are my kids called", marcus) == [marcus[0]]  # not the newer one naming Jill
    assert answering("what are my kids called", marcus[1:]) == [marcus[1]]  # none beside: the record that passes


def test_a_diet_asked_is_answered_with_the_diet_told():
    from local_agent.turn.told import names_each_kind

    aiko = [from_dialogue("I'm Aiko, 29, UX designer in Osaka, vegetarian, and I'm learning Portuguese.")]
    question = "what's my diet and what language am i learning"
    assert not names_each_kind("You are learning Portuguese on the side.", question, aiko)
    assert names_each_kind("You are vegetarian and you are learning Portuguese.", question, aiko)


def test_a_name_answered_must_be_one_said_beside_whom_it_is_asked():
    from local_agent.turn.told import names_each_kind

    marcus = [from_memory("- 12 October 2026, you: Marcus here, ER nurse in Phoenix, married to Jill, two kids Sam "
                          "and Ella, and I coach little league.")]
    assert not names_each_kind("Marcus here, I'm a coach in Phoenix.", "what are my kids called", marcus)
    assert names_each_kind("Your kids are Sam and Ella.", "what are my kids called", marcus)


def test_a_question_naming_someone_memory_names_in_lower_case_asks_about_the_past():
    import datetime as dt

    from local_agent.reading import read
    from local_agent.turn.memory_answers import asks_about_past, lowercase_names

    memories = ["- 8 October 2026, you: my son arjun turnd 7 last tuesday!! had a party w 12 kids"]
    assert lowercase_names(memories[0]) == {"arjun"}
    assert lowercase_names("my son plays football") == set()  # an English word after "my son" names no one
    now = dt.datetime(2026, 10, 15)
    assert asks_about_past(read("what school does arjun go to", now).past, memories)
    assert not asks_about_past(read("what school is good for kids", now).past, memories)


@pytest.mark.parametrize(("question", "said", "told"), [
    ("Which university do I teach at?", "I am Dr. Okafor; I teach economics at the university.", False),
    ("Which university do I teach at?", "I teach economics at Leeds University.", True),
    ("which hospital do I work at", "I am a nurse at St Mary's Hospital in Leeds.", True),
    ("which hospital do I work at", "I am a nurse in Leeds.", False),  # a town is no hospital's name
    ("what company do i work for", "I work at Zalando as a designer.", True),
    ("what team does jack play for", "my son jack plays footy every saturday", False),
    ("what team does jack play for", "my son jack plays for Hibs", True),
    ("what colour is my car", "bought a used golf last week", False),  # a colour is asked: one must be said
    ("what colour is my car", "bought a used car last week, a red one", True),
])
def test_which_named_thing_or_what_colour_is_told_only_by_its_name_or_colour(question, said, told):
    assert (untold_parts(question, [from_memory(f"- 3 September 2026, you: {said}")]) == []) is told


def test_what_someone_did_to_the_user_asks_about_their_past():
    import datetime as dt

    from local_agent.reading import read

    now = dt.datetime(2026, 9, 16)
    past = read("what did grandma teach me", now).past
    assert past is not None and past.certain
    assert read("tell me a story about dragons", now).past is None  # "me" whom a request is made to


def test_how_the_user_does_something_these_days_asks_about_their_life():
    import datetime as dt

    from local_agent.reading import read

    now = dt.datetime(2026, 8, 25)
    these_days, advice = read("how do I get to work these days", now).past, read("how do I get to work", now).past
    assert these_days is not None and these_days.certain
    assert advice is None or not advice.certain  # advice: a way to get there


def test_a_day_or_month_said_as_a_date_names_no_one_but_a_name_like_may_does():
    from local_agent.turn.told import names_for

    said = "You have a son named arjun turnd last Tuesday (6 October 2026)."
    assert untold_parts("what school does arjun go to", [from_memory(f"{said} (noted 8 October 2026)")]) != []
    assert names_for("what is my sister called", "my sister May is 30") == {"may"}


def test_each_part_of_several_is_drawn_on_from_the_stretch_that_tells_it():
    from local_agent.turn.told import draws_on_each_part

    aiko = [from_memory("- 5 November 2026, you: I'm Aiko, 29, UX designer in Osaka, vegetarian, have a shiba inu "
                        "called Kuro and I'm learning Portuguese on the side.")]
    question = "what's my diet and what language am i learning"
    assert not draws_on_each_part("You are learning Portuguese on the side.", question, aiko, [])
    assert draws_on_each_part("You are vegetarian and learning Portuguese.", question, aiko, [])


@pytest.mark.parametrize(("question", "said", "told"), [
    ("my wifes name?", "my wifes name is sorcha, been maried 20 yrs", True),  # a name in lower case
    ("what is my dog called", "we called it quits last year", False),  # an English word is no name
    ("what's my line of work", "I'm Aiko, 29, UX designer in Osaka", True),
    ("what's my line of work", "I love hiking in Osaka", False),
    ("What hobby did I say I'd picked up recently?", "Also I've gotten into birdwatching lately!", True),
    ("What hobby did I say I'd picked up recently?", "I love my job at the bank", False),
])
def test_names_in_lower_case_a_line_of_work_and_a_hobby_picked_up_are_told(question, said, told):
    assert (untold_parts(question, [from_memory(f"- 3 September 2026, you: {said}")]) == []) is told


def test_a_terse_date_of_something_told_asks_its_day():
    from local_agent.turn.told import asks_of_records
    from local_agent.turn.when_answer import when_parts
    root_canal = [from_dialogue("had root canal on friday. still hurts")]
    assert when_parts("date of the root canal?") and not untold_parts("date of the root canal?", root_canal)
    assert asks_of_records("date of the root canal?", root_canal)
    assert not when_parts("date of birth?") and not when_parts("date night ideas?")  # look-alikes: no event's day


def test_an_outing_asked_by_its_day_is_told_by_going_there():
    zoo = [from_dialogue("took lily 2 the zoo on wed, she lost it over the penguins lol")]
    assert not untold_parts("what day was the zoo trip", zoo)
    assert untold_parts("what day was the museum trip", zoo)  # look-alike: another place
    assert untold_parts("where did we go on the school trip", zoo)  # not a day: the trip itself is asked


def test_a_things_name_is_one_said_beside_it():
    from local_agent.turn.names_asked import names_for
    question = "What's the name of Sora's kindergarten?"
    started = "My husband Daichi is a chef at a ramen shop and our son Sora just started kindergarten!"
    assert names_for(question, started) == set() and untold_parts(question, [from_dialogue(started)])
    chef = "I'm a chef at a Turkish restaurant in Berlin. It's called Anatolia."
    assert names_for("what's my restaurant called?", chef) == {"anatolia"}
    assert names_for(question, "Sora started kindergarten, it's called Sunflower, Daichi took him") == {"sunflower"}


def test_a_name_said_as_a_relations_place_names_no_pet():
    away = [from_dialogue("We're away two weeks so the cat's going to my sister Fiona's.")]
    assert untold_parts("What's my cat's name?", away)  # Fiona is the sister's name


def test_an_answer_about_someone_else_speaks_of_them():
    from local_agent.turn.content import speaks_of_whom
    records = [from_dialogue("my boyfriend Marco works at a bank"), from_dialogue("we have a dog called Biscuit")]
    asked = "What kind of company does my boyfriend work for?"
    assert not speaks_of_whom("You've got a job interview on Friday at a design agency in Milan.", asked, records)
    assert speaks_of_whom("Marco works at a bank.", asked, records)  # his name stands for him
    assert speaks_of_whom("He works at a bank.", "what does my boyfriend do", records)
    assert speaks_of_whom("Biscuit is 4.", "how old is my dog?", records)
    assert not speaks_of_whom("You live in Ghent.", "Where do I live and what does Jonas do?", records)
    assert speaks_of_whom("You work as a nurse.", "what's my job?", records)  # look-alike: the user's own


def test_names_in_lower_case_after_named_or_opening_a_terse_note_are_names_memory_holds():
    from local_agent.turn.memory_answers import lowercase_names
    assert lowercase_names("yesterday i adopted a cat, named her pimenta lol") == {"pimenta"}
    assert lowercase_names("mikko. software tester. | wife aino, architect.") == {"aino"}
    assert lowercase_names("marco here | wife = sorcha, shes a paramedic") == {"sorcha"}
    assert lowercase_names("wife works late, we named it after my gran") == set()  # look-alikes: English words


def test_a_number_said_again_after_scratch_that_is_the_latest_value():
    from local_agent.turn.latest import changed
    said = [from_memory("- 2 November 2026, you: yo its tran, new phone number is 555-0143 btw"),
            from_memory("- 5 November 2026, you: ugh scratch that number its 555-0148 i typed it wrong")]
    found = changed("whats my phone number", said)
    assert found is not None and "555-0148" in found[1].text


def test_a_grandmother_by_another_name_and_a_death_by_other_words_are_told():
    rosa = [from_memory("- 16 March 2026, you: My grandmother Rosa passed away on Saturday. She was 93.")]
    assert not untold_parts("What was the date Nonna died?", rosa)
    assert untold_parts("What day was the funeral?", rosa)  # look-alike: the funeral was never told
    assert untold_parts("when did my grandpa die?", rosa)  # another relation


def test_study_at_uni_and_a_former_job_said_as_retired_are_told():
    zoe = [from_memory("- 20 April 2026, you: hey its zoe. 22, final yr psych @ uni of leeds")]
    assert not untold_parts("what do I study", zoe)
    assert untold_parts("what was my previous job", zoe)  # look-alike: no job said
    margaret = [from_memory("- 1 September 2026, you: My name is Margaret, I am a retired solicitor.")]
    assert not untold_parts("What was my former profession?", margaret)
