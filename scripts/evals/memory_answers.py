"""Answers about the user's own past (scripts/eval_memory_answers.py): each question of
`sets/memory-questions.jsonl` is asked in a session of its own, with the item's facts and earlier
messages in memory (dated the day before), through the agent chat uses.

Per split and setup: `correct` (an answerable question: its answer holds every gold keyword,
answers_data.is_correct; one memory cannot answer: the answer says it does not remember or
know, and holds no name or number its sources lack), `unsupported` (the share of answers with a
name or number that neither the memories shown nor the question hold), how each reply was made
(`routes`), and the seconds the grounding check and its retry added.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from local_agent.grounding.support import unsupported
from local_agent.types import Provenance

from .answers_data import is_correct

SETS = Path(__file__).resolve().parent / "sets"
TODAY = "2024-05-20T10:00"
SAID = "2024-05-19T18:00"
_DOES_NOT_KNOW = re.compile(r"\b(?:don't|do not|can't|cannot) (?:remember|recall|know)|not sure|no record|"
                            r"didn't (?:mention|tell|say)|haven't (?:mentioned|told|said)", re.IGNORECASE)


def load(split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (SETS / "memory-questions.jsonl").read_text(encoding="utf-8").splitlines()]
    return [row for row in rows if split in ("all", row["split"])]


def judge(item: dict[str, Any], answer: str, memories: Sequence[str]) -> dict[str, bool]:
    missing = bool(unsupported(answer, [*memories, item["question"]]))
    knows_not = bool(_DOES_NOT_KNOW.search(answer)) and not missing
    return {"correct": is_correct(answer, item["gold"]) if item["gold"] else knows_not, "unsupported": missing}


def run(items: Sequence[dict[str, Any]], *, program: bool = True) -> list[dict[str, Any]]:
    from local_agent.app import build_runtime
    from local_agent.config import load_settings

    rows = []
    for item in items:
        with tempfile.TemporaryDirectory(prefix="memq-") as root:
            settings = dataclasses.replace(load_settings({"max_tokens": 96}), data_dir=Path(root), today=TODAY)
            with build_runtime(settings) as runtime:
                agent = runtime.agent
                assert agent.memory is not None
                store = agent.memory.store
                for text in item["facts"]:
                    store.add(text, "fact", provenance=Provenance(session="earlier", role="user", date=SAID))
                for text in item["said"]:
                    store.add(text, "turn", provenance=Provenance(session="earlier", role="user", date=SAID,
                                                                  turn_index=0))
                agent.replies_by_program = program
                agent.set_incognito(True)
                result = agent.respond(item["question"])
                memories = list(result.prompt.memories_used) if result.prompt else []
                added = (result.timings.grounding_check_s or 0.0) + (result.timings.grounding_retry_s or 0.0)
                rows.append({"id": item["id"], "split": item["split"], "question": item["question"],
                             "gold": item["gold"], "answer": result.answer, "route": result.reply_route or "model",
                             "memories": memories, "grounding_s": round(added, 4),
                             **judge(item, result.answer, memories)})
    return rows


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    report = {}
    for split in sorted({row["split"] for row in rows}):
        group = [row for row in rows if row["split"] == split]
        answerable = [row for row in group if row["gold"]]
        report[split] = {
            "n": len(group),
            "correct": round(sum(row["correct"] for row in group) / len(group), 3),
            "correct_answerable": round(sum(row["correct"] for row in answerable) / max(1, len(answerable)), 3),
            "correct_unanswerable": round(sum(row["correct"] for row in group if not row["gold"])
                                          / max(1, len(group) - len(answerable)), 3),
            "unsupported": round(sum(row["unsupported"] for row in group) / len(group), 3),
            "routes": dict(Counter(row["route"] for row in group)),
            "grounding_s_mean": round(sum(row["grounding_s"] for row in group) / len(group), 4),
        }
    return report
