"""What memories' words name is read once, at compaction (mention_times.py), and a dated
question on a reopened store weighs it without reading their words again."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest

from local_agent.memory.index import time_boost
from local_agent.memory.index.recall import DEFAULT_MIN_SCORE, hybrid_recall
from local_agent.memory.store import MemoryStore
from local_agent.reading.dates import read_dates
from local_agent.types import MemoryDraft, MemoryRecord, Provenance
from tests.reliability import HashEmbedder

TODAY = dt.datetime(2024, 5, 20, 12)
WORDS = [("I held a benefit game last week", "2024-05-16T10:00"), ("Had a nap yesterday", "2024-05-13T07:30"),
         ("On Saturday I baked, on Sunday I rested, and on Monday I ran", "2024-05-14T09:00"),
         ("We met in 2019 and again in March 2020", "2024-05-01T09:00"), ("no date here", "2024-05-10T09:00"),
         ("no date and no stamp", "")]


def _record(text: str, date: str) -> MemoryRecord:
    return MemoryRecord(id=text, kind="turn", text=text, created=0.0, updated=0.0,
                        provenance=Provenance(session="s", turn_index=0, role="user", date=date))


def _windows(question: str) -> list[tuple[float, float]]:
    spans = read_dates(question, TODAY)
    return [(time_boost.seconds(span.start.replace(tzinfo=None)), time_boost.seconds(span.end.replace(tzinfo=None)))
            for span in spans]


QUESTIONS = ["last week", "yesterday", "on 11 May", "in 2019", "in March 2020", "last weekend", "on Monday 13 May"]


def test_saved_columns_answer_as_reading_the_words_does(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [_record(text, date) for text, date in WORDS]
    rows = np.arange(len(records))
    read = time_boost.new_mention_times()
    saved = time_boost.new_mention_times(time_boost.mention_columns(records))
    expected = {question: read.naming(records, rows, _windows(question)) for question in QUESTIONS}
    assert any(found.any() for found in expected.values())
    read_again: list[str] = []

    def spans_of(record: MemoryRecord) -> tuple[tuple[float, float], ...]:
        read_again.append(record.text)
        return time_boost.mentioned_seconds(record)

    monkeypatch.setattr(saved, "_spans_of", spans_of)
    for question in QUESTIONS:
        assert saved.naming(records, rows, _windows(question)).tolist() == expected[question].tolist(), question
    assert set(read_again) == {WORDS[2][0]}  # three spans: more than the columns keep, so read again


def test_a_changed_row_is_read_again() -> None:
    records = [_record(text, date) for text, date in WORDS]
    mentions = time_boost.new_mention_times(time_boost.mention_columns(records))
    records[4] = _record("I was ill last week", "2024-05-22T10:00")  # (its saved columns say nothing)
    mentions.refresh(4)
    assert mentions.naming(records, np.asarray([4]), _windows("last week")).tolist() == [True]


def test_a_reopened_store_weighs_mentions_without_reading_words(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = HashEmbedder()
    with MemoryStore.open(tmp_path, embedder) as store:
        store.add_many([MemoryDraft(text, "turn", Provenance(session="s", turn_index=i, role="user", date=date))
                        for i, (text, date) in enumerate(WORDS)])
        store.compact()
        before = _recall(store, "what happened last week?")
    with MemoryStore.open(tmp_path, embedder) as store:
        original = time_boost._mentioned

        def unread(text: str, stamp: str) -> tuple[tuple[dt.datetime, dt.datetime], ...]:
            assert text == WORDS[2][0], "a saved memory's words were read for its dates"  # (it names three)
            return original(text, stamp)

        monkeypatch.setattr(time_boost, "_mentioned", unread)
        assert _recall(store, "what happened last week?") == before


def _recall(store: MemoryStore, question: str) -> list[tuple[str, float]]:
    state = store._files.state
    topic = time_boost.topic_of(question, TODAY)
    vector = HashEmbedder().embed([topic])[0]
    hits = hybrid_recall(state, question, vector, k=6, kinds=("turn",), min_score=DEFAULT_MIN_SCORE - 1, today=TODAY)
    return [(hit.record.text, round(hit.score, 5)) for hit in hits]
