#!/usr/bin/env python
"""Train the word-problem ranker (local_agent/reading/problems) and write
local_agent/data/problem_ranker.json.

Learns from ASDiv-A folds 0-3 (../shared/data/asdiv.jsonl; ASDiv, Miao et al., ACL 2020,
CC BY-NC 4.0), the project's contrast rows (scripts/evals/problem_contrasts.jsonl) and the
everyday arithmetic dev split (scripts/evals/tool_everyday/arithmetic.jsonl). Fold 4 and the
everyday held-out split are never read to tune anything: they are only reported.

The model is a conditional logit: one softmax over a problem's candidates, a linear score over
the named features (features.py) seen in at least two training problems, L2-regularized, fitted
by Adam; the L2 strength is chosen by cross-validation over folds 0-3 (each fold predicted by a
model fitted on the other three). The margins an answer must win by (all quantities used, some
unused) are chosen on those out-of-fold predictions of ASDiv folds 0-3 and the everyday dev rows
together: the most answers right with at most --wrong-rate of them confidently wrong.

    python scripts/train_problem_ranker.py ../shared/data/asdiv.jsonl [--output PATH] [--wrong-rate 0.03]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

from evals import problems as data

from local_agent.reading.problems import solve
from local_agent.reading.problems.candidates import asks_for_both, candidates
from local_agent.reading.problems.features import features
from local_agent.reading.problems.quantities import read
from local_agent.reading.problems.ranker import RankerWeights

OUTPUT = Path(__file__).resolve().parent.parent / "local_agent" / "data" / "problem_ranker.json"
L2_GRID = (3e-4, 1e-3, 3e-3)
WORD_COUNT = 10


@dataclass
class Example:
    problem: data.Problem
    named: list[dict[str, float]]
    values: np.ndarray
    correct: np.ndarray
    all_used: np.ndarray


def example(problem: data.Problem) -> Example:
    reading = read(problem.text)
    proposed = candidates(reading.quantities, both=asks_for_both(reading.question_words))
    count = min(len(reading.quantities), 6)
    return Example(problem, [features(reading, c) for c in proposed],
                   np.array([c.value for c in proposed]),
                   np.array([data.matches(c.value, problem) for c in proposed], dtype=bool),
                   np.array([len(c.leaves_set()) == count for c in proposed], dtype=bool))


class Matrix:
    """The candidates of several problems as one sparse matrix over a vocabulary."""

    def __init__(self, examples: list[Example], vocabulary: dict[str, int]) -> None:
        rows, columns, values, starts = [], [], [], [0]
        row = 0
        for ex in examples:
            for named in ex.named:
                for name, value in named.items():
                    if name in vocabulary:
                        rows.append(row)
                        columns.append(vocabulary[name])
                        values.append(value)
                row += 1
            starts.append(row)
        self.rows, self.columns = np.array(rows, dtype=np.int64), np.array(columns, dtype=np.int64)
        self.values, self.starts, self.size = np.array(values), np.array(starts), row
        self.group = np.repeat(np.arange(len(examples)), np.diff(self.starts))
        self.correct = np.concatenate([ex.correct for ex in examples]) if examples else np.zeros(0, bool)

    def scores(self, weights: np.ndarray) -> np.ndarray:
        return np.bincount(self.rows, weights=weights[self.columns] * self.values, minlength=self.size)

    def softmax(self, scores: np.ndarray) -> np.ndarray:
        top = np.maximum.reduceat(scores, self.starts[:-1])[self.group]
        exps = np.exp(scores - top)
        return exps / np.add.reduceat(exps, self.starts[:-1])[self.group]


def vocabulary_of(examples: list[Example]) -> dict[str, int]:
    """The features seen in at least two problems, a word's feature in at least WORD_COUNT."""
    seen: dict[str, int] = {}
    for ex in examples:
        for name in {name for named in ex.named for name in named}:
            seen[name] = seen.get(name, 0) + 1
    kept = (n for n, c in seen.items() if c >= (WORD_COUNT if n.startswith(("q:", "ctx:")) else 2))
    return {name: i for i, name in enumerate(sorted(kept))}


def fit(examples: list[Example], l2: float, steps: int = 400) -> dict[str, float]:
    usable = [ex for ex in examples if ex.correct.any()]
    vocabulary = vocabulary_of(usable)
    matrix = Matrix(usable, vocabulary)
    weights = np.zeros(len(vocabulary))
    first, second = np.zeros_like(weights), np.zeros_like(weights)
    for step in range(1, steps + 1):
        p = matrix.softmax(matrix.scores(weights))
        good = np.where(matrix.correct, p, 0.0)
        share = good / np.add.reduceat(good, matrix.starts[:-1])[matrix.group].clip(1e-300)
        coefficient = p - share  # d(-log P(correct))/d(score) for each candidate
        gradient = np.bincount(matrix.columns, weights=coefficient[matrix.rows] * matrix.values,
                               minlength=len(weights)) / len(usable) + l2 * weights
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient**2
        weights -= 0.05 * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    names = sorted(vocabulary, key=vocabulary.__getitem__)
    return {name: round(float(w), 4) for name, w in zip(names, weights, strict=True) if abs(w) >= 1e-4}


@dataclass(frozen=True)
class Prediction:
    problem: data.Problem
    value: float | None
    margin: float
    all_used: bool


def predict(ex: Example, weights: dict[str, float]) -> Prediction:
    if len(ex.values) == 0 or len(read(ex.problem.text).quantities) < 2:
        return Prediction(ex.problem, None, 0.0, True)
    scores = np.array([sum(weights.get(n, 0.0) * v for n, v in named.items()) for named in ex.named])
    p = np.exp(scores - scores.max())
    p /= p.sum()
    pooled: dict[float, float] = {}
    for value, probability in zip(np.round(ex.values, 6), p, strict=True):
        pooled[float(value)] = pooled.get(float(value), 0.0) + float(probability)
    ordered = sorted(pooled.items(), key=lambda item: -item[1])
    best = ordered[0][0]
    margin = ordered[0][1] - (ordered[1][1] if len(ordered) > 1 else 0.0)
    chosen = max((i for i in range(len(p)) if round(ex.values[i], 6) == best), key=lambda i: p[i])
    return Prediction(ex.problem, best, margin, bool(ex.all_used[chosen]))


def outcome(prediction: Prediction, margin: float, margin_unused: float) -> str:
    needed = margin if prediction.all_used else margin_unused
    if prediction.value is None or prediction.margin < needed:
        return "right" if prediction.problem.gold is None else "unsure"
    return "right" if data.matches(prediction.value, prediction.problem) else "wrong"


def calibrate(predictions: list[Prediction], wrong_rate: float) -> tuple[float, float]:
    best = (-1.0, 1.0, 1.0)
    grid = [round(x, 2) for x in np.arange(0.0, 1.0001, 0.02)]
    for margin in grid:
        for margin_unused in (m for m in grid if m >= margin):
            outcomes = [outcome(p, margin, margin_unused) for p in predictions]
            right, wrong = outcomes.count("right"), outcomes.count("wrong")
            if wrong <= wrong_rate * len(outcomes) and right > best[0]:
                best = (right, margin, margin_unused)
    return best[1], best[2]


def out_of_fold(examples: list[Example], l2: float) -> list[Prediction]:
    predictions = []
    for fold in range(4):
        weights = fit([ex for ex in examples if ex.problem.fold != fold], l2)
        predictions += [predict(ex, weights) for ex in examples if ex.problem.fold == fold]
    return predictions


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("asdiv", type=Path, help="ASDiv as JSONL (../shared/data/asdiv.jsonl)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--wrong-rate", type=float, default=0.03, help="the confidently-wrong rate to calibrate for")
    return parser.parse_args()


def main() -> int:
    args = _arguments()
    if not args.asdiv.is_file():
        print(f"error: no such file: {args.asdiv}", file=sys.stderr)
        return 1
    asdiv = data.asdiv(args.asdiv)
    train = [example(p) for p in asdiv if p.fold < 4] + [example(p) for p in data.contrasts()]
    dev = [example(p) for p in data.everyday("dev")]
    report: dict[str, object] = {"oracle_fold_0_3": round(np.mean([ex.correct.any() for ex in train]), 4)}
    top1 = {}
    for l2 in L2_GRID:
        oof = out_of_fold(train + dev, l2)
        top1[l2] = np.mean([p.value is not None and data.matches(p.value, p.problem) for p in oof if p.problem.gold])
    l2 = max(top1, key=top1.__getitem__)
    oof = [p for p in out_of_fold(train + dev, l2) if p.problem.source in ("asdiv", "everyday")]
    margin, margin_unused = calibrate(oof, args.wrong_rate)
    weights = fit(train + [ex for ex in dev if ex.problem.gold is not None], l2)
    model = RankerWeights(weights, margin, margin_unused, {
        "trained_on": "ASDiv-A folds 0-3 (Miao et al., ACL 2020; CC BY-NC 4.0), the project's contrast rows, "
                      "the everyday arithmetic dev split", "date": dt.date.today().isoformat(), "l2": l2,
        "wrong_rate": args.wrong_rate, "features": len(weights)})
    text = json.dumps(model.to_json(), indent=0, ensure_ascii=False) + "\n"
    temporary = args.output.with_suffix(".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(args.output)
    solver = lambda text: solve(text, model)  # noqa: E731
    report.update({
        "l2_top1": {str(k): round(float(v), 4) for k, v in top1.items()}, "l2": l2,
        "margin": margin, "margin_unused": margin_unused,
        "calibration_oof": data.rates(outcome(p, margin, margin_unused) for p in oof),
        "asdiv_fold_4": data.report([p for p in asdiv if p.fold == 4], solver),
        "everyday_dev": data.report(data.everyday("dev"), solver),
        "everyday_heldout": data.report(data.everyday("heldout"), solver),
        "features": len(weights)})
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
