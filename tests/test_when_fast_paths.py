"""Phrases read from a reference week and moved back (when_phrases._anchor) name the same days
as the date library reading them from their own base."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from local_agent.reading import date_phrases as when_phrases
from local_agent.reading.dates import read_dates
from local_agent.reading.patterns import LazyPattern

PHRASES = ["yesterday", "today", "tomorrow", "the day before yesterday", "1 days ago", "3 days ago",
           "2 weeks ago", "last week", "this week", "next week", "monday", "tuesday", "sunday",
           "next friday", "next saturday", "Last week"]
SENTENCES = ["I went there last Friday with my sister", "yesterday I ran 5k", "two weeks ago we moved",
             "3 days ago", "this morning was cold", "last night we talked", "the weekend was fun",
             "last week I started", "on Tuesday I will call", "next week is the trip",
             "the day before yesterday", "a few days ago", "this week", "since Monday"]


def _bases(count: int = 150) -> list[dt.datetime]:
    rng = np.random.default_rng(4)
    start = dt.datetime(2018, 12, 20)
    return [start + dt.timedelta(days=int(rng.integers(0, 3000)), minutes=int(rng.integers(0, 1440)))
            for _ in range(count)] + [dt.datetime(2024, 2, 29, 23, 59), dt.datetime(2020, 12, 31, 0, 0)]


@pytest.mark.parametrize("phrase", PHRASES)
def test_a_weekly_phrase_names_the_day_the_library_reads(phrase: str) -> None:
    for base in _bases():
        moved = when_phrases._anchor(" ".join(phrase.split()), base)
        direct = when_phrases._read_anchor(phrase, base)
        assert (moved is None) == (direct is None)
        assert moved is None or direct is None or moved.date() == direct.date(), (phrase, base)


def test_sentences_read_the_same_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    bases = _bases(60)
    moved = [[read_dates(sentence, base) for sentence in SENTENCES] for base in bases]
    monkeypatch.setattr(when_phrases, "_WEEKLY", LazyPattern(r"(?!)"))  # every phrase read directly
    when_phrases._read_anchor.cache_clear()
    direct = [[read_dates(sentence, base) for sentence in SENTENCES] for base in bases]
    assert moved == direct


NUMBERED = ["I ran 5 km", "note 17", "my 2 kids", "it cost 30 dollars", "room 101", "3 pm", "call me at 10",
            "5 days ago", "May 17", "17 May", "the 3rd of June", "on the 21st", "2023", "in 1999", "5/2/2023",
            "2024-05-02", "3 weeks before the trip", "the 2 weeks after 5 June", "12 months ago",
            "the twenty-first of May", "on 3 March, 2023", "March 3rd", "in the year 2020", "12/25/2022"]


def test_the_first_look_never_misses_a_phrase() -> None:
    """MAYBE lets a text through whenever PHRASES would find something in it (else a memory's
    date would silently be lost); a bare number alone does not."""
    from tests.test_when import NOT_DATES, POSITIVE

    texts = [case[0] for case in POSITIVE] + NOT_DATES + SENTENCES + NUMBERED
    for text in texts:
        for variant in (text, text.upper(), f"Yes, {text.lower()}, I think"):
            if when_phrases.PHRASES.search(variant):
                assert when_phrases.MAYBE.search(variant), variant
    assert not any(when_phrases.MAYBE.search(text) for text in NUMBERED[:7])
