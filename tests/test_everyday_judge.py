"""The everyday evaluation reads a turn's named outcome as it says, and the answer's words only
when the turn names none (issue 42)."""

from __future__ import annotations

from typing import Any

import pytest
from evals.everyday import judge, said_unsure, yes_or_no

TASK = {"answer": "9", "kind": "unit-price", "message": "I paid 36 euros for 4 tickets. How much was each ticket?"}


def test_a_named_outcome_is_read_as_it_says():
    assert said_unsure("9. I read this as 36 ÷ 4 = 9.", (), "answer") is False
    assert said_unsure("I'm not sure. I read this as 36 ÷ 4 = 9, is that what you meant?", (), "unsure") is True
    assert said_unsure("You haven't told me.", (), "not_told") is True


def test_no_named_outcome_falls_back_to_the_words():
    assert said_unsure("I don't know.", (), "") is True
    assert said_unsure("It is 9.", (), "") is False
    assert said_unsure("It is 9.", ("ask_user",), None) is True


def test_a_definite_wrong_answer_is_confidently_wrong_and_an_unsure_one_is_not():
    assert judge(TASK, "0.111", (), "answer") == "wrong"
    assert judge(TASK, "I'm not sure. I read this as 4 ÷ 36, is that what you meant?", (), "unsure") == "unsure"
    assert judge({"answer": "unsure"}, "I'm not sure.", (), "unsure") == "right"


LEAP: dict[str, Any] = {"answer": "yes", "kind": "leap", "message": "is 2028 a leap year", "accept": []}


@pytest.mark.parametrize(("answer", "said"), [
    ("2028 is a leap year: it has 366 days, and February has 29.", "yes"),
    ("Yes, it is.", "yes"),
    ("2028 is not a leap year: it has 365 days.", "no"),
    ("No. 2028 has 365 days.", "no"),
    ("2028 isn't a leap year.", "no"),
    ("February 2028 has 29 days.", None),  # says neither: the gold word decides, as before
])
def test_a_statement_answers_a_yes_no_question(answer: str, said: str | None):
    assert yes_or_no(LEAP["message"], answer) == said


def test_a_yes_no_gold_is_judged_on_what_the_answer_says():
    assert judge(LEAP, "2028 is a leap year: it has 366 days, and February has 29.", ("date",), "answer") == "right"
    assert judge(LEAP, "2028 is not a leap year: it has 365 days, and February has 28.", ("date",), "answer") == "wrong"
    assert judge({**LEAP, "answer": "no"}, "2028 is not a leap year.", (), "answer") == "right"
    assert judge(LEAP, "February 2028 has 29 days.", (), "answer") == "wrong"
