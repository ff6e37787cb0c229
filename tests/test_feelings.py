"""The feeling a message shares and whether a reply meets it (reading/feelings.py, turn/feelings.py)."""

import pytest

from local_agent.reading.feelings import feeling
from local_agent.turn.feelings import misses_feeling


@pytest.mark.parametrize(("message", "shared"), [
    ("hey, it's me again. rough day at work", "hard"),
    ("My grandmother passed away last month.", "hard"),
    ("can't sleep", "hard"),
    ("I got fired today", "hard"),
    ("I'm not nervous anymore", None),  # turned around
    ("I got promoted to team lead!", "good"),
    ("we just adopted a puppy called Churro!!", "good"),
    ("I won't make it to the gym", None),  # "won't" is no win
    ("I passed my exam but I'm so tired", None),  # both: no one feeling
    ("I keep bees in Lisbon.", None),
])
def test_the_feeling_a_message_shares(message, shared):
    assert feeling(message) == shared


def test_a_reply_misses_a_feeling_when_it_cheers_at_the_hard_or_condoles_at_the_good():
    assert misses_feeling("I'm glad to hear that!", feeling("my cat died"))
    assert not misses_feeling("I'm so sorry. Do you want to talk about it?", feeling("my cat died"))
    assert misses_feeling("Sorry to hear that.", feeling("I got the job!"))
    assert not misses_feeling("Sorry to hear that.", feeling("I keep bees."))
