""""When" answered with the day the event happened (turn/when_answer.py; issue 43): the
program finds the record that tells the event, reads its day from the day it was said, and
answers itself; a scripted model where the agent runs."""

from datetime import datetime

import pytest

from local_agent.memory.index import recall
from local_agent.memory.store import MemoryStore
from local_agent.reading import read
from local_agent.turn.evidence import from_dialogue
from local_agent.turn.replies import plan_reply
from local_agent.turn.result import outcome_of
from local_agent.turn.when_answer import Told, answer_when, told_records, when_parts
from local_agent.types import MemoryRecord, Provenance
from tests.reliability import HashEmbedder
from tests.test_replies import make_agent


def told(*said: tuple[str, str]) -> list[Told]:
    return [Told(text, datetime.fromisoformat(f"{day}T19:00")) for text, day in said]


def ask(question: str, records: list[Told], today: str) -> str:
    """The program's answer, "" when it leaves the question to the other answers."""
    return answer_when(question, records, [from_dialogue(r.text) for r in records],
                       datetime.fromisoformat(f"{today}T20:00")) or ""


OSLO = told(("flight to Oslo thursday", "2026-11-09"), ("back sunday", "2026-11-09"))
MOCHI = told(("We adopted a kitten yesterday! Her name is Mochi.", "2026-11-18"),
             ("Mochi has her first vet visit tomorrow.", "2026-11-19"))


def test_a_weekday_said_ahead_is_the_next_one_not_the_day_it_was_said():
    answer = ask("when did i fly to oslo", OSLO, "2026-11-16")
    assert answer == ('On Thursday 12 November 2026 (4 days ago). On 9 November 2026 you said: '
                      '"flight to Oslo thursday".')


def test_the_record_that_tells_the_event_gives_the_day_not_another_record():
    assert ask("When did we adopt Mochi?", MOCHI, "2026-11-24").startswith("On Tuesday 17 November 2026 (a week ago).")
    assert ask("When was Mochi's first vet visit?", MOCHI, "2026-11-24").startswith("On Friday 20 November 2026")
    assert ask("when did i get back from oslo", OSLO, "2026-11-16").startswith("On Sunday 15 November 2026")


def test_today_in_a_message_is_the_day_it_was_said():
    records = told(("2 kids, Ama and Yaw", "2026-11-03"), ("yaw turned 9 today", "2026-11-10"))
    assert ask("when is yaw's birthday", records, "2026-11-12").startswith("On Tuesday 10 November 2026 (2 days ago).")


def test_a_when_part_gets_its_day_and_the_other_part_its_record():
    records = told(("Quick intro: Mateo, 41, electrician, I coach her football team on Wednesdays.", "2026-11-02"))
    answer = ask("what do I coach and when", records, "2026-11-06")
    assert "football" in answer and "When: every Wednesday." in answer
    assert answer.count("Quick intro") == 1  # one record, said back once


def test_a_recurring_day_answers_when_do_i_and_one_day_when_did_i():
    records = told(("I play badminton every Saturday.", "2026-11-01"),
                   ("played badminton yesterday, lost", "2026-11-09"))
    assert ask("when do I play badminton?", records, "2026-11-10").startswith("Every Saturday.")
    assert ask("when did I play badminton?", records, "2026-11-10").startswith("On Sunday 8 November 2026")


def test_a_month_and_a_week_are_said_as_such():
    records = told(("Jonas got a new job at the hospital, he starts in January.", "2026-11-05"),
                   ("Last week I went to see my old teacher Mrs Okafor.", "2026-11-12"))
    assert ask("when does jonas start the new job", records, "2026-11-09").startswith("In January 2027.")
    answer = ask("when did I see Mrs Okafor?", records, "2026-11-16")
    assert answer.startswith("In the week of Monday 2 November 2026 (the week before 12 November 2026); "
                             "you didn't tell me which day")


def test_a_year_or_years_ago_are_said_as_a_year():
    records = told(("I got my dog Max ten years ago", "2023-08-11"), ("we moved to Porto last year", "2023-08-11"))
    assert ask("when did I get my dog Max?", records, "2023-08-12").startswith("Around 2013.")
    assert ask("when did we move to Porto?", records, "2023-08-12").startswith("In 2022.")


def test_a_record_with_no_day_for_the_event_says_so_and_never_gives_the_day_it_was_sent():
    answer = ask("When did I run the half marathon?", told(("I ran the half marathon!", "2026-11-01")), "2026-11-05")
    assert answer == ("I'm not sure of the day: you didn't tell me. "
                      'On 1 November 2026 you said: "I ran the half marathon!".')
    assert outcome_of(True, "template:when", answer) == "unsure"


def test_a_day_still_to_come_does_not_answer_a_question_about_the_past():
    records = told(("the new laptop arrives on saturday", "2026-11-23"))
    assert ask("when did the new laptop arrive?", records, "2026-11-24").startswith("I'm not sure of the day")
    assert ask("when does the new laptop arrive?", records, "2026-11-24").startswith("On Saturday 28 November 2026")


def test_records_that_disagree_are_both_said_and_the_answer_is_unsure():
    records = told(("my mum's operation is on Friday", "2026-11-02"),
                   ("mum's operation got moved to Monday", "2026-11-04"))
    answer = ask("when is my mum's operation?", records, "2026-11-05")
    assert answer.startswith("I'm not sure which day")
    assert "Friday 6 November 2026" in answer and "Monday 9 November 2026" in answer


@pytest.mark.parametrize(("question", "whens"), [
    ("when did i fly to oslo", 1),
    ("what day is the party?", 1),
    ("remind me when the party is", 1),
    ("which sport do i play and when?", 1),
    ("When I was in Rome, what did I eat?", 0),  # "when" opening a clause asks nothing
    ("what did I do last Sunday?", 0),
    ("What's my cat's name?", 0),
])
def test_which_parts_ask_when(question, whens):
    assert len(when_parts(question)) == whens


def test_no_when_part_or_no_record_of_the_event_is_left_to_the_other_answers():
    assert ask("What's my cat's name?", OSLO, "2026-11-16") == ""
    assert ask("when did I adopt a dog?", OSLO, "2026-11-16") == ""


def test_the_agent_answers_when_from_memory_told_on_another_day_without_the_model(tmp_path, monkeypatch):
    monkeypatch.setattr(recall, "DEFAULT_MIN_SCORE", -1.0)  # the hashing embedder's scores are low
    store = MemoryStore.open(tmp_path / "mem", HashEmbedder())
    agent, backend = make_agent(tmp_path, ["Have a good flight!"], store=store)
    agent.respond("flight to Oslo thursday", today="2026-11-09T19:00")
    agent.wait()
    agent.use_session("later")
    asked = len(backend.prompts)
    result = agent.respond("when did i fly to oslo", today="2026-11-16T20:00")
    assert result.answer.startswith("On Thursday 12 November 2026 (4 days ago).")
    assert result.reply_route == "template:when" and result.outcome == "answer"
    assert len(backend.prompts) == asked  # the program answered
    store.close()


@pytest.mark.parametrize(("question", "kind"), [
    ("when is the parents' evening?", "past"),  # no "my", but a memory tells it with a day
    ("when was the concert", "past"),
    ("when did the wall fall?", "open"),  # a memory tells of a visit, not of the wall
    ("when is Christmas?", "open"),
])
def test_a_when_question_a_memory_tells_is_about_the_users_life(question, kind):
    memories = ["(18 November 2026) You said: we have the parents' evening on Thursday.",
                "(19 November 2026) You said: concert tonight at 8",
                "(19 November 2026) You said: I visited Berlin last year (2025)"]
    assert plan_reply(read(question, datetime(2026, 11, 23, 20)), memories).kind == kind


def test_the_records_read_are_the_users_words_and_an_imported_conversations_not_the_assistants():
    def turn(text, role, speaker=None):
        return MemoryRecord(id=text, text=text, kind="turn", created=0.0,
                            provenance=Provenance(role=role, speaker=speaker, date="2022-01-21T10:00"))
    records = [turn("I won my first tournament last week", "user"), turn("Great job!", "assistant"),
               turn("Nate: I won my first tournament last week", "assistant"),
               turn("I won again on Friday", "user", speaker="Joanna")]
    assert [t.text for t in told_records(records)] == [records[0].text, records[2].text, records[3].text]
