"""The ranker of a problem's candidates: a linear score over named features, one softmax over
the candidates of one problem (a conditional logit), trained by scripts/train_problem_ranker.py
on ASDiv (Miao et al., ACL 2020; CC BY-NC 4.0) folds 0-3 and the project's own contrast rows.
The weights and the answer margins ship as package data (`data/problem_ranker.json`), loaded
once."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ...errors import ModelError

FORMAT_VERSION = 1
WEIGHTS_FILE = "problem_ranker.json"


@dataclass(frozen=True)
class RankerWeights:
    """Feature weights and the margins an answer must win by (all quantities used / some not)."""

    weights: Mapping[str, float]
    margin: float
    margin_unused: float
    meta: Mapping[str, Any]

    def score(self, named: Mapping[str, float]) -> float:
        return sum(self.weights.get(name, 0.0) * value for name, value in named.items())

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT_VERSION, "margin": self.margin, "margin_unused": self.margin_unused,
                "meta": dict(self.meta), "weights": dict(sorted(self.weights.items()))}


def from_json(data: Mapping[str, Any]) -> RankerWeights:
    if data.get("format") != FORMAT_VERSION:
        raise ModelError(f"{WEIGHTS_FILE}: format {data.get('format')!r}, expected {FORMAT_VERSION}")
    return RankerWeights(dict(data["weights"]), float(data["margin"]), float(data["margin_unused"]),
                         dict(data.get("meta", {})))


@functools.cache
def shipped() -> RankerWeights:
    """The weights in the package (read once)."""
    text = resources.files("local_agent").joinpath("data", WEIGHTS_FILE).read_text(encoding="utf-8")
    return from_json(json.loads(text))


def softmax(scores: Sequence[float]) -> list[float]:
    top = max(scores)
    exps = [math.exp(score - top) for score in scores]
    total = sum(exps)
    return [value / total for value in exps]
