"""Hybrid recall: dense cosine (FAISS) and BM25 (bm25s), fused into one score.

Score convention (everywhere in the store): higher means closer.
- `RecallHit.dense` is the cosine similarity of query and record, in [-1, 1].
- `RecallHit.lexical` is the raw BM25 score, 0 when no query word matches.
- `RecallHit.score` = DENSE_WEIGHT * dense + LEXICAL_WEIGHT * lexical / (lexical + LEXICAL_HALF),
  in [-0.3, 1). The BM25 part saturates, so the score is absolute (comparable across queries
  and usable with a fixed threshold), unlike rank fusion or per-query min-max scaling.

The fusion and its weights were chosen on LoCoMo dev against rank fusion and either retriever
alone; the comparison, and the product's recall, are in the README.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np

from ...reading.dates import DateSpan
from ...reading.words import WORD
from ...types import MemoryRecord, RecallHit
from . import time_boost
from .lexical_search import LexicalMatch
from .rerank import FEATURES, Candidates, RankerModel, features, packaged_ranker
from .state import MemoryState
from .traits import ASKS

DENSE_WEIGHT = 0.3
LEXICAL_WEIGHT = 0.7
LEXICAL_HALF = 10.0  # the BM25 score that earns half of the lexical credit
CANDIDATES = 100  # rows taken from each retriever before fusing (at least k)
SAID_CANDIDATES = 100  # rows taken from those said within a dated question's spans (at least k)
RERANK_POOL = 100  # the best fused candidates the ranker reorders
DUPLICATE_COSINE = 0.95  # a hit this close to a better hit is the same memory said again
_DISTINCT_BLOCK = 32
# Below this, nothing in the query relates to the memory. Without a shared word a record needs
# cosine >= 0.23: MiniLM puts paraphrases ("what's my job?" / "User works as a nurse") at
# 0.25-0.4 and small talk against unrelated memories ("hello", "thanks!") at 0.1-0.2.
DEFAULT_MIN_SCORE = 0.07

# Words that make a sentence a question but say nothing about what it asks for. BM25's
# stopword list keeps them, and they match any record that happens to contain them.
QUESTION_WORDS = frozenset(
    "what when where who whom whose which why how did does do is are was were has have had "
    "would could should can".split()
)


def lexical_query(query: str) -> str:
    """The query as BM25 sees it: question words dropped."""
    return " ".join(word for word in WORD.findall(query) if word.lower() not in QUESTION_WORDS)


def fused_score(dense: np.ndarray, lexical: np.ndarray) -> np.ndarray:
    return DENSE_WEIGHT * dense + LEXICAL_WEIGHT * lexical / (lexical + LEXICAL_HALF)


def hybrid_recall(
    state: MemoryState,
    query: str,
    query_vector: np.ndarray,
    *,
    k: int,
    kinds: tuple[str, ...],
    min_score: float,
    today: dt.datetime | None = None,
    ranker: RankerModel | Literal["packaged"] | None = "packaged",
) -> list[RecallHit]:
    """The k best active records of `kinds` for the query, near-duplicates collapsed; with
    `today`, memories from the days the query names are lifted (time_boost.py), and the query's
    date words are left out of its text search (`query_vector` should be the embedding of
    `time_boost.topic_of(query, today)`). The best RERANK_POOL candidates are then reordered by
    `ranker` (rerank.py; by default the packaged one, None: fused order); `score` stays the fused
    score."""
    records = ReadOnce(state.records)
    first = _first_stage(state, records, query, query_vector, k=k, kinds=kinds, min_score=min_score, today=today)
    if first is None:
        return []
    order = first.order
    if ranker == "packaged":
        ranker = packaged_ranker()
    if ranker is not None and len(order) > 1:
        head = np.asarray(order[:RERANK_POOL])
        ranked = ranker.scores(features(first.candidates(state, records, head), query))
        order = [int(head[i]) for i in np.argsort(-ranked, kind="stable")] + order[RERANK_POOL:]
    kept = _distinct(order, first.vectors, k)
    return [
        RecallHit(record=records[first.rows[i]], score=float(first.scores[i]), dense=float(first.cosines[i]),
                  lexical=float(first.lexical_at[i]))
        for i in kept
    ]


def ranking_features(state: MemoryState, query: str, query_vector: np.ndarray, *, kinds: tuple[str, ...],
                     min_score: float, today: dt.datetime | None = None) -> tuple[list[MemoryRecord], np.ndarray]:
    """The candidates the ranker would reorder and their features (to train it: see
    scripts/train_recall_ranker.py)."""
    records = ReadOnce(state.records)
    first = _first_stage(state, records, query, query_vector, k=RERANK_POOL, kinds=kinds, min_score=min_score,
                         today=today)
    if first is None:
        return [], np.zeros((0, len(FEATURES)), dtype=np.float32)
    head = np.asarray(first.order[:RERANK_POOL], dtype=np.int64)
    return [records[first.rows[i]] for i in head], features(first.candidates(state, records, head), query)


class ReadOnce(Sequence[MemoryRecord]):
    """A store's records as one recall sees them: each read from disk at most once (the date
    bonuses, the ranker and the hits ask for the same candidates)."""

    def __init__(self, records: Sequence[MemoryRecord]) -> None:
        self._records = records
        self._read: dict[int, MemoryRecord] = {}

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, row: int) -> MemoryRecord: ...

    @overload
    def __getitem__(self, row: slice) -> Sequence[MemoryRecord]: ...

    def __getitem__(self, row: int | slice) -> MemoryRecord | Sequence[MemoryRecord]:
        if isinstance(row, slice):
            return self._records[row]
        row = int(row)
        found = self._read.get(row)
        if found is None:
            found = self._read[row] = self._records[row]
        return found


@dataclass(frozen=True)
class _FirstStage:
    """Candidate rows with their scores (arrays aligned with `rows`; `lexical` gives any row's
    BM25 score), and `order`: positions in `rows` above the threshold, best fused first."""

    rows: np.ndarray
    vectors: np.ndarray
    cosines: np.ndarray
    lexical: LexicalMatch
    lexical_at: np.ndarray
    bonus: np.ndarray
    scores: np.ndarray
    order: list[int]
    query_vector: np.ndarray

    def candidates(self, state: MemoryState, records: Sequence[MemoryRecord], head: np.ndarray) -> Candidates:
        """The ranker's view of the candidates at positions `head`."""
        chosen = self.rows[head]
        before = state.before[chosen]
        before_asks = np.zeros(len(chosen), dtype=np.float32)
        present = np.flatnonzero(before >= 0)
        before_asks[present] = state.traits.of(records, before[present]).has(ASKS)
        return Candidates(
            rows=chosen, fused=self.scores[head], dense=self.cosines[head], lexical=_saturated(self.lexical_at[head]),
            dated=self.bonus[head],
            before=_neighbour_scores(state, before, self.query_vector, self.lexical),
            after=_neighbour_scores(state, state.after[chosen], self.query_vector, self.lexical),
            traits=state.traits.of(records, chosen), before_asks=before_asks,
        )


def _first_stage(state: MemoryState, records: Sequence[MemoryRecord], query: str, query_vector: np.ndarray, *,
                 k: int, kinds: tuple[str, ...], min_score: float, today: dt.datetime | None) -> _FirstStage | None:
    allowed = state.dense.allowed(kinds)
    if k <= 0 or not allowed.any():
        return None
    pool = max(k, CANDIDATES)
    dense_rows, _ = state.dense.search(query_vector, pool, allowed)
    lexical = state.lexical.match(lexical_query(time_boost.topic_of(query, today)), allowed, pool)
    rows = np.union1d(dense_rows, lexical.top)
    memory_days = lambda: state.said_times().days(allowed)  # noqa: E731
    spans = time_boost.query_spans(query, today, memory_days) if today is not None else []
    vector = np.asarray(query_vector, dtype=np.float32)
    said_rows, said_vectors = _said_candidates(state, records, spans, allowed, vector, lexical,
                                               max(k, SAID_CANDIDATES)) if spans else _no_rows(state)
    rows = np.union1d(rows, said_rows)
    vectors = _vectors(state, rows, said_rows, said_vectors)
    cosines = vectors @ vector
    lexical_at = lexical.scores_of(rows)
    fused = fused_score(cosines, lexical_at)
    bonus = _bonuses(state, records, rows, spans, fused, reach=max(k, RERANK_POOL))
    scores = fused + bonus
    order = [int(i) for i in np.argsort(-scores, kind="stable") if scores[i] >= min_score]
    return _FirstStage(rows, vectors, cosines, lexical, lexical_at, bonus, scores, order, vector)


def _said_candidates(state: MemoryState, records: Sequence[MemoryRecord], spans: list[DateSpan],
                     allowed: np.ndarray, vector: np.ndarray, lexical: LexicalMatch,
                     count: int) -> tuple[np.ndarray, np.ndarray]:
    """The `count` memories said within the query's spans (or just after) with the best score,
    date bonuses included, and their vectors: a month of a large store holds thousands of
    memories, and only so many join the candidates (their vectors are read in runs: they are
    neighbouring rows; what their words name only as the columns file keeps it: the journal's
    newest memories are weighed without it here, and with it once among the candidates)."""
    said = state.said_times()
    rows = time_boost.said_rows(said, spans, allowed)
    vectors = state.dense.vectors(rows)
    if len(rows) <= count:
        return rows, vectors
    scores = fused_score(vectors @ vector, lexical.scores_of(rows))
    scores += time_boost.said_bonuses(said, rows, spans)
    scores += time_boost.mention_bonuses(state.mentions, records, rows, spans, read=False)
    best = np.sort(np.argpartition(-scores, count - 1)[:count])
    return rows[best], vectors[best]


def _no_rows(state: MemoryState) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(0, dtype=np.int64), np.zeros((0, state.dense.dimension), dtype=np.float32)


def _vectors(state: MemoryState, rows: np.ndarray, known_rows: np.ndarray, known: np.ndarray) -> np.ndarray:
    """The vectors of `rows` (ascending): those of `known_rows` (ascending) as given, the others
    read from disk."""
    if not len(known_rows):
        return state.dense.vectors(rows)
    vectors = np.empty((len(rows), state.dense.dimension), dtype=np.float32)
    at = np.searchsorted(rows, known_rows)
    vectors[at] = known
    missing = np.ones(len(rows), dtype=bool)
    missing[at] = False
    vectors[missing] = state.dense.vectors(rows[missing])
    return vectors


def _bonuses(state: MemoryState, records: Sequence[MemoryRecord], rows: np.ndarray, spans: list[DateSpan],
             fused: np.ndarray, reach: int) -> np.ndarray:
    """The date bonus of each of `rows` (time_boost.py); zeros without dates in the query. A
    memory's own words are read for the dates they name only when that bonus could bring it
    among the best `reach` (a month of a large store holds thousands of memories)."""
    if not spans:
        return np.zeros(len(rows), dtype=np.float32)
    said = time_boost.said_bonuses(state.said_times(), rows, spans)
    could = _within_reach(fused + said, time_boost.MENTION_BOOST, reach)
    mention = np.zeros(len(rows), dtype=np.float32)
    mention[could] = time_boost.mention_bonuses(state.mentions, records, rows[could], spans)
    return said + mention


def _within_reach(scores: np.ndarray, boost: float, reach: int) -> np.ndarray:
    """Positions whose score, raised by `boost`, would be among the best `reach` scores."""
    if len(scores) <= reach:
        return np.arange(len(scores))
    floor = float(np.partition(scores, len(scores) - reach)[len(scores) - reach])
    return np.flatnonzero(scores + boost >= floor)


def _neighbour_scores(state: MemoryState, neighbours: np.ndarray, query_vector: np.ndarray,
                      lexical: LexicalMatch) -> np.ndarray:
    """The fused score of each neighbouring row without date bonuses (0 where there is none,
    -1): a neighbour tells what a turn is about; when it was said is the turn's own (a turn
    said the day before a named day is not lifted by the next day's turn)."""
    scores = np.zeros(len(neighbours), dtype=np.float32)
    present = np.flatnonzero(neighbours >= 0)
    if len(present):
        rows = neighbours[present]
        cosines = state.dense.vectors(rows) @ np.asarray(query_vector, dtype=np.float32)
        scores[present] = fused_score(cosines, lexical.scores_of(rows))
    return scores


def _saturated(lexical: np.ndarray) -> np.ndarray:
    return lexical / (lexical + LEXICAL_HALF)


def nearest(state: MemoryState, vector: np.ndarray, *, k: int, kinds: tuple[str, ...]) -> list[RecallHit]:
    """Pure cosine neighbours among active records (for duplicate detection)."""
    rows, cosines = state.dense.search(vector, k, state.dense.allowed(kinds))
    return [RecallHit(record=state.records[r], score=float(c), dense=float(c)) for r, c in zip(rows, cosines)]


def _distinct(order: list[int], vectors: np.ndarray, k: int) -> list[int]:
    """The first k of `order` whose vector is not a near-duplicate of one kept before it. (In
    blocks: a memory said many times puts its copies next to each other in the order, and one
    product per block weighs them all.)"""
    kept: list[int] = []
    for start in range(0, len(order), _DISTINCT_BLOCK):
        block = order[start : start + _DISTINCT_BLOCK]
        similar = vectors[block] @ vectors[block].T  # within the block
        to_kept = vectors[block] @ vectors[kept].T if kept else np.zeros((len(block), 0), dtype=np.float32)
        chosen: list[int] = []  # positions in the block kept so far
        for position, i in enumerate(block):
            if (to_kept.shape[1] and to_kept[position].max() >= DUPLICATE_COSINE) or \
                    (chosen and similar[position, chosen].max() >= DUPLICATE_COSINE):
                continue
            chosen.append(position)
            kept.append(i)
            if len(kept) == k:
                return kept
    return kept
