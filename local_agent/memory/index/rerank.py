"""Recall's second stage: the fused candidates reordered by what the conversation says of them.

The fused score (recall.py) judges each memory alone. A conversation tells more:
- a message that only asks ("What gave you the idea?") is seldom what a later question wants,
  while the reply after it is; a message next to one that matches is often the one meant
  (`before`, `after`: the fused score of the turn said just before and just after, in the
  same session);
- a session whose other messages match the question is about its subject (`session`);
- a question that names who said a message ("What does Melanie do to destress?"), or asks
  about "I"/"my" (the user's own messages) or "you" (the assistant's), points at that
  speaker's turns (`speaker`);
- a few words ("Thanks!", "Wow, cool!") seldom hold what is asked about (`length`);
- the reply to a question that matches is often the answer (`answers`), and a question whose
  reply matches is seldom it (`answered`).

A logistic regression over these features and the first stage's own scores (`FEATURES`)
gives each candidate a ranking score; the weights are trained by scripts/train_recall_ranker.py
on the tune split of the LoCoMo dev conversations only, and checked on the other split
(docs/recall.md). Nothing in the features names a dataset's speakers or formats: a speaker is
`speaker_of(record)`, a session is the record's provenance session.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import ModelError
from ...reading.words import WORD
from .saved import label_hash
from .traits import ASKS, ASSISTANT, ONLY_ASKS, TURN, USER, TraitColumns

FORMAT_VERSION = 1
WEIGHTS_FILE = "recall_ranker.json"
FEATURES = ("fused", "dense", "lexical", "dated", "before", "after", "asks", "only_asks", "length",
            "speaker", "session", "rank", "answers", "answered")
USER_WORDS = frozenset("i i'm i've i'd i'll me my mine myself".split())
ASSISTANT_WORDS = frozenset("you you're you've you'd you'll your yours yourself".split())


@dataclass(frozen=True)
class RankerModel:
    """Logistic regression over standardized features: score = ((x - mean) / scale) . weights + bias."""

    names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    meta: dict[str, Any] = field(default_factory=dict)

    def scores(self, features: np.ndarray) -> np.ndarray:
        return ((features - self.mean) / self.scale) @ self.weights + self.bias

    def save(self, path: Path) -> None:
        payload = {"format_version": FORMAT_VERSION, "features": list(self.names),
                   "mean": _rounded(self.mean), "scale": _rounded(self.scale), "weights": _rounded(self.weights),
                   "bias": round(float(self.bias), 6), "meta": self.meta}
        path.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path | None = None) -> RankerModel:
        """Weights saved by `save`; the packaged ones by default. ModelError when they do not fit
        this code's features."""
        text = (path.read_text(encoding="utf-8") if path is not None
                else resources.files("local_agent").joinpath("data", WEIGHTS_FILE).read_text(encoding="utf-8"))
        data = json.loads(text)
        if data.get("format_version") != FORMAT_VERSION or tuple(data.get("features", ())) != FEATURES:
            raise ModelError("the recall ranker's weights do not fit this version's features: "
                             "retrain with scripts/train_recall_ranker.py")
        mean, scale, weights = (np.asarray(data[name], dtype=np.float32) for name in ("mean", "scale", "weights"))
        return cls(FEATURES, mean, scale, weights, float(data["bias"]), dict(data.get("meta") or {}))


@functools.lru_cache(maxsize=1)
def packaged_ranker() -> RankerModel:
    return RankerModel.load()


@dataclass(frozen=True)
class Candidates:
    """The first stage's view of its candidate rows, all arrays aligned with `rows`."""

    rows: np.ndarray
    fused: np.ndarray  # the fused score with any date bonus
    dense: np.ndarray
    lexical: np.ndarray  # saturated BM25, lexical / (lexical + half)
    dated: np.ndarray  # the date bonus alone
    before: np.ndarray  # fused score of the turn said just before in the session (0: none)
    after: np.ndarray  # ... and just after
    traits: TraitColumns  # what the candidates' words and provenance say (traits.py)
    before_asks: np.ndarray  # bool: the turn said just before asks something


def features(candidates: Candidates, query: str) -> np.ndarray:
    """The FEATURES of each candidate, one row each (shape (len(rows), len(FEATURES)))."""
    rows, traits = candidates.rows, candidates.traits
    order = np.argsort(-candidates.fused, kind="stable")
    rank = np.empty(len(rows), dtype=np.float32)
    rank[order] = 1.0 / (1.0 + np.arange(len(rows)))
    asking = traits.has(ASKS).astype(np.float32)
    columns = [
        candidates.fused, candidates.dense, candidates.lexical, candidates.dated, candidates.before, candidates.after,
        asking,
        traits.has(ONLY_ASKS).astype(np.float32),
        np.log1p(traits.words.astype(np.float32)),
        speaker_named(traits, query_words(query)).astype(np.float32),
        session_best(traits.session, candidates.fused),
        rank,
        candidates.before * candidates.before_asks,  # the reply to a question that matches
        candidates.after * asking,  # a question whose reply matches
    ]
    return np.stack(columns, axis=1).astype(np.float32)


def query_words(query: str) -> frozenset[str]:
    return frozenset(word.lower() for word in WORD.findall(query))


def speaker_named(traits: TraitColumns, asked: frozenset[str]) -> np.ndarray:
    """For each memory, whether the question points at whoever said it: by (first) name, or as
    "I"/"my" for the user's own messages and "you" for the assistant's (a named speaker is only
    pointed at by name)."""
    names = np.fromiter((label_hash(word) for word in asked), dtype=np.uint64, count=len(asked))
    named = np.isin(traits.speaker, names) & (traits.speaker != 0)
    if not asked.isdisjoint(USER_WORDS):
        named |= traits.has(USER)
    if not asked.isdisjoint(ASSISTANT_WORDS):
        named |= traits.has(ASSISTANT)
    return named & traits.has(TURN)


def session_best(sessions: np.ndarray, fused: np.ndarray) -> np.ndarray:
    """For each candidate, the best fused score among the other candidates of its session
    (`sessions`: a hash each, 0 for none)."""
    best: dict[int, list[float]] = {}
    hashes = sessions.tolist()
    for session, score in zip(hashes, fused.tolist()):
        if session:
            top = best.setdefault(session, [0.0, 0.0])
            if score > top[0]:
                top[:] = [score, top[0]]
            elif score > top[1]:
                top[1] = score
    values = [0.0 if not s else (best[s][1] if score >= best[s][0] else best[s][0])
              for s, score in zip(hashes, fused.tolist())]
    return np.asarray(values, dtype=np.float32)


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(value), 6) for value in values]
