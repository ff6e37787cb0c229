"""The router's second opinion: which tool a question that no rule matched asks for, from a
logistic regression per tool family over the message's sentence embedding (the same kind of
classifier as the distillation gate). Trained by scripts/train_tool_intent.py on the
hand-written local_agent/data/tool_intent_train.jsonl; no evaluation data.

It is asked only about questions and requests the rules route to no tool, so plain chat
that the rules already pass costs nothing, and it never answers with a tool that is off."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

log = logging.getLogger(__name__)
FORMAT_VERSION = 1
WEIGHTS_FILE = "tool_intent.json"
# A family's tools, in the order the loop offers them.
FAMILIES: dict[str, tuple[str, ...]] = {
    "calculator": ("calculator",), "date": ("date",), "memory_search": ("memory_search",),
    "notes_search": ("notes_search",), "sql": ("sql_schema", "sql_query"),
}
Embed = Callable[[list[str]], np.ndarray]


@dataclass(frozen=True)
class IntentModel:
    """One logistic regression per family: p = sigmoid(x . weights[f] + bias[f])."""

    families: tuple[str, ...]
    weights: np.ndarray  # (families, dimensions)
    biases: np.ndarray  # (families,)
    threshold: float
    embedder_id: str = ""

    def probabilities(self, vector: np.ndarray) -> dict[str, float]:
        scores = 1.0 / (1.0 + np.exp(-(self.weights @ vector + self.biases)))
        return {family: float(score) for family, score in zip(self.families, scores)}

    def to_json(self, meta: dict[str, Any]) -> str:
        return json.dumps({
            "format_version": FORMAT_VERSION, "embedder_id": self.embedder_id, "threshold": self.threshold,
            "families": list(self.families), "biases": [round(float(b), 6) for b in self.biases],
            "weights": [[round(float(w), 6) for w in row] for row in self.weights], "meta": meta,
        }) + "\n"

    @classmethod
    def packaged(cls) -> IntentModel | None:
        """The packaged weights; None (rules only) when they are missing or of another format."""
        try:
            text = resources.files("local_agent").joinpath("data", WEIGHTS_FILE).read_text(encoding="utf-8")
            data = json.loads(text)
            if data.get("format_version") != FORMAT_VERSION:
                raise ValueError(f"format {data.get('format_version')!r}")
            return cls(tuple(data["families"]), np.asarray(data["weights"], dtype=np.float32),
                       np.asarray(data["biases"], dtype=np.float32), float(data["threshold"]),
                       str(data.get("embedder_id", "")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("tool intent weights unusable (%s): the router uses its rules only", exc)
            return None


@dataclass(frozen=True)
class IntentGuess:
    tools: tuple[str, ...]  # empty: no tool
    reason: str


class Intent:
    """Guesses the tool family of a message through `embed` (called only when needed, so the
    embedding model loads on the first question the rules leave open)."""

    def __init__(self, embed: Embed, model: IntentModel | None = None) -> None:
        self._embed = embed
        self.model = model if model is not None else IntentModel.packaged()

    def guess(self, message: str, enabled: Collection[str]) -> IntentGuess:
        if self.model is None:
            return IntentGuess((), "no intent model")
        vector = np.asarray(self._embed([message]), dtype=np.float32)[0]
        scores = self.model.probabilities(vector)
        family, score = max(scores.items(), key=lambda item: item[1])
        tools = tuple(name for name in FAMILIES.get(family, ()) if name in enabled)
        if score < self.model.threshold or not tools:
            return IntentGuess((), f"intent: no tool (best {family} {score:.2f})")
        return IntentGuess(tools, f"intent: {family} {score:.2f}")
