"""Quotes in a memory answer only verbatim (turn/quotes.py) and the latest value answering
(turn/latest.py; issue 43), with the prompt's real rendering of stored records and a scripted
model."""

import datetime as dt

import pytest

from local_agent.memory.index.render import prompt_text
from local_agent.reading import read
from local_agent.turn.evidence import from_dialogue, from_memory
from local_agent.turn.latest import changed, history_reply, is_change
from local_agent.turn.quotes import quotes, quotes_inside, verbatim, without_invented
from local_agent.turn.replies import Replier, ReplyPlan
from local_agent.turn.told import answering
from local_agent.types import GenerationSettings, MemoryRecord, Message, Provenance
from tests.fakes import ScriptedBackend


def shown(text, date, role="user", kind="turn"):
    """A stored record as the prompt shows it."""
    return prompt_text(MemoryRecord(id=f"m-{date}-{len(text)}", kind=kind, text=text,
                                    provenance=Provenance(role=role, date=f"{date}T18:00")))


INGRID = [shown("Pip hurt his paw yesterday, vet says rest for two weeks", "2026-11-07"),
          shown("so my name is Ingrid and I've got two dogs, a greyhound called Bolt and a terrier called Pip",
                "2026-11-03"),
          shown("what languages do I speak?", "2026-11-01")]
TOLD_DATE = "It happened yesterday (6 November 2026). Pip hurt his paw."
RECORDS = [*map(from_memory, INGRID), from_dialogue("we walk by the river every morning"),
           from_dialogue("My dad left two years ago.")]


def test_the_prompt_shows_a_turn_as_a_plain_dated_line_and_evidence_reads_it_back():
    assert INGRID[0] == ("- 7 November 2026, you: Pip hurt his paw yesterday (6 November 2026), vet says rest for "
                         "two weeks")
    assert shown("Read Dune.", "2026-11-02", role="assistant") == "- 2 November 2026, me: Read Dune."
    read_back = from_memory(INGRID[0])
    assert read_back.day == dt.date(2026, 11, 7) and read_back.text.startswith("Pip hurt his paw")
    assert from_memory(shown("The user lives in Ghent.", "2026-11-02", kind="fact")).day == dt.date(2026, 11, 2)
    assert from_dialogue("I live in Ghent").day is None and from_dialogue("x").newer_than(read_back)


@pytest.mark.parametrize(("answer", "kept"), [
    # invented: a dated line, a quote of a question, a sentence nobody wrote, a day the record is not of
    ("You said: Pip hurt his paw yesterday (9 November 2026) Bolt is a greyhound named Pip.", ""),
    ("(1 November 2026) You said: what languages do I speak? You speak German.", "You speak German."),
    ('On 8 November 2026 you said: "Pip hurt his paw yesterday, vet says rest for two weeks"', ""),
    ('Your dog is fine. I told you "Bolt won a race last spring".', "Your dog is fine."),
    ("- 3 November 2026, you: my dogs are Rex and Max", ""),
    # verbatim, with or without the prompt's dates, or a piece of a record, or the dialogue's words
    ("You said: Pip hurt his paw yesterday. He should rest.", "You said: Pip hurt his paw yesterday. He should rest."),
    ('On 7 November 2026 you said: "Pip hurt his paw yesterday (6 November 2026), vet says rest for two weeks"',
     'On 7 November 2026 you said: "Pip hurt his paw yesterday (6 November 2026), vet says rest for two weeks"'),
    ('You told me "a greyhound called Bolt and a terrier".', 'You told me "a greyhound called Bolt and a terrier".'),
    ("You said: we walk by the river every morning.", "You said: we walk by the river every morning."),
    ("7 November 2026, you: Pip hurt his paw yesterday (6 November 2026). He rests.",  # the prompt's form
     'On 7 November 2026 you said: "Pip hurt his paw yesterday (6 November 2026)". He rests.'),
    # no quote at all: a told date after a relative day, a short title in quotes
    (TOLD_DATE, TOLD_DATE),
    ('Your band is "Night Owls".', 'Your band is "Night Owls".'),
    ('The visit is on "20 November 2026".', 'The visit is on "20 November 2026".'),  # a date, not a quote
    ("17 November 2026 is when you adopted Mochi.", "17 November 2026 is when you adopted Mochi."),  # no speaker
    ("You said: My dad left two years ago (around 2024). It was hard.",  # the date the prompt adds, in the quote
     "You said: My dad left two years ago (around 2024). It was hard."),
])
def test_only_verbatim_quotes_are_kept(answer, kept):
    assert without_invented(answer, RECORDS) == kept


def test_a_quote_is_checked_against_the_record_of_its_day_and_a_question_is_never_a_quote():
    dated = quotes("(3 November 2026) I told you: a greyhound called Bolt")
    assert [q.day for q in dated] == [dt.date(2026, 11, 3)] and verbatim(dated[0], RECORDS)
    assert not verbatim(quotes("(7 November 2026) I told you: a greyhound called Bolt")[0], RECORDS)
    assert not verbatim(quotes("You said: what languages do I speak?")[0], RECORDS)


def test_an_earlier_answer_that_quoted_memory_is_recognized():
    assert quotes_inside('On 2 May 2024 you said: "I keep bees."')
    assert quotes_inside("(2 May 2024) You said: I keep bees.")
    assert not quotes_inside("I keep bees and my brother said it was fine.")
    assert not quotes_inside("I ran yesterday (8 June 2023).")


def _replier(replies, memories):
    backend = ScriptedBackend(list(replies))
    messages = [Message("system", "Be brief."), Message("user", "\n".join(memories) + "\n\nQuestion")]
    replier = Replier(backend, messages, GenerationSettings(max_tokens=64), None, {}, 0.0,
                      sources=[m.content for m in messages], memories=memories)
    return replier, backend


def test_an_answer_made_only_of_an_invented_quote_is_replaced_by_the_evidence_or_not_told():
    memories = [shown("I teach chemistry at a secondary school.", "2026-11-02")]
    replier, backend = _replier(["(2 November 2026) You said: I teach biology at the university."], memories)
    reply = replier.reply(ReplyPlan("past"), read("What do I teach?", dt.datetime(2026, 11, 9)))
    assert reply.answer.text == 'On 2 November 2026 you said: "I teach chemistry at a secondary school."'
    assert reply.route == "template:evidence" and len(backend.prompts) == 1  # no retry


def test_a_verbatim_quote_in_an_answer_is_shown():
    memories = [shown("I teach chemistry at a secondary school.", "2026-11-02")]
    said = "You said: I teach chemistry at a secondary school."
    replier, _ = _replier([said], memories)
    reply = replier.reply(ReplyPlan("past"), read("What do I teach?", dt.datetime(2026, 11, 9)))
    assert (reply.answer.text, reply.route) == (said, "grounded")


def test_an_earlier_answer_that_quoted_memory_is_never_quoted_inside_a_new_quote():
    memories = [shown('On 2 November 2026 you said: "I teach chemistry."', "2026-11-03", role="assistant"),
                shown("I teach chemistry at a secondary school.", "2026-11-02")]
    replier, _ = _replier(["Okay."], memories)
    reply = replier.reply(ReplyPlan("past"), read("What do I teach?", dt.datetime(2026, 11, 9)))
    assert reply.answer.text == 'On 2 November 2026 you said: "I teach chemistry at a secondary school."'


ZALANDO = [shown("I work at Zalando as a designer.", "2026-11-02"),
           shown("Update: I quit Zalando, I'm freelancing now.", "2026-11-16")]


@pytest.mark.parametrize(("question", "history"), [
    ("where do I work now?", True),  # the value now
    ("where did I use to work?", False),  # look-alike: the old value, not asked now
])
def test_the_latest_value_answers_with_the_old_one_as_history(question, history):
    found = changed(question, [*map(from_memory, reversed(ZALANDO))])
    assert (found is not None) == history
    if found:
        assert history_reply(*found) == (
            'On 2 November 2026 you said: "I work at Zalando as a designer." Since then, '
            'on 16 November 2026 you said: "Update: I quit Zalando, I\'m freelancing now."')


def test_a_change_of_one_thing_does_not_answer_a_question_about_another():
    party = [from_memory(shown("My mum Gloria turns 80 on the 21st and we're throwing her a surprise party at my "
                               "aunt Bea's house", "2026-11-03")),
             from_memory(shown("change of plan, the party is at the community hall now", "2026-11-10"))]
    found = changed("where is mum's party?", party)
    assert found is not None and found[1] is party[1]
    assert changed("how old is my mum turning?", party) is None
    assert is_change("Sorry, I got that wrong: Sam lives in Boulder, not Denver.")
    assert not is_change("Jonas got a new job at the children's hospital, he starts in January.")


def test_a_memory_answer_about_a_changed_value_is_the_programs_with_the_newest_last():
    replier, backend = _replier([], list(reversed(ZALANDO)))
    reply = replier.reply(ReplyPlan("past"), read("where do I work now?", dt.datetime(2026, 11, 20)))
    assert reply.answer.text.endswith('"Update: I quit Zalando, I\'m freelancing now."')
    assert reply.route == "template:evidence" and backend.prompts == []


def test_of_two_records_that_answer_the_newest_is_the_evidence():
    from local_agent.turn.told import answering

    older, newer = (from_memory(shown("I live in Porto.", "2026-11-02")),
                    from_memory(shown("I live in Madrid.", "2026-11-09")))
    assert answering("Where do I live?", [older, newer]) == [newer]
    assert answering("Where do I live?", [newer, older]) == [newer]


def test_a_question_a_changed_record_answers_is_a_memory_question():
    from local_agent.turn.replies import plan_reply

    party = [shown("change of plan, the party is at the community hall now", "2026-11-10"),
             shown("My mum Gloria turns 80 on the 21st and we're throwing her a surprise party at my aunt Bea's house",
                   "2026-11-03")]
    now = dt.datetime(2026, 11, 12)
    assert plan_reply(read("where is mum's party?", now), party).kind == "past"
    assert plan_reply(read("what is a good party game?", now), party).kind == "open"  # a look-alike: no record answers


def test_the_evidence_said_back_is_the_users_words_before_the_assistants():
    memories = [shown("That's a great story about your dad the carpenter.", "2026-11-06", role="assistant"),
                shown("My dad Walter was a carpenter.", "2026-11-06")]
    replier, _ = _replier(["He did things.", "He did things."], memories)
    reply = replier.reply(ReplyPlan("past"), read("What did my dad do?", dt.datetime(2026, 11, 9)))
    assert reply.answer.text == 'On 6 November 2026 you said: "My dad Walter was a carpenter."'


def test_a_statement_reply_that_quotes_what_nobody_said_is_replaced(tmp_path):
    from tests.test_replies import make_agent

    copied = "She loves music. - 3 November 2026, you: My mum is going to celebrate on the 1st."
    agent, _ = make_agent(tmp_path, [copied, "That's lovely, enjoy the party at the hall."])
    first = agent.respond("I moved the party to the community hall.")
    assert first.reply_route == "template:statement" and "3 November" not in first.answer
    second = agent.respond("We booked the community hall for the party.")  # a look-alike reply that quotes nothing
    assert second.reply_route == "model:checked"


def test_a_passage_of_an_answer_that_quotes_is_not_stored(tmp_path):
    from local_agent.memory.store import MemoryStore
    from tests.reliability import HashEmbedder
    from tests.test_replies import make_agent

    store = MemoryStore.open(tmp_path / "mem", HashEmbedder())
    answer = 'Try a museum. Or a boat trip. Or a picnic by the river. On 2 May 2024 you said: "I love old maps."'
    agent, _ = make_agent(tmp_path, [answer], store=store)
    agent.respond("any idea for a day out?")
    agent.wait()
    said = [r.text for r in store.records("turn") if r.provenance.role == "assistant"]
    assert said == ["Try a museum. Or a boat trip. Or a picnic by the river."]


def _hit(text, date):
    from local_agent.types import RecallHit

    return RecallHit(MemoryRecord(id=text, kind="turn", text=text, provenance=Provenance(role="user", date=date)), 0.5)


@pytest.mark.parametrize(("question", "first"), [
    ("where do I work now?", "Update: I quit Zalando, I'm freelancing now."),
    ("where do I work?", "Update: I quit Zalando, I'm freelancing now."),  # the present tense asks now too
    ("where did I use to work?", "I work at Zalando as a designer."),  # look-alike: the past keeps recall's order
])
def test_a_change_is_recalled_before_what_it_changes_for_a_question_about_now(question, first):
    from local_agent.turn.latest import latest_first

    hits = [_hit("I work at Zalando as a designer.", "2026-11-02T10:00"), _hit("I like tea.", "2026-11-03T10:00"),
            _hit("Update: I quit Zalando, I'm freelancing now.", "2026-11-16T10:00")]
    assert latest_first(question, hits)[0].record.text == first
    assert len(latest_first(question, hits)) == 3


def test_a_line_given_to_a_speaker_of_an_imported_conversation_is_a_quote():
    imported = [from_memory(shown("Jon: Hey Gina! Lost my job as a banker yesterday, so I'm starting a business.",
                                  "2023-01-20")),
                from_memory(shown("Gina: Sorry to hear that, Jon! Want to meet up?", "2023-01-20"))]
    invented = "Jon: Hey Gina, I'm glad you're starting a dance studio.\nGina: Oh, great! I'll help you."
    assert without_invented(invented, imported) == ""
    assert without_invented("Gina: Oh, great!", imported[:1]) == ""  # Gina only named in Jon's line
    copied = "Gina: Sorry to hear that, Jon! Want to meet up?\nJon lost his job."  # verbatim, a question included
    assert without_invented(copied, imported) == copied
    assert without_invented("Note: Jon lost his job.", imported) == "Note: Jon lost his job."  # no speaker's name


def test_a_change_about_a_word_of_the_same_sense_updates_the_answer():
    race = [from_memory(shown("training for a half marathon in December", "2026-11-02")),
            from_memory(shown("actually change of plans, I'm switching from the half to the full marathon in April "
                              "instead", "2026-11-04"))]
    found = changed("what race am I training for?", race)  # a marathon is a race
    assert found is not None and found[1] is race[1]
    assert changed("what month is my half marathon in?", race[:1]) is None  # no change said: the record answers


@pytest.mark.parametrize(("question", "said", "update"), [
    ("how old is my daughter?", ["My daughter Mila is 5."],
     "Sorry, got that wrong, Mila is 6, her birthday was last month."),
    ("where are we going on holiday?", ["We're going to Crete for the holidays."],
     "Change of plan, not Crete anymore, it's Sicily now."),
    ("What car do I drive?", ["Quick rundown: I'm Aiyana, I drive a 2015 Honda Civic, I play bass."],
     "Sold the Civic yesterday and bought a used Subaru Outback!"),
    ("What's my job now?", ["I got laid off from my graphic designer job on Friday."],
     "I GOT THE JOB!!! Junior UI artist at Pixelmoth, I start December 1st"),
])
def test_a_change_that_names_the_same_thing_or_is_shouted_answers_with_the_newest(question, said, update):
    records = [*(from_memory(shown(text, "2026-04-20")) for text in said), from_memory(shown(update, "2026-04-24"))]
    found = changed(question, records)
    newest = answering(question, records)
    assert (found is not None and found[1] is records[-1]) or newest == [records[-1]]


@pytest.mark.parametrize(("question", "said", "update"), [
    ("how old is my daughter?", "My daughter Mila is 5.", "Mila loves her new school now."),  # no age in it
    ("What's my band called?", "I drive a 2015 Honda Civic, I play bass in a band called The Static Hours.",
     "Sold the Civic yesterday and bought a used Subaru Outback!"),  # the name changed is not the band's
    ("where do I live?", "I live in Leeds with my dog Rex.", "Rex is not a puppy anymore, he turned two."),
])
def test_a_change_of_something_else_the_record_names_leaves_the_answer(question, said, update):
    records = [from_memory(shown(said, "2026-04-20")), from_memory(shown(update, "2026-04-24"))]
    assert changed(question, records) is None


def test_words_written_in_capitals_together_are_shouted_not_names():
    from local_agent.reading.names import proper_names

    assert proper_names("I GOT THE JOB!!! Junior UI artist at Pixelmoth") == ["Junior UI", "Pixelmoth"]
    assert proper_names("I work at the NHS in Leeds.") == ["NHS", "Leeds"]  # one word in capitals: a name's letters
