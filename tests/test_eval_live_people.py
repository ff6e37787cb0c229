"""The live set's judge and counts (scripts/evals/live_people.py): an answer holds every gold part
or is wrong unless it says it was not told; the outcomes the turns named are counted beside."""

from __future__ import annotations

from typing import Any

import pytest
from evals.live_people import FRESH, judge, load, named_outcomes, summarize


@pytest.mark.parametrize(("gold", "answer", "judged"), [
    (["9|nine"], "Yaw is 9.", "right"),
    (["ghent", "nurse"], "You live in Ghent.", "wrong"),
    (["ghent", "nurse"], "You live in Ghent; you haven't told me what Jonas does.", "unsure"),
    (["8 nov|2026-11-08"], "On 18 Nov 2026.", "wrong"),
    (None, "You haven't told me what Jonas likes to cook.", "right"),
    (None, "Jonas likes to cook pasta.", "wrong"),
])
def test_an_answer_is_judged_by_what_a_person_holds_against_it(gold, answer, judged):
    assert judge(gold, answer) == judged


def test_the_outcomes_the_turns_named_are_counted_with_their_judgement():
    rows: list[dict[str, Any]] = [
        {"split": "dev", "kind": "direct", "gold": ["a"], "outcome": "answer", "judged": "wrong"},
        {"split": "dev", "kind": "never", "gold": None, "outcome": "not_told", "judged": "right"},
        {"split": "dev", "kind": "direct", "gold": ["a"], "outcome": "answer", "judged": "right"}]
    assert named_outcomes(rows) == {"answer": {"right": 1, "unsure": 0, "wrong": 1},
                                    "not_told": {"right": 1, "unsure": 0, "wrong": 0}}
    assert summarize(rows)["dev"]["all"] == {"questions": 3, "right": 0.667, "unsure": 0.0, "wrong": 0.333}


def test_the_fresh_set_is_all_held_out():
    people = load("all", FRESH)
    assert len(people) == 18 and {person["split"] for person in people} == {"held-out"}
    assert load("dev", FRESH) == []


def test_a_day_is_held_in_any_common_spelling_and_only_that_day():
    assert judge(["2026-10-12|october 12"], "On Monday 12 October 2026 (10 days ago).") == "right"
    assert judge(["2026-10-12"], "That was Oct 12.") == "right"
    assert judge(["2026-10-02"], "On 12 October 2026.") == "wrong"  # another day
    assert judge(["oct 1"], "On Oct 12.") == "wrong"  # a number is held whole
