#!/usr/bin/env python
"""How soon `local-agent mcp` answers its first `tools/list` (issue 31: within 1 s of start,
bytecode cached; the model and the embedder load on the first call that needs them).

Each run starts the command with a fresh data dir, writes `initialize`, `notifications/initialized`
and `tools/list` on its stdin at once (as a client does), and times from the start of the process
to the `tools/list` answer on its stdout; then closes stdin and waits for the exit. Beside the
wall time it reads the CPU time the process had used by then (user + system, from /proc): on a
busy machine that is what the start would take on an idle core. Three ways:

- cached: bytecode in __pycache__ (one run first writes it);
- PYTHONDONTWRITEBYTECODE=1: the same caches read, none written (a Docker-style setting);
- no bytecode: PYTHONDONTWRITEBYTECODE=1 and an empty PYTHONPYCACHEPREFIX, so every module is
  compiled from source on each start (a read-only install with no caches).

    python scripts/bench_mcp_start.py [--reps 7] [--command "local-agent mcp"] [--json]

Run it under the exclusive CPU lock and give `cat /proc/loadavg` with the numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_COMMAND = [sys.executable, "-m", "local_agent", "mcp"]
LIMIT_S = 60.0
MESSAGES = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def cpu_seconds(pid: int) -> float:
    """User + system CPU time process `pid` has used (all its threads), or NaN off Linux."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def first_tools_list(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds from starting `command` to its answer to tools/list (id 2): wall, and the CPU
    time the process had used by then."""
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as folder:
        env = {**env, "LOCAL_AGENT_DATA_DIR": str(Path(folder) / "data"),
               "LOCAL_AGENT_CONFIG": str(Path(folder) / "no-config.toml")}
        start = time.perf_counter()
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                   env=env, text=True)
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("".join(json.dumps(message) + "\n" for message in MESSAGES))
        process.stdin.flush()
        try:
            for line in process.stdout:
                if json.loads(line).get("id") == 2:
                    elapsed, cpu = time.perf_counter() - start, cpu_seconds(process.pid)
                    tools = json.loads(line)["result"]["tools"]
                    break
                if time.perf_counter() - start > LIMIT_S:
                    raise TimeoutError("no tools/list answer")
            else:
                raise RuntimeError(f"the server exited without answering (code {process.wait()})")
        finally:
            process.stdin.close()
            process.wait(30)
        if not tools:
            raise RuntimeError("tools/list answered no tools")
        return elapsed, cpu


def measure(command: list[str], env: dict[str, str], reps: int) -> dict[str, float | list[float]]:
    runs = [first_tools_list(command, env) for _ in range(reps)]
    times, cpus = [wall for wall, _ in runs], [cpu for _, cpu in runs]
    return {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3),
            "max_s": round(max(times), 3), "cpu_median_s": round(statistics.median(cpus), 3),
            "runs_s": [round(t, 3) for t in times]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--command", help="the command to start (default: this checkout's `python -m local_agent mcp`)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    command = shlex.split(args.command) if args.command else DEFAULT_COMMAND
    base = {**os.environ, "PYTHONPATH": str(ROOT)}
    base.pop("PYTHONDONTWRITEBYTECODE", None)
    base.pop("PYTHONPYCACHEPREFIX", None)
    first_tools_list(command, base)  # writes the bytecode caches
    with tempfile.TemporaryDirectory(prefix="bench-mcp-pycache-") as empty:
        report = {
            "load_before": Path("/proc/loadavg").read_text().strip() if Path("/proc/loadavg").exists() else "",
            "command": command,
            "cached": measure(command, base, args.reps),
            "PYTHONDONTWRITEBYTECODE=1": measure(command, {**base, "PYTHONDONTWRITEBYTECODE": "1"}, args.reps),
            "no bytecode": measure(command, {**base, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": empty},
                                   args.reps),
        }
    if args.json:
        print(json.dumps(report))
        return
    print(f"load before: {report['load_before']}")
    for name in ("cached", "PYTHONDONTWRITEBYTECODE=1", "no bytecode"):
        row = report[name]
        assert isinstance(row, dict)
        print(f"{name:<27} median {row['median_s']:.3f} s  (min {row['min_s']:.3f}, max {row['max_s']:.3f}, "
              f"{args.reps} runs; CPU time by then, median {row['cpu_median_s']:.3f} s)")


if __name__ == "__main__":
    main()
