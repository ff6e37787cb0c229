"""Relative times inside a remembered message, read from the day it was said, as the prompt
shows them ("yesterday (8 June 2023)"); words that only look like dates stay as they are."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from local_agent.dates.when_told import with_told_dates
from local_agent.memory.index.render import prompt_text
from local_agent.types import MemoryRecord, Provenance

SAID = datetime(2023, 6, 9, 13, 56)  # a Friday

TOLD = [
    ("I went to a support group yesterday and loved it.",
     "I went to a support group yesterday (8 June 2023) and loved it."),
    ("the day before yesterday", "the day before yesterday (7 June 2023)"),
    ("last night I cried", "last night (8 June 2023) I cried"),
    ("three days ago", "three days ago (6 June 2023)"),
    ("last Friday I ran", "last Friday (2 June 2023) I ran"),
    ("on last Monday we met", "on last Monday (5 June 2023) we met"),
    ("the past Sunday", "the past Sunday (4 June 2023)"),
    ("tomorrow", "tomorrow (10 June 2023)"),
    ("last week was fun", "last week (the week before 9 June 2023) was fun"),
    ("last weekend", "last weekend (the weekend before 9 June 2023)"),
    ("two weeks ago", "two weeks ago (two weeks before 9 June 2023)"),
    ("next week", "next week (the week after 9 June 2023)"),
    ("last month", "last month (May 2023)"),
    ("next month", "next month (July 2023)"),
    ("last year", "last year (2022)"),
    ("5 years ago", "5 years ago (around 2018)"),
]

UNCHANGED = [
    "I fly out on Monday",  # a bare weekday may be a plan or a memory
    "next Friday",
    "Sunday morning",
    "this weekend",
    "next weekend",
    "today I ran",  # the message's own day: its date is already on the line
    "this morning",
    "tonight",
    "this week",
    "the past few weeks",  # vague: no span worth naming
    "a few years ago",
    "I may go in March",  # words that only look like dates
    "we march on",
    "the second one",
    "sun and sat",
    "on 2 May 2023 we met",  # already a date
    "",
]


@pytest.mark.parametrize(("text", "told"), TOLD)
def test_relative_phrases_get_the_date_they_meant(text: str, told: str) -> None:
    assert with_told_dates(text, SAID) == told


@pytest.mark.parametrize("text", UNCHANGED)
def test_other_text_is_left_as_it_is(text: str) -> None:
    assert with_told_dates(text, SAID) == text


def test_an_aware_moment_is_read_on_its_own_day() -> None:
    said = datetime(2023, 6, 9, 23, 30, tzinfo=UTC)
    assert with_told_dates("yesterday", said) == "yesterday (8 June 2023)"


def test_the_prompt_line_of_a_turn_carries_the_told_date() -> None:
    record = MemoryRecord(id="m1", kind="turn", text="Caroline: I went to a support group yesterday.",
                          provenance=Provenance(role="user", date="2023-05-08T13:56", session="s1"))
    assert prompt_text(record) == "- 8 May 2023, you: Caroline: I went to a support group yesterday (7 May 2023)."


def test_a_fact_line_carries_it_too() -> None:
    record = MemoryRecord(id="f1", kind="fact", text="The user started a pottery class last week.",
                          provenance=Provenance(role="user", date="2023-06-09T10:00", session="s1"))
    assert prompt_text(record) == ("You started a pottery class last week (the week before 9 June 2023). "
                                   "(noted 9 June 2023)")


def test_a_record_without_a_readable_date_uses_when_it_was_stored() -> None:
    stored = datetime(2023, 6, 9, 12, 0).timestamp()
    record = MemoryRecord(id="m2", kind="turn", text="I ran yesterday.", created=stored,
                          provenance=Provenance(role="user", date="not a date", session="s1"))
    assert prompt_text(record) == "- 9 June 2023, you: I ran yesterday (8 June 2023)."
