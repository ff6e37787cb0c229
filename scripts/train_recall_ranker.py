#!/usr/bin/env python
"""Train recall's ranker (local_agent/memory/index/rerank.py) and write
local_agent/data/recall_ranker.json.

Reads a LoCoMo file (the shared dev set) and learns from the conversations of its tune split
only (scripts/evals/locomo.py DEV_SPLITS): each conversation's turns are indexed as the
LoCoMo evaluation stores them, each question goes through the first stage of recall, and every
candidate the ranker would reorder is an example, positive when it is one of the question's
evidence turns. The model is a linear score over the standardized features, fitted as a
pairwise logistic regression (the distill gate's `fit_logistic` on the differences between an
evidence candidate and each other candidate of the same question): what matters is the order
of one question's candidates, not a score comparable across questions. The check split is
never read: scripts/eval_locomo.py reports both.

    python scripts/train_recall_ranker.py ../shared/data/locomo-dev.json [--output PATH]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

from evals.locomo import Conversation, _after_history, load_conversations, split_of, turn_items

from local_agent.memory.distill.gate import fit_logistic
from local_agent.memory.index import recall, time_boost
from local_agent.memory.index.render import dense_text
from local_agent.memory.index.rerank import FEATURES, WEIGHTS_FILE, RankerModel
from local_agent.memory.index.state import MemoryState
from local_agent.memory.store.drafts import draft_record

DATA_DIR = Path(__file__).resolve().parent.parent / "local_agent" / "data"
KINDS = ("fact", "turn", "digest")
L2 = 1e-3
STEPS = 3000
LEARNING_RATE = 1.0
Embed = Callable[[list[str]], np.ndarray]


def conversation_state(conversation: Conversation, embed: Embed) -> MemoryState:
    """The turns of a conversation indexed as the LoCoMo evaluation stores them."""
    records = [replace(draft_record(draft), id=f"t{index}") for index, draft in enumerate(turn_items(conversation))]
    vectors = np.asarray(embed([dense_text(record) for record in records]), dtype=np.float32)
    return MemoryState.build(records, vectors, len(records), vectors.shape[1])


def examples(conversations: list[Conversation], embed: Embed) -> list[tuple[np.ndarray, np.ndarray]]:
    """Features and labels of the candidates of each question."""
    found = []
    for conversation in conversations:
        state = conversation_state(conversation, embed)
        today = _after_history(conversation)
        vectors = embed([time_boost.topic_of(q.text, today) for q in conversation.questions])
        for question, vector in zip(conversation.questions, vectors):
            records, x = recall.ranking_features(state, question.text, vector, kinds=KINDS,
                                                 min_score=recall.DEFAULT_MIN_SCORE, today=today)
            labels = [record.provenance.extra.get("dia_id") in question.evidence for record in records]
            found.append((x, np.asarray(labels, dtype=bool)))
    return found


def pairs(questions: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """For each question, each evidence candidate's features minus each other candidate's."""
    differences = [x[y][:, None, :] - x[~y][None, :, :] for x, y in questions if y.any() and (~y).any()]
    return np.concatenate([d.reshape(-1, d.shape[-1]) for d in differences])


def train(conversations: list[Conversation], embed: Embed) -> RankerModel:
    questions = examples(conversations, embed)
    x = np.concatenate([x for x, _ in questions])
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    better = pairs([((x - mean) / scale, y) for x, y in questions])
    both = np.concatenate([better, -better])  # each pair both ways: the fitted bias stays 0
    labels = np.concatenate([np.ones(len(better), dtype=bool), np.zeros(len(better), dtype=bool)])
    weights, _ = fit_logistic(both, labels, l2=L2, steps=STEPS, learning_rate=LEARNING_RATE)
    meta = {"trained_on": [c.sample_id for c in conversations], "candidates": len(x), "pairs": len(better),
            "l2": L2, "steps": STEPS, "script": "scripts/train_recall_ranker.py"}
    return RankerModel(FEATURES, mean.astype(np.float32), scale.astype(np.float32), weights, 0.0, meta)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train recall's ranker on the tune split of LoCoMo dev.")
    parser.add_argument("path", type=Path, help="the LoCoMo dev file")
    parser.add_argument("--output", type=Path, default=DATA_DIR / WEIGHTS_FILE)
    args = parser.parse_args(argv)
    from local_agent.config import load_settings
    from local_agent.memory.index.gguf_embedder import memory_embedder

    tune = [c for c in load_conversations(args.path) if split_of(c.sample_id) == "tune"]
    if not tune:
        print(f"error: {args.path} holds none of the tune split's conversations", file=sys.stderr)
        return 2
    embedder = memory_embedder(load_settings().models_dir)
    model = train(tune, embedder.embed)
    model.save(args.output)
    print(f"wrote {args.output}: {model.meta['candidates']} candidates, {model.meta['pairs']} pairs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
