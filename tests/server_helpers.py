"""Helpers for the server tests: a real server on a free loopback port (in a thread, or in a
process of its own), and a slow scripted model to interrupt."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

from local_agent.backends.base import Backend
from local_agent.config import CHECKOUT_MODELS_DIR, Settings
from local_agent.server.options import ServerOptions
from local_agent.server.run import LocalServer

from .fakes import ScriptedBackend, ScriptedFactory

ROOT = Path(__file__).resolve().parent.parent


class SlowBackend(ScriptedBackend):
    """Writes `words` chunks, `delay` seconds apart; `runs` holds how many chunks each call
    wrote before it ended or was stopped."""

    name = "slow"

    def __init__(self, words: int = 200, delay: float = 0.05) -> None:
        super().__init__()
        self.words = words
        self.delay = delay
        self.runs: list[int] = []
        self.started = threading.Event()

    def _stream(self, messages, settings, json_schema, usage):
        self.prompts.append(list(messages))
        usage.prompt_tokens = self.count_prompt_tokens(messages)
        produced = 0
        try:
            for index in range(self.words):
                self.started.set()
                time.sleep(self.delay)
                produced += 1
                yield f" w{index}" if index else f"w{index}"
            usage.completion_tokens = produced
        finally:
            self.runs.append(produced)


def server_settings(data_dir: Path, **overrides: Any) -> Settings:
    """Settings for a test server, independent of the environment."""
    return replace(Settings(data_dir=data_dir, models_dir=CHECKOUT_MODELS_DIR), **overrides)


def wait_ready(url: str, headers: dict[str, str] | None = None, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            response = httpx.get(url + "/health", headers=headers, timeout=2)
            if response.status_code == 200 and response.json()["status"] == "ok":
                return
        time.sleep(0.05)
    raise TimeoutError(f"the server at {url} did not get ready")


@contextlib.contextmanager
def running_server(settings: Settings, backend: Backend, **options: Any) -> Iterator[LocalServer]:
    """A LocalServer on `backend`, 127.0.0.1 and a free port, served from a thread, ready."""
    server = LocalServer(settings, ServerOptions(**{"port": 0, **options}), backend_factory=ScriptedFactory(backend))
    server.bind()
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    key = options.get("api_key")
    try:
        wait_ready(server.url, {"Authorization": f"Bearer {key}"} if key else None)
        yield server
    finally:
        server.stop()
        thread.join(60)
    assert not thread.is_alive(), "the server did not stop"


def start_process(data_dir: Path, *args: str, scripted: bool = True, hash_embedder: bool = False,
                  env: dict[str, str] | None = None, api_key: str | None = None) -> tuple[subprocess.Popen[str], str]:
    """`local-agent serve --port 0` in a process of its own (scripted model unless told
    otherwise, with `api_key` when given); returns the process and its URL, once it is ready."""
    command = [sys.executable, "-m", "tests.serve_scripted"] if scripted else [sys.executable, "-m", "local_agent"]
    if hash_embedder:
        command.append("--hash-embedder")
    command += ["serve", "--port", "0", "--data-dir", str(data_dir), *args]
    environment = {**os.environ, **(env or {}), **({"LOCAL_AGENT_API_KEY": api_key} if api_key else {})}
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=environment)
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith("listening on "):
        process.kill()
        raise RuntimeError(f"the server did not start: {line!r} {process.stderr.read() if process.stderr else ''}")
    url = line.removeprefix("listening on ")
    wait_ready(url, {"Authorization": f"Bearer {api_key}"} if api_key else None)
    return process, url


def chat_body(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "scripted", "messages": [{"role": "user", "content": text}], **extra}
