"""Time-aware recall: the days a question names lift their memories, never filter the rest."""

import datetime as dt

import numpy as np
import pytest

from local_agent.memory.index import time_boost
from local_agent.memory.index.render import prompt_text
from local_agent.memory.index.said_times import SaidColumns, overlapping
from local_agent.memory.index.time_boost import moment_of
from local_agent.memory.store import MemoryStore
from local_agent.reading.dates import read_dates
from local_agent.types import MemoryDraft, MemoryRecord, Provenance
from tests.reliability import HashEmbedder

TODAY = dt.datetime(2024, 5, 10, 12)


def _turn(text: str, date: str, role: str = "user") -> MemoryDraft:
    return MemoryDraft(text, "turn", Provenance(session="s", turn_index=0, role=role, date=date))


def _record(text: str, date: str) -> MemoryRecord:
    return MemoryRecord(id=text, kind="turn", text=text, created=0.0, updated=0.0,
                        provenance=_turn(text, date).provenance)


def _store(tmp_path):
    store = MemoryStore.open(tmp_path, HashEmbedder())
    store.add_many([
        _turn("I bought new running shoes", "2024-05-01T10:00"),
        _turn("My sister visits in June", "2024-05-02T09:30"),
        _turn("You should read Dune by Frank Herbert", "2024-05-02T09:31", role="assistant"),
        _turn("The weather was awful", "2024-05-09T18:00"),
        _turn("I talked about running yesterday", "2023-05-02T08:00"),
    ])
    return store


def test_a_named_day_brings_its_turns(tmp_path):
    with _store(tmp_path) as store:
        hits = store.recall("what did we talk about on May 2nd?", k=3, today=TODAY, min_score=-1.0)
        assert {h.record.provenance.date for h in hits[:2]} == {"2024-05-02T09:30", "2024-05-02T09:31"}
        yesterday = store.recall("what did I say yesterday?", k=1, today=TODAY, min_score=-1.0)
        assert yesterday[0].record.text == "The weather was awful"


def test_dates_boost_but_never_filter(tmp_path):
    with _store(tmp_path) as store:
        hits = store.recall("running shoes on May 2nd", k=5, today=TODAY, min_score=-1.0)
        assert "I bought new running shoes" in [h.record.text for h in hits]


def _day_of_chat(tmp_path, embedder):
    """A week of small talk (Monday 6 to Sunday 12 May 2024), each day with its own words, with
    the product's embedder: the bonuses must outweigh what the words alone would rank."""
    store = MemoryStore.open(tmp_path, embedder)
    store.add_many([
        _turn("The new bakery near the station opened", "2024-05-06T09:00"),
        _turn("Work was busy with the quarterly report", "2024-05-07T18:00"),
        _turn("Yesterday I climbed Mount Tam with Priya", "2024-05-09T08:00"),  # the climb was on the 8th
        _turn("My cousin called about the wedding", "2024-05-08T20:00"),
        _turn("I watched a film about penguins", "2024-05-11T21:00"),
        _turn("The garden needs watering", "2024-05-03T10:00"),
        _turn("May 2024 has been rainy so far", "2024-05-03T10:05"),
        _turn("Had a long nap and read comics", "2024-05-13T07:30"),  # told on Monday, about the weekend
    ])
    return store


def test_a_time_a_memory_speaks_of_lifts_it_too(tmp_path, embedder):
    # Said on the 9th, but "yesterday" is the 8th: it ranks with what was said on the 8th.
    with _day_of_chat(tmp_path, embedder) as store:
        hits = store.recall("what did I do on May 8th?", k=2, today=TODAY, min_score=-1.0)
        assert {h.record.text for h in hits} == {"Yesterday I climbed Mount Tam with Priya",
                                                 "My cousin called about the wedding"}


def test_what_is_told_just_after_a_day_is_lifted_less_than_that_day(tmp_path, embedder):
    with _day_of_chat(tmp_path, embedder) as store:
        hits = store.recall("what did I do last weekend?", k=3, today=dt.datetime(2024, 5, 14, 12), min_score=-1.0)
        texts = [h.record.text for h in hits]
        assert texts[0] == "I watched a film about penguins"  # said on Saturday
        assert texts[1] == "Had a long nap and read comics"  # said on Monday, the day after


def test_date_words_are_left_out_of_the_text_search(tmp_path, embedder):
    # "May" and "2024" are in no memory's words; the topic ("bakery") is what the text search sees.
    with _day_of_chat(tmp_path, embedder) as store:
        hits = store.recall("the bakery on 7 May 2024", k=2, today=TODAY, min_score=-1.0)
        assert {h.record.text for h in hits} == {"Work was busy with the quarterly report",  # said that day
                                                 "The new bakery near the station opened"}  # about it
        rainy = [h for h in store.recall("the bakery on 7 May 2024", k=9, today=TODAY, min_score=-1.0)
                 if h.record.text.startswith("May 2024")]
        assert rainy[0].lexical == 0.0  # its "May 2024" is not what the question asks about


def test_bonuses_for_when_it_was_said_and_what_it_speaks_of():
    said = [_record("I watched a film", "2024-05-11T21:00"), _record("Had a nap yesterday", "2024-05-13T07:30"),
            _record("On Saturday I baked", "2024-05-23T09:00"), _record("no date", "")]
    spans = read_dates("last weekend", dt.datetime(2024, 5, 14, 12))
    rows = np.arange(len(said))
    assert time_boost.said_bonuses(time_boost.new_said_times().cover(said), rows, spans) == pytest.approx(
        [time_boost.SAID_BOOST, time_boost.TOLD_AFTER_BOOST, 0.0, 0.0])
    assert time_boost.mention_bonuses(time_boost.new_mention_times(), said, rows, spans) == pytest.approx(
        [0.0, time_boost.MENTION_BOOST, 0.0, 0.0])


def test_words_that_look_like_dates_change_nothing(tmp_path):
    with _store(tmp_path) as store:
        for query in ["may I ask about running", "we march on", "second running shoes"]:
            with_today = [h.record.id for h in store.recall(query, k=3, today=TODAY)]
            assert with_today == [h.record.id for h in store.recall(query, k=3)]


def test_stored_dates_read_and_shown():
    assert moment_of("1:56 pm on 8 May, 2023") == dt.datetime(2023, 5, 8, 13, 56)
    assert moment_of("2024-05-02T09:30") == dt.datetime(2024, 5, 2, 9, 30)
    assert moment_of("8 May 2023") == dt.datetime(2023, 5, 8)
    assert moment_of("someday") is None
    draft = _turn("x", "2024-05-02T09:31", role="assistant")
    shown = prompt_text(MemoryRecord(id="a", kind="turn", text="Read Dune.", created=0.0, updated=0.0,
                                     provenance=draft.provenance))
    assert shown == "- 2 May 2024, me: Read Dune."


def test_the_date_index_finds_what_a_pass_over_every_record_finds():
    rng = np.random.default_rng(3)

    def record(row: int) -> MemoryRecord:
        day = dt.datetime(2024, 1, 1) + dt.timedelta(hours=int(rng.integers(0, 24 * 400)))
        kind = rng.integers(0, 5)
        date = "" if kind == 0 else day.isoformat(timespec="minutes")
        until = (day + dt.timedelta(days=int(rng.integers(0, 9)))).isoformat(timespec="minutes") if kind == 1 else None
        return MemoryRecord(id=f"r{row}", kind="digest" if until else "turn", text="x", created=0.0, updated=0.0,
                            provenance=Provenance(session="s", date=date or None, until=until))

    records = [record(row) for row in range(300)]
    spans = np.asarray([time_boost.said_span(r) for r in records[:200]])
    said = time_boost.new_said_times(SaidColumns.of(spans[:, 0], spans[:, 1])).cover(records)
    for row in [3, 50, 199, 210, 299]:  # said again with another date: a saved row and rows added since
        records[row] = record(row)
        said.refresh(row, records[row])
    truth = np.asarray([time_boost.said_span(r) for r in records])
    for _ in range(200):
        low = time_boost.seconds(dt.datetime(2024, 1, 1)) + float(rng.integers(0, 400 * 86400))
        high = low + float(rng.choice([3600, 86400, 7 * 86400, 40 * 86400]))
        expected = np.flatnonzero(overlapping(truth[:, 0], truth[:, 1], low, high))
        assert said.within(low, high).tolist() == expected.tolist()
    allowed = rng.random(300) < 0.7
    known = truth[allowed, 0][~np.isnan(truth[allowed, 0])]
    assert said.days(allowed) == sorted({(dt.datetime(1970, 1, 1) + dt.timedelta(seconds=s)).date() for s in known})


def test_only_the_best_said_memories_join_and_recall_is_the_same(tmp_path, embedder, monkeypatch):
    """A day holding more memories than recall takes from it: the best of them (score and date
    bonuses) join, and the fused order's best are those of weighing every one of them."""
    from local_agent.memory.index import recall

    with _day_of_chat(tmp_path, embedder) as store:
        store.add_many([_turn(f"Small talk number {n} about nothing much", f"2024-05-08T{10 + n % 10}:00")
                        for n in range(20)])
        store.compact()
        state = store._files.state
        question = "what did I do on May 8th?"
        vector = embedder.embed([time_boost.topic_of(question, TODAY)])[0]

        def best(count: int) -> list[tuple[str, float]]:
            monkeypatch.setattr(recall, "SAID_CANDIDATES", count)
            hits = recall.hybrid_recall(state, question, vector, k=3, kinds=("turn",), min_score=-1.0, today=TODAY,
                                        ranker=None)
            return [(h.record.text, round(h.score, 6)) for h in hits]

        spans = time_boost.query_spans(question, TODAY, list)
        assert len(time_boost.said_rows(state.said_times(), spans, state.dense.allowed(("turn",)))) > 20
        monkeypatch.setattr(recall, "CANDIDATES", 3)  # (so that the day's memories come through its spans)
        every = best(100)
        assert best(8) == every  # (fewer: the best few small talks are near-copies, kept once)
