"""Cold start: wall time of `local-agent ask "hi"` in a fresh process and data dir."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

from ..config import Settings
from ..errors import LocalAgentError
from .stats import spread


def ask_command(settings: Settings, data_dir: str, memory: bool, max_tokens: int) -> list[str]:
    """The command line of one cold start: the benchmark's settings as flags, since the
    child reads no config file (see `_time_process`)."""
    command = [sys.executable, "-m", "local_agent", "ask", "--max-tokens", str(max_tokens),
               "--data-dir", data_dir, "--model", settings.model, "--ctx-size", str(settings.ctx_size)]
    if settings.threads:
        command += ["--threads", str(settings.threads)]
    for name in ("backend", "device"):
        if getattr(settings, name) != "auto":
            command += [f"--{name}", getattr(settings, name)]
    return command + ([] if memory else ["--no-memory"]) + ["hi"]


def _time_process(command: list[str], models_dir: Path) -> tuple[float, float]:
    """(seconds to the first byte of the answer on stdout, seconds to exit) of `command`,
    run without the user's config file."""
    env = {**os.environ, "LOCAL_AGENT_CONFIG": os.devnull, "LOCAL_AGENT_MODELS_DIR": str(models_dir)}
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, env=env) as process:
            assert process.stdout is not None
            process.stdout.read(1)  # ask streams the answer and flushes every chunk
            first = time.perf_counter() - start
            process.stdout.read()
        total = time.perf_counter() - start
        if process.returncode != 0:
            raise LocalAgentError(f"{' '.join(command[2:5])} failed: {_tail(errors)}")
    return first, total


def _tail(stream: IO[bytes], lines: int = 3) -> str:
    stream.seek(0)
    return " | ".join(stream.read().decode("utf-8", "replace").strip().splitlines()[-lines:])


def measure_cold_start(settings: Settings, memory: bool, reps: int, max_tokens: int = 16,
                       warm_up: bool = True) -> dict[str, Any]:
    """Wall time of `local-agent ask "hi"` from process start to the answer, each run in a
    fresh data dir (with memory: the store is created and the embedder loaded)."""
    firsts, totals = [], []
    for index in range(reps + int(warm_up)):
        with tempfile.TemporaryDirectory(prefix="local-agent-bench-") as data_dir:
            first, total = _time_process(ask_command(settings, data_dir, memory, max_tokens), settings.models_dir)
        if index >= int(warm_up):
            firsts.append(first)
            totals.append(total)
    return {"memory": memory, "to_answer_s": spread(firsts), "exit_s": spread(totals)}


def measure_saved_state(settings: Settings, reps: int, max_tokens: int = 8) -> dict[str, Any]:
    """`ask --no-memory "hi"` again and again on one data dir, as a shell loop runs it: with
    the system prompt's saved llama.cpp state (backends/llama_state.py), and with the saved
    states deleted before the run so that it evaluates the system prompt and saves it again.
    The two take turns; the first pair warms up."""
    times: dict[str, list[float]] = {"saved": [], "evaluated": []}
    with tempfile.TemporaryDirectory(prefix="local-agent-bench-") as data_dir:
        command = ask_command(settings, data_dir, False, max_tokens)
        states = Path(data_dir) / "cache" / "llama-state"
        for index in range(reps + 1):
            for case in ("saved", "evaluated") if index % 2 == 0 else ("evaluated", "saved"):
                if case == "evaluated":
                    for state in states.glob("*.state"):
                        state.unlink()
                _, total = _time_process(command, settings.models_dir)
                if index:
                    times[case].append(total)
    return {"exit_s_saved": spread(times["saved"]), "exit_s_evaluated": spread(times["evaluated"]),
            "saved_minus_evaluated_s": spread([a - b for a, b in zip(times["saved"], times["evaluated"])])}
