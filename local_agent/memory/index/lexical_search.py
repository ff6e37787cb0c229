"""The best BM25 matches of a query without scoring every row that shares a word with it.

A BM25 index (bm25s' eager index) keeps one column per word: the rows that hold it, ascending,
and the word's score in each. Summing the columns of a query's words costs their length, and at
a million memories the common words of a question ("went", "really", a friend's name) hold
hundreds of thousands of rows: 10-20 ms of a recall went there. Recall needs only the best
`count` rows and the exact score of a few hundred others (its dense candidates and their
neighbours), so large segments are searched with MaxScore (Turtle and Flood, 1995), which is
exact:

1. Each word's upper bound is its best score in any row (kept per column).
2. A first guess at the count-th best score, `floor`, is the count-th best exact score of a few
   likely rows: those with the most of the query's rarest words.
3. A row holding none of the words whose bounds are needed to reach `floor` (the "essential"
   words: the rest are the common, low-scoring ones, whose bounds sum below it) cannot be among
   the best: only the essential words' columns are read, and the other words' scores are looked
   up for the rows that could still reach `floor` (a binary search in each column).

Segments up to WHOLE_MAX_ROWS rows (the delta segment that holds the newest rows among them)
are scored whole, as before: for them it is the cheaper way. Measured on the tiled stores of
scripts/bench_stores.py (200 queries, CPU time per query, p50): at 100k memories whole scoring
0.40 ms, MaxScore 2.3 ms (its fixed probe); at 1M, 9 ms whole (the scores, their mask and the
best rows among the matches) against 2.6 ms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

WHOLE_MAX_ROWS = 250_000  # segments up to this size are scored whole (see above)
PROBE_POSTINGS = 32_768  # entries of the rarest words' columns read to guess the floor
PROBE_ROWS = 4  # rows per wanted row whose exact scores make that guess
SLACK = 1e-5  # relative: floors are lowered by this, so that rows tied at the floor all stay


@dataclass(frozen=True)
class Columns:
    """One segment's score matrix in compressed columns: word w's rows are
    `indices[indptr[w]:indptr[w + 1]]` (ascending) with their scores in `data`; `upper[w]` is
    the best of them (0 for an empty column)."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    upper: np.ndarray

    @classmethod
    def of(cls, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
           upper: np.ndarray | None = None) -> Columns:
        indptr = np.asarray(indptr, dtype=np.int64)
        return cls(data, indices, indptr, column_maxima(data, indptr) if upper is None else np.asarray(upper))

    def column(self, word: int) -> tuple[np.ndarray, np.ndarray]:
        start, stop = self.indptr[word], self.indptr[word + 1]
        return self.indices[start:stop], self.data[start:stop]

    def length(self, word: int) -> int:
        return int(self.indptr[word + 1] - self.indptr[word])

    def lookup(self, words: Sequence[int], rows: np.ndarray) -> np.ndarray:
        """The summed scores of `words` in each of `rows` (0 where a row lacks a word)."""
        scores = np.zeros(len(rows), dtype=np.float32)
        if not len(rows):
            return scores
        order = np.argsort(rows, kind="stable")  # sorted needles: each search starts where the last ended
        needles = np.asarray(rows)[order].astype(self.indices.dtype)  # (else numpy widens the column)
        distinct = bool(np.all(needles[1:] > needles[:-1]))
        for word in words:
            indices, data = self.column(word)
            low = int(np.searchsorted(indices, needles[0], side="left"))
            high = int(np.searchsorted(indices, needles[-1], side="right"))
            indices, data = indices[low:high], data[low:high]  # the column's entries within the rows' range
            if not len(indices):
                continue
            if distinct and len(indices) < len(needles):  # (thousands of neighbouring rows: a month's)
                at = np.minimum(np.searchsorted(needles, indices), len(needles) - 1)
                holds = np.flatnonzero(needles[at] == indices)
                scores[order[at[holds]]] += data[holds]
                continue
            at = np.minimum(np.searchsorted(indices, needles), len(indices) - 1)
            holds = np.flatnonzero(indices[at] == needles)
            scores[order[holds]] += data[at[holds]]
        return scores


def column_maxima(data: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """The best score of each column (0 for an empty one)."""
    upper = np.zeros(len(indptr) - 1, dtype=np.float32)
    filled = np.flatnonzero(np.diff(indptr) > 0)
    if len(filled):
        upper[filled] = np.maximum.reduceat(np.asarray(data, dtype=np.float32), indptr[filled])
    return upper


def best_rows(columns: Columns, words: Sequence[int], allowed: np.ndarray,
              count: int) -> tuple[np.ndarray, np.ndarray]:
    """The (at most) `count` allowed rows with the highest BM25 score for `words` (column
    numbers; a word given twice counts twice, as in bm25s), and their scores: exact, as summing
    every column would give them."""
    words = sorted(words, key=lambda word: float(columns.upper[word]))  # lowest bound first
    if not words or count <= 0:
        return _none()
    bounds = np.cumsum([float(columns.upper[word]) for word in words])
    floor = _floor_guess(columns, words, allowed, count)
    floor -= SLACK * max(1.0, floor)  # float32 sums in another order differ in the last bits
    common = int(np.searchsorted(bounds, floor, side="left"))  # their bounds sum below the floor
    rows, partial = summed_columns(columns, words[common:], allowed)
    if len(partial) >= count:  # every score is at least its partial sum: a floor too
        best = float(np.partition(partial, len(partial) - count)[len(partial) - count])
        floor = max(floor, best - SLACK * max(1.0, best))
    for place in range(common - 1, -1, -1):  # the common words, the highest bound first
        rows, partial = _could_reach(rows, partial, float(bounds[place]), floor)
        if len(rows) <= PROBE_ROWS * count:  # few left: the remaining words at once
            partial = partial + columns.lookup(words[: place + 1], rows)
            break
        partial = partial + columns.lookup([words[place]], rows)
    return _best(rows, partial, count)


def summed_columns(columns: Columns, words: Sequence[int], allowed: np.ndarray,
                   budget: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The allowed rows of `words`' columns and the sum of those columns' scores in each; with
    `budget`, only about that many entries are read (rarest words first, as given last)."""
    parts_rows, parts_data = [], []
    left = budget
    for word in reversed(words):
        indices, data = columns.column(word)
        if left is not None:
            indices, data = indices[:left], data[:left]
            left -= len(indices)
        parts_rows.append(indices)
        parts_data.append(data)
        if left is not None and left <= 0:
            break
    rows = np.concatenate(parts_rows) if parts_rows else np.zeros(0, dtype=np.int64)
    data = np.concatenate(parts_data) if parts_data else np.zeros(0, dtype=np.float32)
    keep = allowed[rows]
    return _sum_by_row(rows[keep], data[keep], len(allowed))


def _sum_by_row(rows: np.ndarray, data: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows and the sum of `data` for each (a sort for few entries, a count for many)."""
    if not len(rows):
        return _none()
    if len(rows) * 16 > size:
        sums = np.bincount(rows, weights=data, minlength=size)
        found = np.flatnonzero(sums)
        return found, sums[found].astype(np.float32)
    order = np.argsort(rows, kind="stable")
    rows, data = rows[order], np.asarray(data, dtype=np.float32)[order]
    starts = np.flatnonzero(np.concatenate([[True], rows[1:] != rows[:-1]]))
    return rows[starts].astype(np.int64), np.add.reduceat(data, starts)


def _floor_guess(columns: Columns, words: list[int], allowed: np.ndarray, count: int) -> float:
    """A score the count-th best row reaches at least: the count-th best exact score among the
    rows with most of the rarest words (0 when they are fewer than `count`)."""
    rows, partial = summed_columns(columns, words, allowed, budget=PROBE_POSTINGS)
    if len(rows) < count:
        return 0.0
    probe = min(len(rows), PROBE_ROWS * count)
    rows = rows[np.argpartition(-partial, probe - 1)[:probe]]
    exact = columns.lookup(words, rows)
    return float(np.partition(exact, len(exact) - count)[len(exact) - count])


def _could_reach(rows: np.ndarray, partial: np.ndarray, rest: float,
                 floor: float) -> tuple[np.ndarray, np.ndarray]:
    """The rows whose score could still reach `floor` with at most `rest` more."""
    keep = partial + rest >= floor
    return rows[keep], partial[keep]


def _best(rows: np.ndarray, scores: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    positive = scores > 0
    rows, scores = rows[positive], scores[positive]
    if len(rows) > count:
        chosen = np.argpartition(-scores, count - 1)[:count]
        rows, scores = rows[chosen], scores[chosen]
    return rows.astype(np.int64), scores.astype(np.float32)


def _none() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)


class LexicalMatch:
    """A query's BM25 matches over a store's rows: `top` (the best rows, any order) and the exact
    score of any row (`scores_of`). Built by LexicalIndex.match from one part per segment: a
    segment's rows [start, stop) and a function giving the scores of some of them."""

    def __init__(self, top: np.ndarray, parts: list[tuple[int, int, Callable[[np.ndarray], np.ndarray]]]) -> None:
        self.top = top
        self._parts = parts

    def scores_of(self, rows: np.ndarray) -> np.ndarray:
        """The BM25 score of each of `rows` (0 where nothing matches or the row was not allowed)."""
        rows = np.asarray(rows, dtype=np.int64)
        scores = np.zeros(len(rows), dtype=np.float32)
        for start, stop, scores_in in self._parts:
            inside = np.flatnonzero((rows >= start) & (rows < stop))
            if len(inside):
                scores[inside] = scores_in(rows[inside] - start)
        return scores
