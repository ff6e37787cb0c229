"""The everyday evaluation reads a turn's named outcome as it says, and the answer's words only
when the turn names none (issue 42)."""

from __future__ import annotations

from evals.everyday import judge, said_unsure

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
