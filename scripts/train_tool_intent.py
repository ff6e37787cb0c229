"""Train the tool router's intent classifier and write local_agent/data/tool_intent.json.

Reads the hand-written local_agent/data/tool_intent_train.jsonl ({"text", "label"}: a tool
family of local_agent/tools/intent.py or "none"), embeds each message with the product's
memory embedder, fits one L2-regularized logistic regression per family (one against the
rest), and picks the decision threshold by 5-fold cross-validation on that same set: the lowest
at which no held-out plain message is sent to a tool, plus a margin. No evaluation data is read.

    python scripts/train_tool_intent.py [--data PATH] [--output PATH] [--models-dir DIR]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from local_agent.config import CHECKOUT_MODELS_DIR
from local_agent.memory.distill.gate import fit_logistic
from local_agent.memory.index.gguf_embedder import memory_embedder
from local_agent.tools.intent import FAMILIES, IntentModel

DATA_DIR = Path(__file__).resolve().parent.parent / "local_agent" / "data"
FOLDS = 5
MARGIN = 0.05
GRID = np.round(np.arange(0.30, 0.96, 0.01), 2)


def fit(x: np.ndarray, labels: list[str], threshold: float, embedder_id: str) -> IntentModel:
    families = tuple(FAMILIES)
    rows = [fit_logistic(x, np.array([label == family for label in labels]), l2=1e-3, steps=3000,
                         learning_rate=4.0) for family in families]
    return IntentModel(families, np.stack([w for w, _ in rows]), np.array([b for _, b in rows], dtype=np.float32),
                       threshold, embedder_id)


def held_out_scores(x: np.ndarray, labels: list[str]) -> list[tuple[str, str, float]]:
    """(label, best family, its probability) for every message, each from the folds without it."""
    order = np.random.default_rng(0).permutation(len(labels))
    results: list[tuple[str, str, float]] = []
    for fold in range(FOLDS):
        test = order[fold::FOLDS]
        train = np.setdiff1d(order, test)
        model = fit(x[train], [labels[i] for i in train], 0.5, "")
        for i in test:
            family, score = max(model.probabilities(x[i]).items(), key=lambda item: item[1])
            results.append((labels[i], family, score))
    return results


def choose_threshold(results: list[tuple[str, str, float]]) -> tuple[float, dict[str, float]]:
    plain = [score for label, _, score in results if label == "none"]
    lowest = next(float(t) for t in GRID if all(score < t for score in plain))
    threshold = round(min(0.95, lowest + MARGIN), 2)
    tools = [(label, family, score) for label, family, score in results if label != "none"]
    right = sum(1 for label, family, score in tools if family == label and score >= threshold)
    return threshold, {"heldout_tool_recall": round(right / len(tools), 3),
                       "heldout_plain_to_tool": sum(1 for s in plain if s >= threshold) / len(plain)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=DATA_DIR / "tool_intent_train.jsonl")
    parser.add_argument("--output", type=Path, default=DATA_DIR / "tool_intent.json")
    parser.add_argument("--models-dir", type=Path, default=CHECKOUT_MODELS_DIR)
    args = parser.parse_args()
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts, labels = [row["text"] for row in rows], [row["label"] for row in rows]
    unknown = sorted(set(labels) - set(FAMILIES) - {"none"})
    if unknown:
        raise SystemExit(f"unknown labels: {unknown}")
    embedder = memory_embedder(args.models_dir, "cpu")
    x = np.asarray(embedder.embed(texts), dtype=np.float64)
    threshold, meta = choose_threshold(held_out_scores(x, labels))
    model = fit(x, labels, threshold, embedder.model_id)
    meta = {**meta, "examples": len(rows), "trained_on": args.data.name}
    args.output.write_text(model.to_json(meta), encoding="utf-8")
    print(json.dumps({"threshold": threshold, **meta}))


if __name__ == "__main__":
    main()
