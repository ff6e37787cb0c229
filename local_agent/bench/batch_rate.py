"""`batch --parallel N`: conversations per minute at N = 1, 2 and 4, and whether the records
are the ones `--parallel 1` writes.

The input is SESSIONS conversations of TURNS everyday turns each, interleaved line by line.
Two inputs: with --no-memory, and with memory on where each conversation is its own memory
namespace (`user`), so that conversations can run side by side. Each run is `local-agent batch`
in a fresh process and data dir, timed from start to exit (model load included, as a user
waits for it); the counts take turns in rotating order, round after round. A run's records
are compared with the same round's --parallel 1 records, timings and memory ids aside.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ..config import Settings
from ..errors import LocalAgentError
from .machine import load_average
from .stats import spread

COUNTS = (1, 2, 4)
SESSIONS = 8
TURNS = 3
MAX_TOKENS = 64
OPENERS = ("Hi! I just moved to {city} and I work as a {job}.", "Can you suggest a dinner with {food}?",
           "What is a good way to spend a rainy Sunday in {city}?")
PEOPLE = [("Lisbon", "nurse", "lentils"), ("Oslo", "carpenter", "salmon"), ("Kyoto", "teacher", "tofu"),
          ("Lima", "pilot", "potatoes"), ("Accra", "baker", "plantains"), ("Quebec", "chemist", "maple syrup"),
          ("Perth", "florist", "lamb"), ("Bergen", "librarian", "cod")]


def batch_input(memory: bool) -> list[dict[str, Any]]:
    """SESSIONS conversations of TURNS turns, interleaved; with memory, a namespace each."""
    lines = []
    for turn in range(TURNS):
        for index, (city, job, food) in enumerate(PEOPLE[:SESSIONS]):
            line: dict[str, Any] = {"session": f"c{index}",
                                    "input": OPENERS[turn].format(city=city, job=job, food=food)}
            if memory:
                line["user"] = f"person{index}"
            lines.append(line)
    return lines


def batch_command(settings: Settings, source: Path, out: Path, data_dir: str, parallel: int, memory: bool) -> list[str]:
    command = [sys.executable, "-m", "local_agent", "batch", str(source), "--output", str(out), "--quiet",
               "--parallel", str(parallel), "--max-tokens", str(MAX_TOKENS), "--data-dir", data_dir,
               "--model", settings.model, "--ctx-size", str(settings.ctx_size)]
    if settings.threads:
        command += ["--threads", str(settings.threads)]
    return command + ([] if memory else ["--no-memory"])


def comparable(path: Path) -> list[dict[str, Any]]:
    """A run's records without what depends on timing: timings and new memories' ids."""
    # JSON Lines end at "\n" only (str.splitlines() also cuts at U+0085 inside a record)
    return without_timing([json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line])


def without_timing(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`records` without what depends on timing: timings and new memories' ids (changed in place)."""
    for record in records:
        record.pop("timings", None)
        for key in ("memories_saved", "memories_recalled"):
            for memory in record.get(key) or []:
                memory.pop("id", None)
    return records


def _run(command: list[str], models_dir: Path) -> float:
    env = {**os.environ, "LOCAL_AGENT_CONFIG": os.devnull, "LOCAL_AGENT_MODELS_DIR": str(models_dir)}
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise LocalAgentError(f"batch --parallel failed ({done.returncode}): {done.stderr.strip()[-300:]}")
    return time.perf_counter() - start


def measure_batch_rate(settings: Settings, reps: int, memory: bool, counts: tuple[int, ...] = COUNTS
                       ) -> dict[str, Any]:
    """`reps` rounds after a warm-up round; conversations per minute per count, the ratio to
    --parallel 1 within each round, and the share of lines whose record differs from it."""
    walls: dict[int, list[float]] = {count: [] for count in counts}
    ratios: dict[int, list[float]] = {count: [] for count in counts}
    differing: dict[int, list[float]] = {count: [] for count in counts}
    start_load = load_average()
    with tempfile.TemporaryDirectory(prefix="local-agent-bench-") as folder:
        source = Path(folder) / "input.jsonl"
        source.write_text("".join(json.dumps(line) + "\n" for line in batch_input(memory)), encoding="utf-8")
        for index in range(reps + 1):
            order = counts[index % len(counts):] + counts[: index % len(counts)]
            measured: dict[int, tuple[float, list[dict[str, Any]]]] = {}
            for count in order:
                out = Path(folder) / f"out-{index}-{count}.jsonl"
                with tempfile.TemporaryDirectory(prefix="local-agent-bench-") as data_dir:
                    wall = _run(batch_command(settings, source, out, data_dir, count, memory), settings.models_dir)
                measured[count] = (wall, comparable(out))
            if index:
                base_wall, base_records = measured[counts[0]]
                for count, (wall, records) in measured.items():
                    walls[count].append(wall)
                    ratios[count].append(base_wall / wall)
                    differing[count].append(sum(a != b for a, b in zip(records, base_records)) / len(records))
    return {"memory": memory, "sessions": SESSIONS, "turns": TURNS, "max_tokens": MAX_TOKENS,
            "load_average_start": start_load, "load_average_end": load_average(),
            "rows": [{"parallel": count, "wall_s": spread(walls[count]),
                      "conversations_per_min": spread([SESSIONS * 60 / wall for wall in walls[count]]),
                      "vs_parallel_1": spread(ratios[count]), "share_differing": spread(differing[count])}
                     for count in counts]}
