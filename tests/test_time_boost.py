"""Time-aware recall: the days a question names lift their memories, never filter the rest."""

import datetime as dt

from local_agent.memory.index.render import prompt_text
from local_agent.memory.index.time_boost import moment_of
from local_agent.memory.store import MemoryStore
from local_agent.types import MemoryDraft, MemoryRecord, Provenance
from tests.reliability import HashEmbedder

TODAY = dt.datetime(2024, 5, 10, 12)


def _turn(text: str, date: str, role: str = "user") -> MemoryDraft:
    return MemoryDraft(text, "turn", Provenance(session="s", turn_index=0, role=role, date=date))


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
    assert shown == "On 2024-05-02 09:31 I told you: Read Dune."
