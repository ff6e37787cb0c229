"""Benchmark workers: long-lived child processes that each load a model once and answer timed
requests, one JSON line each way, so that runs of two setups (raw llama-cpp-python and the
product's backend, or two thread-wait environments) can take turns under the same load.

The thread-wait variables are read once, when libgomp loads, so every environment compared
needs a process of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from ..config import Settings
from ..errors import LocalAgentError
from ..process.omp_env import OPENMP_PREFIXES

RAW_WORKER = Path(__file__).with_name("raw_worker.py")
PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding local_agent/


def library_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (the current environment) without any OpenMP variable: llama-cpp-python as it
    runs when nothing tunes it, whatever the product or the user set."""
    base = os.environ if base is None else base
    return {name: value for name, value in base.items() if not name.startswith(OPENMP_PREFIXES)}


def with_env(changes: Mapping[str, str], base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The library's environment plus `changes` (e.g. OMP_WAIT_POLICY=PASSIVE)."""
    return {**library_env(base), **changes}


class Worker:
    """One child process speaking the JSON-lines protocol of raw_worker.py."""

    def __init__(self, command: list[str], env: Mapping[str, str], label: str) -> None:
        self.label = label
        self._errors = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the worker; closed in close())
        self._process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self._errors, env=dict(env), text=True)
        self.ready = self._read()

    def ask(self, **request: Any) -> dict[str, Any]:
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
        except BrokenPipeError:
            raise LocalAgentError(f"benchmark worker {self.label} died: {self._stderr_tail()}") from None
        return self._read()

    def _read(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            self._process.wait()
            raise LocalAgentError(f"benchmark worker {self.label} exited ({self._process.returncode}): "
                                  f"{self._stderr_tail()}")
        return json.loads(line)

    def _stderr_tail(self) -> str:
        self._errors.seek(0)
        return " | ".join(self._errors.read().decode("utf-8", "replace").strip().splitlines()[-3:])

    def close(self) -> None:
        if self._process.stdin is not None and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        self._errors.close()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


def raw_worker(gguf: Path, threads: int, context: int, env: Mapping[str, str], label: str = "raw",
               device: str = "cpu") -> Worker:
    """Raw llama-cpp-python with its defaults (sampler included) in environment `env`; on
    CUDA with every layer offloaded, as the backend does."""
    command = [sys.executable, str(RAW_WORKER), str(gguf), str(threads), str(context),
               "-1" if device == "cuda" else "0"]
    return Worker(command, env, label)


def backend_worker(settings: dict[str, Any], label: str = "backend", env: Mapping[str, str] | None = None) -> Worker:
    """The product's backend, by default in the environment the package gives itself (the
    parent's, where the package has already applied its thread-wait policy)."""
    command = [sys.executable, "-m", "local_agent.bench.backend_worker", json.dumps(settings)]
    env = dict(os.environ if env is None else env)
    # The same package as this process's, wherever it was imported from.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PACKAGE_ROOT), env.get("PYTHONPATH")]))
    return Worker(command, env, label)


class Competitor:
    """One CPU-bound process (a Python busy loop) running while the block runs."""

    def __enter__(self) -> Competitor:
        self._process = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.2)  # under way before the measurement starts
        return self

    def __exit__(self, *exc: object) -> None:
        self._process.kill()
        self._process.wait()


def worker_settings(settings: Settings) -> dict[str, Any]:
    """What backend_worker.py needs of `settings`, as JSON."""
    names = ("model", "backend", "device", "ctx_size", "threads", "temperature", "top_p", "repeat_penalty", "seed")
    return {**{name: getattr(settings, name) for name in names}, "models_dir": str(settings.models_dir)}
