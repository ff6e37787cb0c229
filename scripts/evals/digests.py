"""Session digests from the session, or none (scripts/eval_digests.py): each session of
`sets/sessions.jsonl` is summarized by the product's Summarizer on the default model, as a chat
session's digest is when it is left.

Reported per split, over every bullet: `raw_grounded`, the share of the model's own bullets
whose content words all appear in the session (content words: stemmed, without stopwords and
without the words any summary may use, memory/summary.SUMMARY_WORDS; a bullet with none fails);
`stored_grounded`, the same share over the bullets stored; how many of the model's bullets were
kept and how many the rule added (a user turn the kept bullets leave out), and in how many
sessions only the rule's are stored; `placeholders`, model bullets with no content word at all
("...").
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from local_agent.memory.distill.validation import content_stems
from local_agent.memory.summary import SUMMARY_WORDS, Summarizer, grounded_bullets
from local_agent.types import Message

SETS = Path(__file__).resolve().parent / "sets"


def load(split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (SETS / "sessions.jsonl").read_text(encoding="utf-8").splitlines()]
    return [row for row in rows if split in ("all", row["split"])]


def said_in(bullet: str, session: Sequence[Message]) -> bool:
    """Every content word of `bullet` was said in the session (and it has one)."""
    stems = content_stems(bullet) - SUMMARY_WORDS
    return bool(stems) and stems <= content_stems(" ".join(m.content for m in session))


def run(summarizer: Summarizer, sessions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for session in sessions:
        turns = [Message(t["role"], t["content"]) for t in session["turns"]]
        raw, stored = summarizer.bullets("", turns)
        kept = grounded_bullets(raw, turns)
        rows.append({"id": session["id"], "split": session["split"], "raw": raw, "stored": stored,
                     "model_kept": len(kept), "rule_added": len(stored) - len(kept),
                     "raw_said": [said_in(b, turns) for b in raw],
                     "stored_said": [said_in(b, turns) for b in stored],
                     "placeholders": sum(not (content_stems(b) - SUMMARY_WORDS) for b in raw)})
    return rows


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    def share(values: list[bool]) -> float | None:
        return round(sum(values) / len(values), 3) if values else None

    report = {}
    for split in sorted({row["split"] for row in rows}):
        group = [row for row in rows if row["split"] == split]
        report[split] = {
            "sessions": len(group),
            "raw_bullets": sum(len(row["raw"]) for row in group),
            "raw_grounded": share([said for row in group for said in row["raw_said"]]),
            "placeholders": sum(row["placeholders"] for row in group),
            "stored_bullets": sum(len(row["stored"]) for row in group),
            "stored_grounded": share([said for row in group for said in row["stored_said"]]),
            "model_bullets_kept": sum(row["model_kept"] for row in group),
            "rule_bullets_added": sum(row["rule_added"] for row in group),
            "rule_only_sessions": sum(row["model_kept"] == 0 for row in group),
            "sessions_without_grounded_bullet": sum(not any(row["stored_said"]) for row in group),
        }
    return report
