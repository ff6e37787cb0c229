"""Write the whole task set into a folder: tasks.jsonl, notes/ and sample.db."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from .arithmetic import arithmetic_tasks
from .common import Task
from .dates import date_tasks
from .memory import memory_tasks
from .notes import notes_tasks
from .sql import build_database, sql_tasks

FORMAT_VERSION = 1
TODAY = "2025-03-14"  # the today of tasks whose answer does not depend on it
COUNTS = {"arithmetic": 40, "date": 40, "memory": 27, "sql": 40}


def build_task_set(out: Path, seed: int = 0) -> dict[str, Any]:
    """Generate every task from `seed` into `out` (which must be empty or missing); the same
    seed gives byte-identical files. Returns the manifest, also written as manifest.json."""
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} is not empty")
    (out / "notes").mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    database = out / "sample.db"
    build_database(database, rng)
    tasks: list[Task] = [
        *arithmetic_tasks(rng, COUNTS["arithmetic"], TODAY),
        *date_tasks(rng, COUNTS["date"]),
        *memory_tasks(rng, COUNTS["memory"], TODAY),
        *notes_tasks(out / "notes", rng, TODAY),
        *sql_tasks(database, rng, COUNTS["sql"], TODAY),
    ]
    with (out / "tasks.jsonl").open("w", encoding="utf-8") as handle:
        for task in tasks:
            handle.write(json.dumps(task.to_dict(), ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for task in tasks:
        counts[task.category] = counts.get(task.category, 0) + 1
    manifest = {"format_version": FORMAT_VERSION, "seed": seed, "counts": counts,
                "notes_dir": "notes", "database": "sample.db", "tasks": "tasks.jsonl"}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return manifest
