"""The program's answer to a question about the user's life, chosen among the candidates the
records hold (candidates.py) by a trained scorer, the model's own likelihood one of its features.

For each part of the question (told.py `parts`):
- the records: the user's own (told.py `said_by_user`), those holding most of the part's asked
  words first (told.py `score`), at most RECORDS;
- the candidates: every name, number, day and phrase of those records (candidates.py);
- the features of a candidate (`features`): the kind of value the part asks for and its question
  word against the candidate's kind; the share of asked words among the record's words around
  it; what stands right before it in the record ("is a", "called", "in"; the user's own name
  after "I'm"); how much of it the question already says; the record's told.py score, rank and
  recency;
  its length; and the model's mean log-probability of the candidate as the answer (Backend.score,
  from the logits: greedy, no repeat penalty), against the best of the part's candidates;
- a linear score over them, one softmax over the part's candidates (a conditional logit),
  trained by scripts/train_answer_chooser.py on LoCoMo dev questions (Maharana et al., ACL 2024;
  CC BY-NC 4.0) and the live set's dev split; the weights, the least probability and the margin
  ship as package data (`data/answer_chooser.json`).
The best candidate is the answer when its probability is at least `least` and beats the next by
`margin` (both chosen on the dev data for a low confidently-wrong rate); else the part is open.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from typing import Any

from ..backends.base import Backend
from ..errors import BackendError, ModelError
from ..types import Message
from .candidates import KINDS, AnswerCandidate, propose
from .evidence import Candidate, content_words
from .told import asked, parts, said_by_user, score, subjects_of

FORMAT_VERSION = 1
WEIGHTS_FILE = "answer_chooser.json"
RECORDS = 6  # records a part's candidates come from
MOST_CANDIDATES = 24  # candidates scored by the model, per part
WH_WORDS = ("what", "where", "who", "when", "how", "which")
_WH = re.compile(r"^\W*(what|whats|what's|where|when|who|whose|which|how)\b", re.IGNORECASE)
_DAY = re.compile(r"^On (\d{1,2} [A-Z][a-z]+ \d{4}) ")
# what a record says a candidate is ("Jonas is a nurse", "as a cardiologist"), what it calls it
# ("a cat called Pixel"), where ("in Ghent")
_AFTER = {"after_is": r"(?:is|am|are|'m|'s|was|as|became|become)\s+(?:a|an|the|my|our)?\s*",
          "after_called": r"(?:called|named|name's|name is)\s+(?:the\s+)?",
          "after_in": r"(?:in|at|to|from)\s+(?:the\s+)?"}


@dataclass(frozen=True)
class ChooserWeights:
    """Feature weights, the least probability and the margin the best candidate must have."""

    weights: Mapping[str, float]
    least: float
    margin: float
    meta: Mapping[str, Any]

    def score(self, named: Mapping[str, float]) -> float:
        return sum(self.weights.get(name, 0.0) * value for name, value in named.items())

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "least": self.least, "margin": self.margin, "meta": dict(self.meta),
                "weights": dict(sorted(self.weights.items()))}


def from_json(data: Mapping[str, Any]) -> ChooserWeights:
    if data.get("format") != FORMAT_VERSION:
        raise ModelError(f"{WEIGHTS_FILE}: format {data.get('format')!r}, expected {FORMAT_VERSION}")
    return ChooserWeights(dict(data["weights"]), float(data["least"]), float(data["margin"]),
                          dict(data.get("meta", {})))


@functools.cache
def shipped() -> ChooserWeights:
    """The weights in the package (read once)."""
    text = resources.files("local_agent").joinpath("data", WEIGHTS_FILE).read_text(encoding="utf-8")
    return from_json(json.loads(text))


@dataclass(frozen=True)
class Choice:
    """A part's best candidate (None: no candidate), its probability and the next one's."""

    part: str
    best: AnswerCandidate | None
    probability: float = 0.0
    runner_up: float = 0.0

    def wins(self, weights: ChooserWeights) -> bool:
        return self.best is not None and self.probability >= weights.least \
            and self.probability - self.runner_up >= weights.margin


@dataclass(frozen=True)
class Scored:
    """A part's candidates with their features (training reads these too)."""

    part: str
    candidates: list[AnswerCandidate]
    features: list[dict[str, float]]


def records_for(part: str, records: Sequence[Candidate], subjects: frozenset[str]) -> list[Candidate]:
    """The records a part's candidates come from, those holding most asked words first."""
    ranked = sorted(enumerate(records), key=lambda pair: (-score(part, pair[1], subjects), pair[0]))
    return [record for _, record in ranked[:RECORDS]]


def _day(record: Candidate) -> datetime | None:
    match = _DAY.match(record.note)
    try:
        return datetime.strptime(match[1], "%d %B %Y") if match else None
    except ValueError:
        return None


def _recency(records: Sequence[Candidate]) -> dict[int, float]:
    """1.0 for the newest dated record, 0.0 for the oldest, 0.5 for an undated one."""
    days = {id(record): _day(record) for record in records}
    dated = sorted({day for day in days.values() if day is not None})
    span = max(len(dated) - 1, 1)
    return {key: 0.5 if day is None else dated.index(day) / span for key, day in days.items()}


def _wh(part: str) -> str:
    opening = _WH.match(part)
    word = opening[1].lower().replace("'", "").removesuffix("s") if opening else ""
    return {"whose": "who", "what": "what"}.get(word, word) if word in (*WH_WORDS, "whose") else "other"


def _follows(before: str, candidate: AnswerCandidate) -> float:
    """1.0 when the record has `before` right before the candidate."""
    found = re.search(rf"\b{before}{re.escape(candidate.text)}\b", candidate.record.text, re.IGNORECASE)
    return float(found is not None)


def _base_features(part: str, candidate: AnswerCandidate, words: set[str], value: str) -> dict[str, float]:
    said = content_words(candidate.text)
    near = content_words(" ".join(candidate.near))
    question = content_words(part)
    wh = _wh(part)
    return {f"kind:{value or 'any'}>{candidate.kind}": 1.0, f"wh:{wh}>{candidate.kind}": 1.0,
            "near": len(words & near) / max(len(words), 1), "near_any": float(bool(words & near)),
            "near_question": len(question & near) / max(len(question), 1),
            "own_name": _follows(r"(?:i'm|i am|name's|name is|call me)\s+", candidate),
            **{name: _follows(before, candidate) for name, before in _AFTER.items()},
            "record_question": len(question & content_words(candidate.record.text)) / max(len(question), 1),
            "in_question": len(said & content_words(part)) / max(len(said), 1),
            "words": min(len(candidate.text.split()), 4) / 4}


def scored(part: str, records: Sequence[Candidate], subjects: frozenset[str]) -> Scored:
    """The part's candidates and their features, all but the model's."""
    chosen = records_for(part, said_by_user(records), subjects)
    recency = _recency(chosen)
    words, value = asked(part, subjects)
    candidates, features = [], []
    for rank, record in enumerate(chosen):
        told = score(part, record, subjects)
        for candidate in propose(record, part):
            candidates.append(candidate)
            features.append({**_base_features(part, candidate, words, value), "told": told,
                             "record_rank": rank / RECORDS, "newest": recency[id(record)]})
            if len(candidates) >= MOST_CANDIDATES:
                return Scored(part, candidates, features)
    return Scored(part, candidates, features)


def score_prompt(part: str, records: Sequence[Candidate]) -> list[Message]:
    """What the model reads before a candidate answer: the records and the question."""
    notes = "\n".join(f"- {record.text}" for record in records)
    return [Message("system", f"Answer in a few words from these notes.\n{notes}"), Message("user", part)]


def with_model(found: Scored, backend: Backend) -> Scored:
    """The features with the model's mean log-probability of each candidate as the answer."""
    if not found.candidates:
        return found
    records = list(dict.fromkeys(candidate.record for candidate in found.candidates))
    likely = backend.score(score_prompt(found.part, records), [c.text for c in found.candidates])
    top = max(likely)
    features = [{**named, "model": max(value - top, -5.0), "model_raw": max(value, -10.0) / 10}
                for named, value in zip(found.features, likely)]
    return Scored(found.part, found.candidates, features)


def softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(value - top) for value in scores]
    return [value / sum(exps) for value in exps]


def choose_part(found: Scored, weights: ChooserWeights) -> Choice:
    """The part's best candidate by the weights, with its probability and the next one's."""
    if not found.candidates:
        return Choice(found.part, None)
    chances = softmax([weights.score(named) for named in found.features])
    order = sorted(range(len(chances)), key=lambda at: -chances[at])
    second = chances[order[1]] if len(order) > 1 else 0.0
    return Choice(found.part, found.candidates[order[0]], chances[order[0]], second)


def choose(question: str, records: Sequence[Candidate], backend: Backend,
           weights: ChooserWeights | None = None) -> list[Choice]:
    """Each part's choice; without the model's scores (a backend without logits) no part wins."""
    weights = weights or shipped()
    subjects = subjects_of(records, question)
    choices = []
    for part in parts(question):
        try:
            found = with_model(scored(part, records, subjects), backend)
        except BackendError:
            choices.append(Choice(part, None))
            continue
        choices.append(choose_part(found, weights))
    return choices


def feature_names() -> list[str]:
    """Every feature a candidate can have (the training script's columns)."""
    kinds = [f"kind:{value}>{kind}" for value in ("any", "name", "number", "day") for kind in KINDS]
    whs = [f"wh:{wh}>{kind}" for wh in (*WH_WORDS, "other") for kind in KINDS]
    return [*kinds, *whs, "near", "near_any", "near_question", "own_name", *_AFTER, "record_question", "in_question",
            "words", "told", "record_rank", "newest", "model", "model_raw"]


def composed(choices: Sequence[Choice]) -> str:
    """The program's answer from each part's winning candidate, with the records it comes from
    said back ("9. On 10 November 2026 you said: "yaw turned 9 today"")."""
    values = " and ".join(choice.best.text for choice in choices if choice.best is not None)
    records = dict.fromkeys(choice.best.record.told for choice in choices if choice.best is not None)
    return f"{values[:1].upper()}{values[1:]}. {' '.join(records)}"


def winning(question: str, records: Sequence[Candidate], backend: Backend) -> list[Choice]:
    """Each part's choice when every part's best candidate wins by the shipped margin, else none."""
    weights = shipped()
    if weights.least > 1.0 - 1e-9:  # no margin on the dev data kept the answers right enough: nothing wins
        return []
    choices = choose(question, records, backend, weights)
    return choices if choices and all(choice.wins(weights) for choice in choices) else []
