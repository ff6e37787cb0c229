"""Train the distill gate's classifier and write local_agent/data/distill_gate.json.

Reads the hand-made local_agent/data/distill_train.jsonl (scripts/build_distill_train.py writes
it), embeds the first-person statements of each message with the product's Embedder, fits a
logistic regression, and picks the decision threshold by 5-fold cross-validation on that same
training set (the best F-beta of the save decision per message, beta 2 by default: the checks
after the gate guard precision). No evaluation data is read.

    python scripts/train_gate.py [--data PATH] [--output PATH]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from local_agent.memory.distill.gate import GateModel, fit_logistic
from local_agent.memory.index.embedder import Embedder
from local_agent.reading.clauses import split_clauses

DATA_DIR = Path(__file__).resolve().parent.parent / "local_agent" / "data"
L2 = 1e-3
STEPS = 3000
LEARNING_RATE = 4.0
FOLDS = 5
# The gate passes a statement on to the rules, the model and the candidate checks, which reject
# what states more than the message (validation.py); so the gate leans to recall: F2.
BETA = 2.0


def load_examples(path: Path) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Statement clauses, their labels, and the index of the message each came from. A clause
    is positive when its message is and it is a first-person statement."""
    texts, labels, groups = [], [], []
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        for clause in split_clauses(row["text"]):
            if clause.act == "statement":
                texts.append(clause.text)
                labels.append(bool(row["save"]) and clause.first_person)
                groups.append(index)
    return texts, np.asarray(labels), np.asarray(groups)


def message_scores(probabilities: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per message: the highest clause probability, and whether any clause is positive."""
    ids = np.unique(groups)
    best = np.array([probabilities[groups == g].max() for g in ids])
    truth = np.array([labels[groups == g].any() for g in ids])
    return best, truth


def best_threshold(scores: np.ndarray, truth: np.ndarray, beta: float = 1.0) -> tuple[float, dict]:
    best = (0.5, {"f": -1.0})
    for threshold in np.linspace(0.05, 0.95, 91):
        predicted = scores >= threshold
        tp = float((predicted & truth).sum())
        precision = tp / max(predicted.sum(), 1)
        recall = tp / max(truth.sum(), 1)
        f = (1 + beta**2) * precision * recall / max(beta**2 * precision + recall, 1e-9)
        if f > best[1]["f"]:
            best = (round(float(threshold), 2), {"f": f, "precision": precision, "recall": recall})
    return best


def cross_validated(vectors: np.ndarray, labels: np.ndarray, groups: np.ndarray) -> np.ndarray:
    folds = np.random.default_rng(0).permutation(np.unique(groups)) % FOLDS
    fold_of = dict(zip(np.unique(groups), folds))
    out = np.zeros(len(labels))
    membership = np.array([fold_of[g] for g in groups])
    for fold in range(FOLDS):
        test = membership == fold
        weights, bias = fit_logistic(vectors[~test], labels[~test], l2=L2, steps=STEPS, learning_rate=LEARNING_RATE)
        out[test] = 1.0 / (1.0 + np.exp(-(vectors[test] @ weights + bias)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA_DIR / "distill_train.jsonl")
    parser.add_argument("--output", type=Path, default=DATA_DIR / "distill_gate.json")
    parser.add_argument("--beta", type=float, default=BETA,
                        help="the threshold maximizes F-beta of the cross-validated save decision")
    args = parser.parse_args()
    texts, labels, groups = load_examples(args.data)
    embedder = Embedder()
    vectors = embedder.embed(texts)
    threshold, cv = best_threshold(*message_scores(cross_validated(vectors, labels, groups), labels, groups),
                                   beta=args.beta)
    weights, bias = fit_logistic(vectors, labels, l2=L2, steps=STEPS, learning_rate=LEARNING_RATE)
    meta = {"clauses": len(texts), "positive_clauses": int(labels.sum()), "l2": L2, "beta": args.beta,
            "cv_precision": round(cv["precision"], 4), "cv_recall": round(cv["recall"], 4)}
    GateModel(weights, bias, threshold, embedder.model_id, meta).save(args.output)
    print(f"threshold {threshold:.2f}; cross-validated precision {cv['precision']:.3f} recall {cv['recall']:.3f} "
          f"on {len(np.unique(groups))} messages; wrote {args.output}")


if __name__ == "__main__":
    main()
