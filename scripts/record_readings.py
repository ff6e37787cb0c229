"""Record how the program reads every dev message, without running a model, and compare two
recordings: the check that moving the reading code changes no behaviour.

    python scripts/record_readings.py OUT.jsonl [--data DIR]
    python scripts/record_readings.py --compare BEFORE.jsonl AFTER.jsonl

For each message (the dev rows of the tool sets in scripts/evals/tool_dev/, the generated tool
tasks of scripts/evals/tool_tasks/ with seed 0, the companion chats, the reply sets, the
session turns and distill-extra of scripts/evals/sets/, and, when DIR holds them, every turn
and question of locomo-dev.json and every text of distill-dev.jsonl) one JSON line with:
- `reply`: plan_reply's kind, text and whether the model speaks after it (turn/replies.py),
  given the row's memories;
- `route`: the tool router's route with every tool enabled over the tool tasks' sample
  database and notes (rules only: no intent classifier), its arguments and reason;
- `distill`: the distillation gate's reason without an embedder, the rule candidates
  (text, key, rule), the rejected ones with their reason, and whether the message is a
  correction (which the save policy reads);
- `read`: the smaller readings the turn makes: clauses with their acts, language, a recap
  question's span, small talk, an introduced name, a question about the assistant, a
  feeling, the numbers a calculation may use and the dates read.
The recording holds licensed data (LoCoMo): write it outside the repository. Held-out rows
are left out. `--compare` prints every message whose reading differs, field by field, and a
count; it exits 1 when any differs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from evals.tool_tasks.build import build_task_set

from local_agent.errors import InputError
from local_agent.memory.distill.distiller import Distiller
from local_agent.memory.distill.gate import Gate
from local_agent.reading import read
from local_agent.tools.narrowing import message_numbers
from local_agent.tools.registry import ToolSources, build_tools
from local_agent.tools.router import Router
from local_agent.turn.replies import plan_reply

EVALS = Path(__file__).parent / "evals"
NOW = dt.datetime(2026, 3, 11, 12, 0)
Row = tuple[str, str, list[str], str]  # (source, id, memories, message)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _dev(row: dict[str, Any]) -> bool:
    return row.get("split", "dev") == "dev"


def reply_set_rows() -> Iterator[Row]:
    sets = EVALS / "sets"
    for row in filter(_dev, _jsonl(sets / "everyday.jsonl")):
        yield "everyday", row["id"], list(row.get("memories", [])), row["message"]
    for row in filter(_dev, _jsonl(sets / "introductions.jsonl")):
        yield "introductions", row["id"], [], row["message"]
    for row in filter(_dev, _jsonl(sets / "corrections.jsonl")):
        yield "corrections", row["id"], list(row.get("memories", [])), row["message"]
    for row in filter(_dev, _jsonl(sets / "memory-questions.jsonl")):
        yield "memory-questions", row["id"], [*row.get("facts", []), *row.get("said", [])], row["question"]
    for row in filter(_dev, _jsonl(sets / "companion.jsonl")):
        for index, turn in enumerate(row["turns"]):
            yield "companion", f"{row['id']}.{index}", [], turn["user"]
    for row in filter(_dev, _jsonl(sets / "sessions.jsonl")):
        for index, turn in enumerate(row["turns"]):
            if turn["role"] == "user":
                yield "sessions", f"{row['id']}.{index}", [], turn["content"]
    for index, row in enumerate(_jsonl(sets / "distill-extra.jsonl")):
        if _dev(row):
            yield "distill-extra", str(index), [], row["text"]


def tool_rows(tasks: Path) -> Iterator[Row]:
    for category in ("arithmetic", "dates", "sql", "chat"):
        for row in filter(_dev, _jsonl(EVALS / "tool_dev" / f"{category}.jsonl")):
            yield f"tool-dev-{category}", row["id"], [], row["message"]
    for row in _jsonl(tasks / "tasks.jsonl"):
        yield f"tool-tasks-{row['category']}", row["id"], list(row.get("memories", [])), row["message"]


def shared_rows(data: Path | None) -> Iterator[Row]:
    if data is None:
        return
    locomo = data / "locomo-dev.json"
    if locomo.exists():
        for sample in json.loads(locomo.read_text(encoding="utf-8")):
            conversation = sample["conversation"]
            for key in sorted(k for k in conversation if k.startswith("session_") and k[8:].isdigit()):
                for turn in conversation[key]:
                    if turn.get("text"):
                        yield "locomo-turn", str(turn.get("dia_id", key)), [], turn["text"]
            for index, qa in enumerate(sample["qa"]):
                yield "locomo-question", f"{sample['sample_id']}.q{index}", [], str(qa["question"])
    distill = data / "distill-dev.jsonl"
    if distill.exists():
        for index, row in enumerate(_jsonl(distill)):
            yield "distill-dev", str(index), [], row["text"]


def reading_of(message: str, memories: list[str]) -> dict[str, Any]:
    """The turn's one reading of `message` (reading/) and the reply plan made from it."""
    found = read(message, NOW)
    about = found.about.topic if found.about is not None and found.about.language is None else None
    return {"plan": plan_reply(found, memories), "clauses": found.clauses, "language": found.language,
            "recap": found.recap, "small_talk": found.small_talk, "name": found.introduced_name,
            "about": about, "feeling": found.feeling, "correction": found.correction, "reading": found}


def _span(span: Any) -> Any:
    return None if span is None else [span.start.isoformat(), span.end.isoformat(), span.text, span.kind, span.yearless]


def record(row: Row, router: Router, distiller: Distiller) -> dict[str, Any]:
    source, ident, memories, message = row
    found = reading_of(message, memories)
    reading, plan = found["reading"], found["plan"]
    route, distilled = router.route(reading), distiller.distill(message, reading.clauses)
    return {
        "source": source, "id": ident, "message": message,
        "reply": {"kind": plan.kind, "text": plan.text, "model_after": plan.model_after},
        "route": {"kind": route.kind, "tools": list(route.tools), "arguments": route.arguments,
                  "reason": route.reason, "first": route.first},
        "distill": {"gate": distilled.gate, "correction": found["correction"],
                    "candidates": [[c.text, c.route, list(c.key) if c.key else None, c.rule]
                                   for c in distilled.candidates],
                    "rejected": [list(pair) for pair in distilled.rejected]},
        "read": {"clauses": [[c.text, c.act] for c in found["clauses"]], "language": found["language"],
                 "recap": _span(found["recap"]), "small_talk": found["small_talk"], "name": found["name"],
                 "about": found["about"], "feeling": found["feeling"], "numbers": message_numbers(reading),
                 "dates": [_span(span) for span in reading.dates]},
    }


def record_all(out: Path, data: Path | None) -> int:
    with tempfile.TemporaryDirectory() as folder:
        tasks = Path(folder) / "tasks"
        build_task_set(tasks, seed=0)
        sources = ToolSources(today=NOW.date, notes_dir=tasks / "notes", db_file=tasks / "sample.db",
                              recall=lambda query, k: [], cache_dir=Path(folder) / "cache")
        router = Router({tool.name: tool for tool in build_tools(sources)})
        distiller = Distiller(None, gate=Gate(None))
        rows = [*tool_rows(tasks), *reply_set_rows(), *shared_rows(data)]
        lines = [json.dumps(record(row, router, distiller), ensure_ascii=False, sort_keys=True)
                 for row in rows]
    partial = out.with_name(out.name + ".partial")
    partial.write_text("\n".join(lines) + "\n", encoding="utf-8")
    partial.replace(out)
    print(f"{len(lines)} readings written to {out}")
    return 0


def _load(path: Path) -> dict[tuple[str, str, str], dict[str, Any]]:
    try:
        rows = _jsonl(path)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read recording {path}: {exc}") from None
    return {(row["source"], row["id"], row["message"]): row for row in rows}


def _differences(before: Any, after: Any, where: str = "") -> Iterator[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            yield from _differences(before.get(key), after.get(key), f"{where}.{key}" if where else key)
    elif before != after:
        yield f"  {where}: {json.dumps(before, ensure_ascii=False)} -> {json.dumps(after, ensure_ascii=False)}"


def compare(first: Path, second: Path) -> int:
    before, after = _load(first), _load(second)
    changed = 0
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            print(f"{key[0]} {key[1]}: only in {'the second' if key not in before else 'the first'}: {key[2]!r}")
            changed += 1
            continue
        lines = list(_differences(before[key], after[key]))
        if lines:
            changed += 1
            print(f"{key[0]} {key[1]}: {key[2]!r}", *lines, sep="\n")
    print(f"{changed} of {len(set(before) | set(after))} readings differ")
    return 1 if changed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, help="where to write the recording (JSON Lines)")
    parser.add_argument("--data", type=Path, help="a folder with locomo-dev.json and distill-dev.jsonl")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    try:
        if args.compare:
            return compare(*args.compare)
        if args.out is None:
            parser.error("give OUT.jsonl, or --compare BEFORE AFTER")
        return record_all(args.out, args.data)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
