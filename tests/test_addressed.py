"""Memories are shown said to the user ("You live in Lisbon"), which the small model copies into
answers that speak to the user; and the directive evaluation's automatic checks."""

from __future__ import annotations

import dataclasses

import pytest
from evals.directive import CASES, Case, score

from local_agent.memory.index.person import addressed
from local_agent.memory.index.render import prompt_text
from local_agent.prompt import spoken_today
from local_agent.types import MemoryKind, MemoryRecord, Provenance


@pytest.mark.parametrize(("text", "said"), [
    ("The user likes sushi.", "You like sushi."),
    ("The user is 34 years old.", "You are 34 years old."),
    ("The user's name is Alexandra.", "Your name is Alexandra."),
    ("The user lives in Lisbon.", "You live in Lisbon."),
    ("The user watches films and the user studies law.", "You watch films and you study law."),
    ("The user moved to Porto.", "You moved to Porto."),
    ("The user also likes hiking.", "You also like hiking."),
    ("The user can swim.", "You can swim."),
    ("The user doesn't eat meat.", "You don't eat meat."),
    ("The user goes running. The user misses home.", "You go running. You miss home."),
    ("The user was born in 1990; the user has a cat.", "You were born in 1990; you have a cat."),
    ("The assistant told the user about Dune.", "The assistant told you about Dune."),
    ("Alex likes tea.", "Alex likes tea."),  # no user in it: unchanged
])
def test_addressed(text: str, said: str) -> None:
    assert addressed(text) == said


def _record(kind: MemoryKind, text: str, role: str = "user") -> MemoryRecord:
    return MemoryRecord(id="m1", kind=kind, text=text, provenance=Provenance(role=role, date="2024-05-02T18:30"))


def test_the_prompt_shows_memories_said_to_the_user_and_the_stored_text_is_kept() -> None:
    fact = _record("fact", "The user lives in Lisbon.")
    assert prompt_text(fact) == "You live in Lisbon. (noted 2 May 2024)"
    assert fact.text == "The user lives in Lisbon."
    assert prompt_text(_record("turn", "I moved.")) == "- 2 May 2024, you: I moved."
    assert prompt_text(_record("turn", "Read Dune.", "assistant")) == "- 2 May 2024, me: Read Dune."
    assert prompt_text(_record("digest", "The user talked about Porto.")) == (
        "Conversation of 2 May 2024, in short: You talked about Porto.")
    spanning = dataclasses.replace(_record("digest", "Porto."), provenance=Provenance(
        role="summary", date="2024-05-02T18:30", until="2024-05-04T09:00"))
    assert prompt_text(spanning) == "Conversation of 2 May 2024 to 4 May 2024, in short: Porto."


def test_today_in_words() -> None:
    assert spoken_today("2024-05-20") == "Monday, 20 May 2024"
    assert spoken_today("2024-05-20T09:30") == "Monday, 20 May 2024"
    assert spoken_today("someday") == "someday"


def test_directive_checks() -> None:
    pet = next(case for case in CASES if case.name == "pet")
    assert score(pet, "Your dog is Rex.") == {"answered": True, "keywords": True, "second_person": True,
                                              "no_repeat": True}
    assert score(pet, "The user's dog is Rex.")["second_person"] is False
    assert score(pet, "Your name is Alexandra.")["no_repeat"] is False  # the previous answer again
    assert score(pet, "")["answered"] is False
    sums = Case("add", "What is 2 + 3?", (("5", "five"),))
    assert score(sums, "2 + 3 = 5")["keywords"] and not score(sums, "It is 6.")["keywords"]
