"""BM25 matches without scoring every row (lexical_search.py): the same best rows and scores as
scoring every row, on a store large enough (here: made so by lowering WHOLE_MAX_ROWS) to use it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from local_agent.memory.index import lexical, lexical_search
from local_agent.memory.index.lexical import LexicalIndex
from local_agent.memory.index.lexical_search import Columns, best_rows, column_maxima
from local_agent.memory.store.lexical_file import read_lexical, stamp_for, write_lexical
from local_agent.types import MemoryRecord

VOCABULARY = [f"w{n}" for n in range(300)]


def _corpus(rows: int, seed: int = 0) -> list[str]:
    """Zipf-distributed words (a few words in most rows, as "went" or a friend's name are), and
    every text said three times over, so many rows tie at the same score."""
    rng = np.random.default_rng(seed)
    texts = []
    for _ in range(rows // 3):
        words = rng.zipf(1.3, size=int(rng.integers(3, 15))) % len(VOCABULARY)
        texts.append(" ".join(VOCABULARY[w] for w in words))
    return [text for text in texts for _ in range(3)]


def _queries(seed: int = 1) -> list[str]:
    rng = np.random.default_rng(seed)
    queries = [" ".join(VOCABULARY[w] for w in rng.zipf(1.3, size=int(rng.integers(1, 12))) % len(VOCABULARY))
               for _ in range(60)]
    return [*queries, "w0 w0 w1", "w299", "nothing matches this", "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10"]


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch) -> LexicalIndex:
    monkeypatch.setattr(lexical_search, "WHOLE_MAX_ROWS", 0)  # every segment through MaxScore
    monkeypatch.setattr(lexical_search, "PROBE_POSTINGS", 64)  # a poor first floor: the loop must fix it
    built = LexicalIndex()
    texts = _corpus(3000)
    built.add(texts, [()] * len(texts))
    return built


def _allowed(rows: int, seed: int = 2) -> np.ndarray:
    allowed = np.random.default_rng(seed).random(rows) > 0.2
    return allowed


@pytest.mark.parametrize("count", [1, 10, 100])
def test_best_rows_are_those_of_scoring_every_row(index: LexicalIndex, count: int) -> None:
    allowed = _allowed(len(index))
    for query in _queries():
        whole = index.scores(query, allowed.astype(np.float32))
        match = index.match(query, allowed, count)
        expected = np.sort(whole[whole > 0])[::-1][:count]
        assert len(match.top) == len(expected), query
        np.testing.assert_allclose(np.sort(whole[match.top])[::-1], expected, rtol=1e-5, err_msg=query)
        assert allowed[match.top].all()


def test_any_rows_score_is_the_whole_scores(index: LexicalIndex) -> None:
    allowed = _allowed(len(index))
    scattered = np.random.default_rng(3).integers(0, len(index), size=500)  # (some twice)
    for rows in (scattered, np.arange(1000, 2000)):  # (a run: the column is searched in the rows)
        for query in _queries():
            whole = index.scores(query, allowed.astype(np.float32))
            np.testing.assert_allclose(index.match(query, allowed, 50).scores_of(rows), whole[rows], rtol=1e-5,
                                       atol=1e-6, err_msg=query)  # (0 for rows not allowed, as with weights)


def test_rows_added_after_the_main_segment_are_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lexical_search, "WHOLE_MAX_ROWS", 0)
    monkeypatch.setattr(lexical, "DELTA_MIN_ROWS", 50)
    index = LexicalIndex()
    texts = _corpus(600)
    index.add(texts, [()] * len(texts))
    index.add([f"w{n} w{n + 1} w{n + 2}" for n in range(9)] + ["w7 w8 rareword"], [()] * 10)  # the delta segment
    assert index._delta is not None and index._main is not None
    allowed = np.ones(len(index), dtype=bool)
    match = index.match("rareword w7", allowed, 5)
    assert len(index) - 1 in match.top
    whole = index.scores("rareword w7", allowed.astype(np.float32))
    np.testing.assert_allclose(match.scores_of(np.arange(len(index))), whole, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.sort(whole[match.top]), np.sort(whole)[-5:], rtol=1e-5)


def test_tied_rows_at_the_floor_are_all_kept() -> None:
    """Sums in another order differ in their last bits: rows tied with the count-th best must
    not be cut by a floor a rounding above their own score (found on a tiled million-row store)."""
    rows = 400
    data = np.full(rows * 3, 0.1, dtype=np.float32)
    data[rows : 2 * rows] = np.float32(3.3000002)
    data[2 * rows :] = np.float32(1e-7)  # a word in every row, as a store-wide suffix would be
    indices = np.tile(np.arange(rows, dtype=np.int32), 3)
    indptr = np.asarray([0, rows, 2 * rows, 3 * rows])
    columns = Columns.of(data, indices, indptr)
    found, scores = best_rows(columns, [0, 1, 2], np.ones(rows, dtype=bool), 100)
    assert len(found) == 100 and np.allclose(scores, scores[0])


def test_column_maxima_with_empty_columns() -> None:
    data = np.asarray([1.0, 3.0, 2.0, 5.0], dtype=np.float32)
    np.testing.assert_array_equal(column_maxima(data, np.asarray([0, 0, 3, 3, 4])), [0.0, 3.0, 0.0, 5.0])


def test_saved_index_keeps_the_column_bounds_and_reads_files_without_them(tmp_path: Path) -> None:
    index = LexicalIndex()
    texts = _corpus(300)
    index.add(texts, [()] * len(texts))
    records = [MemoryRecord(id=f"r{i}", kind="fact", text=text) for i, text in enumerate(texts)]
    stamp = stamp_for(1, records)
    path = tmp_path / "lexical-1.bin"
    write_lexical(path, index, stamp)
    loaded, why = read_lexical(path, stamp)
    assert loaded is not None, why
    arrays = index.to_arrays()
    segment = loaded._main or loaded._delta
    assert segment is not None and segment.upper is not None
    np.testing.assert_array_equal(segment.upper, column_maxima(arrays["data"], arrays["indptr"]))
    older = LexicalIndex.from_arrays({name: array for name, array in arrays.items() if name != "upper"})
    allowed = np.ones(len(texts), dtype=bool)
    for query in _queries()[:10]:
        np.testing.assert_array_equal(np.sort(older.match(query, allowed, 20).top),
                                      np.sort(loaded.match(query, allowed, 20).top))
