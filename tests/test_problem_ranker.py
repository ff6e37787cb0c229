"""The shipped ranker of word problems and the everyday set's judge: the weights load with
their format checked and name what they were trained on; an answer is right, unsure or
confidently wrong."""

from __future__ import annotations

import json

import pytest
from evals import everyday, problems

from local_agent.errors import ModelError
from local_agent.reading.problems import Solved, Unsure
from local_agent.reading.problems.ranker import FORMAT_VERSION, from_json, shipped, softmax


def test_shipped_weights_say_what_they_were_trained_on() -> None:
    weights = shipped()
    assert "ASDiv" in weights.meta["trained_on"] and "CC BY-NC 4.0" in weights.meta["trained_on"]
    assert 0 < weights.margin <= weights.margin_unused < 1
    assert weights.score({"bias": 1.0, "no such feature": 5.0}) == weights.weights.get("bias", 0.0)


def test_a_file_of_another_format_is_refused() -> None:
    data = json.loads(json.dumps(shipped().to_json()))
    data["format"] = FORMAT_VERSION + 1
    with pytest.raises(ModelError, match="format"):
        from_json(data)
    assert from_json(shipped().to_json()) == shipped()


def test_softmax_is_stable_for_large_scores() -> None:
    assert softmax([1000.0, 1000.0]) == [0.5, 0.5]


@pytest.mark.parametrize(("gold", "answer", "tools", "expected"), [
    ("9", "Each ticket was 9 euros.", (), "right"),
    ("9", "4 / 36 = 0.111111111111", ("calculator",), "wrong"),
    ("9", "I'm not sure. I read this as 36 ÷ 4 = 9, is that what you meant?", (), "unsure"),
    ("9", "I don't remember that.", (), "unsure"),
    ("9", "Which tickets?", ("ask_user",), "unsure"),
    ("unsure", "I could not work this out with the tools.", (), "right"),
    ("unsure", "The result is 0.25.", ("calculator",), "wrong"),
])
def test_everyday_judge(gold: str, answer: str, tools: tuple[str, ...], expected: str) -> None:
    task = {"answer": gold, "accept": [], "message": "I paid 36 euros for 4 tickets. How much was each ticket?"}
    assert everyday.judge(task, answer, tools) == expected


def test_a_named_outcome_is_read_as_it_says() -> None:
    task = {"answer": "9", "accept": [], "message": "36 euros for 4 tickets, each?"}
    assert everyday.judge(task, "It is 9.", (), "unsure") == "unsure"
    assert everyday.judge(task, "I'm not sure, 9?", (), "answer") == "right"


def test_problem_outcomes() -> None:
    problem = problems.Problem("x", "asdiv", 0, "text", 2.92, 2)
    solved = Solved("1.46 × 2", 2.921, "", 0.9)
    assert problems.outcome(solved, problem) == "right"
    assert problems.outcome(Solved("1 + 1", 2.0, "", 0.9), problem) == "wrong"
    unsure = Unsure("", None, "", 0.0, "low margin")
    assert problems.outcome(unsure, problem) == "unsure"
    assert problems.outcome(unsure, problems.Problem("y", "everyday", -1, "t", None, 0)) == "right"
