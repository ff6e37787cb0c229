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
import re

import numpy as np

from ...types import RecallHit
from . import time_boost
from .state import MemoryState

DENSE_WEIGHT = 0.3
LEXICAL_WEIGHT = 0.7
LEXICAL_HALF = 10.0  # the BM25 score that earns half of the lexical credit
CANDIDATES = 100  # rows taken from each retriever before fusing (at least k)
DUPLICATE_COSINE = 0.95  # a hit this close to a better hit is the same memory said again
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
_WORD = re.compile(r"[\w']+")


def lexical_query(query: str) -> str:
    """The query as BM25 sees it: question words dropped."""
    return " ".join(word for word in _WORD.findall(query) if word.lower() not in QUESTION_WORDS)


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
) -> list[RecallHit]:
    """The k best active records of `kinds` for the query, near-duplicates collapsed; with
    `today`, memories from the days the query names are lifted (time_boost.py), and the query's
    date words are left out of its text search (`query_vector` should be the embedding of
    `time_boost.topic_of(query, today)`)."""
    allowed = state.dense.allowed(kinds)
    if k <= 0 or not allowed.any():
        return []
    pool = max(k, CANDIDATES)
    dense_rows, _ = state.dense.search(query_vector, pool, allowed)
    lexical = state.lexical.scores(lexical_query(time_boost.topic_of(query, today)), allowed.astype(np.float32))
    rows = np.union1d(dense_rows, _top_rows(lexical, pool))
    memory_days = lambda: state.said_times().days(allowed)  # noqa: E731
    spans = time_boost.query_spans(query, today, memory_days) if today is not None else []
    bonus: np.ndarray | None = None
    if spans:
        candidates = np.flatnonzero(allowed)
        said = time_boost.said_bonuses(state.said_times(), candidates, spans)
        rows = np.union1d(rows, candidates[said > 0])
        bonus = said[np.searchsorted(candidates, rows)] + time_boost.mention_bonuses(state.records, rows, spans)
    vectors = state.dense.vectors(rows)
    cosines = vectors @ np.asarray(query_vector, dtype=np.float32)
    scores = fused_score(cosines, lexical[rows])
    if bonus is not None:
        scores = scores + bonus
    order = [i for i in np.argsort(-scores, kind="stable") if scores[i] >= min_score]
    kept = _distinct(order, vectors, k)
    return [
        RecallHit(record=state.records[rows[i]], score=float(scores[i]), dense=float(cosines[i]),
                  lexical=float(lexical[rows[i]]))
        for i in kept
    ]


def nearest(state: MemoryState, vector: np.ndarray, *, k: int, kinds: tuple[str, ...]) -> list[RecallHit]:
    """Pure cosine neighbours among active records (for duplicate detection)."""
    rows, cosines = state.dense.search(vector, k, state.dense.allowed(kinds))
    return [RecallHit(record=state.records[r], score=float(c), dense=float(c)) for r, c in zip(rows, cosines)]


def _top_rows(scores: np.ndarray, count: int) -> np.ndarray:
    matched = np.flatnonzero(scores > 0)
    if len(matched) > count:
        matched = matched[np.argpartition(-scores[matched], count - 1)[:count]]
    return matched


def _distinct(order: list[int], vectors: np.ndarray, k: int) -> list[int]:
    """The first k of `order` whose vector is not a near-duplicate of one kept before it."""
    kept: list[int] = []
    for i in order:
        if kept and float(np.max(vectors[kept] @ vectors[i])) >= DUPLICATE_COSINE:
            continue
        kept.append(i)
        if len(kept) == k:
            break
    return kept
