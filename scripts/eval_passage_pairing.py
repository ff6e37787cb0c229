#!/usr/bin/env python
"""Does an assistant passage recall better embedded alone, or paired with the user message it
answered? (issue 13, item 1). A one-off measurement on LoCoMo, kept to be re-run.

speaker_b's turns are stored as the assistant's (role `assistant`), speaker_a's as the user's,
each conversation in a fresh store, and every question goes through the product's recall, as in
`eval_locomo.py`. "alone" embeds a passage as the product does; "paired" embeds it after the
message it answered (the user's turn just before it). The text search sees the earlier turns in
both (see memory/index/state.py). Recall@k is reported over all questions, over those whose
evidence is all the assistant's, and over those whose evidence is all the user's.

    python scripts/eval_passage_pairing.py /work/shared/data/locomo-dev.json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from evals.locomo import Conversation, Turn, _after_history, load_conversations, question_recall, turn_items

from local_agent.config import load_settings
from local_agent.memory.index import render
from local_agent.memory.index.embedder import TextEmbedder
from local_agent.memory.index.gguf_embedder import memory_embedder
from local_agent.memory.store import MemoryStore, memory_store
from local_agent.types import MemoryDraft, MemoryRecord

KS = (5, 10)


def paired_text(record: MemoryRecord) -> str:
    """An assistant passage after the message it answered (kept in `source_text` here)."""
    text = render.dense_text(record)
    answered = record.provenance.source_text
    return f"{answered} {text}" if record.provenance.role == "assistant" and answered else text


def drafts(conversation: Conversation) -> list[MemoryDraft]:
    """The conversation's turns, speaker_b's as the assistant's with the user turn they answer."""
    assistant = next((t.speaker for t in conversation.turns if t.speaker != conversation.turns[0].speaker), None)
    found: list[MemoryDraft] = []
    last_user: Turn | None = None
    for turn, draft in zip(conversation.turns, turn_items(conversation)):
        if turn.speaker == assistant:
            answered = last_user if last_user is not None and last_user.session == turn.session else None
            origin = replace(draft.provenance, role="assistant",
                             source_text=f"{answered.speaker}: {answered.text}" if answered else None)
        else:
            origin, last_user = replace(draft.provenance, role="user"), turn
        found.append(replace(draft, provenance=origin))
    return found


def measure(conversations: list[Conversation], embedder: TextEmbedder, paired: bool) -> dict[str, dict[str, float]]:
    original = memory_store.dense_text
    memory_store.dense_text = paired_text if paired else original  # what add_many embeds
    groups: dict[str, list[dict[int, float]]] = {"all": [], "assistant_evidence": [], "user_evidence": []}
    try:
        for conversation in conversations:
            stored = drafts(conversation)
            theirs = {d.provenance.extra["dia_id"] for d in stored if d.provenance.role == "assistant"}
            with tempfile.TemporaryDirectory() as folder, MemoryStore.open(Path(folder), embedder) as store:
                store.add_many(stored)
                for question in conversation.questions:
                    hits = store.recall(question.text, k=max(KS), today=_after_history(conversation))
                    found = question_recall(question.evidence, [str(h.record.provenance.extra.get("dia_id"))
                                                                for h in hits], KS)
                    groups["all"].append(found)
                    if all(ident in theirs for ident in question.evidence):
                        groups["assistant_evidence"].append(found)
                    elif not any(ident in theirs for ident in question.evidence):
                        groups["user_evidence"].append(found)
    finally:
        memory_store.dense_text = original
    return {name: {"questions": len(values), **{f"recall@{k}": round(statistics.fmean(v[k] for v in values), 4)
                                                for k in KS}}
            for name, values in groups.items() if values}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--limit-conversations", type=int, default=None, metavar="N")
    args = parser.parse_args(argv)
    conversations = load_conversations(args.path)[: args.limit_conversations]
    embedder = memory_embedder(load_settings().models_dir)
    report = {mode: measure(conversations, embedder, mode == "paired") for mode in ("alone", "paired")}
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
