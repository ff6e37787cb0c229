"""The distiller's first stage: could this message hold a durable fact about the user?

Two cheap steps. First the message's structure: without a first-person statement (only
questions, requests to the assistant, or talk about other people) it holds nothing to save.
Then a logistic-regression classifier over the MiniLM embeddings of those statements tells
a durable self-disclosure ("I work night shifts") from a passing remark ("I'm so glad you liked
it"). The classifier's weights are trained by scripts/train_gate.py on the hand-made
local_agent/data/distill_train.jsonl. Without an embedder the gate falls back to a short list
of passing-remark openers.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ...errors import ModelError
from ...reading.clauses import Clause, split_clauses

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
WEIGHTS_FILE = "distill_gate.json"
_PASSING_OPENERS = re.compile(
    r"^I(?:'ll| will|'d| would| think| guess| hope| agree| understand| see| know| bet| mean| wish| feel|"
    r" believe| appreciate| remember| forgot| heard| saw| can't wait| cannot wait| can imagine| can tell|"
    r" can relate| couldn't agree| was just| just wanted| totally| love that| love it| like that| like it|"
    r" have to go| gotta| had (?:a|an|no|such)|'m (?:so |really |very )?(?:glad|happy|sorry|excited|proud|"
    r"sure|not sure|looking forward|impressed|curious|back|here|good|fine|great|okay|ok|well|doing|"
    r"thrilled|relieved|grateful|thankful|honored|speechless|tired|bored|hungry|busy|running late|"
    r"on my way|heading))\b",
    re.I,
)


class Embeds(Protocol):
    def embed(self, texts: list[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class GateModel:
    """Logistic regression over sentence embeddings: p = sigmoid(x . weights + bias)."""

    weights: np.ndarray
    bias: float
    threshold: float
    embedder_id: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def probabilities(self, vectors: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-(vectors @ self.weights + self.bias)))

    def save(self, path: Path) -> None:
        payload = {
            "format_version": FORMAT_VERSION,
            "embedder_id": self.embedder_id,
            "bias": float(self.bias),
            "threshold": float(self.threshold),
            "weights": [round(float(w), 6) for w in self.weights],
            "meta": self.meta,
        }
        path.write_text(json.dumps(payload) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path | None = None) -> GateModel:
        """Read weights saved by `save`; the packaged ones by default."""
        text = (path.read_text(encoding="utf-8") if path is not None
                else resources.files("local_agent").joinpath("data", WEIGHTS_FILE).read_text(encoding="utf-8"))
        data = json.loads(text)
        if data.get("format_version") != FORMAT_VERSION:
            raise ModelError(f"distill gate weights have format {data.get('format_version')!r}, "
                             f"expected {FORMAT_VERSION}: retrain with scripts/train_gate.py")
        return cls(np.asarray(data["weights"], dtype=np.float32), float(data["bias"]), float(data["threshold"]),
                   str(data.get("embedder_id", "")), dict(data.get("meta") or {}))


# The clauses of one message the distiller reads, the first ones: what it does per clause (the
# gate's embedding, the rules, a candidate's checks and its saving) is then bounded, whatever
# a message holds (limits.MAX_MESSAGE_CHARS bounds the splitting). A chat message rarely has
# more than a dozen; a pasted page has hundreds, and no fact about the user in most of them.
MAX_CLAUSES = 48


@dataclass(frozen=True)
class GateDecision:
    """`statements` are the message's first-person statements, `scores` how likely each one is
    a durable fact (0..1); the message passes when any score reaches the threshold. `complete`
    is False when the message had more than MAX_CLAUSES clauses (only the first were read)."""

    passed: bool
    reason: str
    clauses: list[Clause]
    statements: list[Clause]
    scores: list[float]
    complete: bool = True

    def durable(self, threshold: float) -> list[Clause]:
        return [c for c, s in zip(self.statements, self.scores) if s >= threshold]


class Gate:
    """Decides cheaply whether a message may hold a durable fact about the user."""

    def __init__(self, embedder: Embeds | None = None, model: GateModel | None = None) -> None:
        self.embedder = embedder
        self.model = model if model is not None or embedder is None else _packaged_for(embedder)
        self.threshold = self.model.threshold if self.model is not None else 0.5

    def check(self, message: str, clauses: Sequence[Clause] | None = None) -> GateDecision:
        """The decision on `message`, read into `clauses` by the caller when it has them;
        at most the first MAX_CLAUSES are read (`complete` says whether that was all)."""
        clauses = list(clauses) if clauses is not None else split_clauses(message)
        complete = len(clauses) <= MAX_CLAUSES
        clauses = clauses[:MAX_CLAUSES]
        statements = [c for c in clauses if c.first_person_statement]
        if not statements:
            return GateDecision(False, _no_statement_reason(clauses), clauses, [], [], complete)
        scores = self.score([c.text for c in statements])
        passed = max(scores) >= self.threshold
        reason = "durable statement" if passed else "only passing remarks"
        return GateDecision(passed, reason, clauses, statements, scores, complete)

    def score(self, statements: list[str]) -> list[float]:
        """How likely each first-person statement is a durable fact about the user."""
        if self.model is None or self.embedder is None:
            return [0.0 if _PASSING_OPENERS.match(text) else 1.0 for text in statements]
        vectors = self.embedder.embed(statements)
        return [float(p) for p in self.model.probabilities(vectors)]


def _packaged_for(embedder: Embeds) -> GateModel | None:
    """The packaged weights, or None (heuristic gate) when they were trained on the vectors of
    another embedding model than `embedder` makes."""
    model = GateModel.load()
    theirs = getattr(embedder, "model_id", None)
    if theirs is not None and model.embedder_id and theirs != model.embedder_id:
        log.warning("distill gate weights were trained for %s, not %s: using the heuristic gate "
                    "(retrain with scripts/train_gate.py)", model.embedder_id, theirs)
        return None
    return model


def fit_logistic(x: np.ndarray, y: np.ndarray, *, l2: float = 1e-2, steps: int = 2000,
                 learning_rate: float = 0.5) -> tuple[np.ndarray, float]:
    """Weights and bias of an L2-regularized logistic regression, by full-batch gradient
    descent (the loss is convex; a few thousand steps on a few hundred rows take a second)."""
    if x.ndim != 2 or len(x) != len(y):
        raise ValueError("x must be (n, d) and y (n,)")
    weights = np.zeros(x.shape[1], dtype=np.float64)
    bias = 0.0
    target = y.astype(np.float64)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(x @ weights + bias)))
        error = p - target
        weights -= learning_rate * (x.T @ error / len(x) + l2 * weights)
        bias -= learning_rate * float(error.mean())
    return weights.astype(np.float32), bias


def _no_statement_reason(clauses: list[Clause]) -> str:
    if not clauses:
        return "empty message"
    acts = {c.act for c in clauses}
    if acts == {"request"}:
        return "a request to the assistant"
    if acts <= {"question", "request"}:
        return "a question"
    return "no first-person statement"
