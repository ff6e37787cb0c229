"""Three front ends writing one data dir at once: an MCP server (`remember`, through its SDK
client), `local-agent memory add` processes and `serve` (POST /v1/memories), each its own
process with its own open store. The MCP and serve writers go on until the last `memory add`
has exited, so every write of theirs crosses the others'. The store's lock orders them: no
write is lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import httpx
import pytest

from .mcp_helpers import ROOT, connected, data_of, server_env
from .server_helpers import start_process

STATEMENTS = ["I work as a carpenter.", "I was born in Oslo.", "My sister is called Ingrid.",
              "I am allergic to peanuts.", "I play the violin.", "My dog is called Rex."]
ADDS = 4  # `memory add` processes, started together
POSTS = 12  # memories added through serve


def statement(n: int) -> str:
    return STATEMENTS[n] if n < len(STATEMENTS) else f"I have been to the town of Lund {n} times."


def _mcp_writer(data_dir: Path, start: threading.Barrier, done: threading.Event, said: list[str],
                saved: list[str]) -> None:
    async def scenario() -> None:
        async with connected("stdio", data_dir) as client:
            await client.call_tool("recall", {"query": "warm up"})  # the embedder and the store, loaded
            await client.call_tool("ask", {"question": "Hello?"})  # and the model
            start.wait()
            while len(said) < len(STATEMENTS) or not done.is_set():
                text = statement(len(said))
                result = data_of(await client.call_tool("remember", {"text": text}))
                assert result["saved"], text  # added, or refreshed (the same count, said again)
                said.append(text)
                saved.extend(item["memory"]["id"] for item in result["saved"])
    anyio.run(scenario)


def _cli_writer(data_dir: Path, start: threading.Barrier, done: threading.Event) -> None:
    environment = {**os.environ, **server_env(data_dir)}
    start.wait()
    processes = [subprocess.Popen([sys.executable, "-m", "local_agent", "memory", "add", f"note {n} from memory add"],
                                  cwd=ROOT, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                 for n in range(ADDS)]
    try:
        for process in processes:
            _, err = process.communicate(timeout=300)
            assert process.returncode == 0, err
    finally:
        done.set()


def _serve_writer(url: str, start: threading.Barrier, done: threading.Event, posted: list[str]) -> None:
    start.wait()
    while len(posted) < POSTS or not done.is_set():
        text = f"note {len(posted)} from serve"
        httpx.post(url + "/v1/memories", json={"text": text}, timeout=120).raise_for_status()
        posted.append(text)


@pytest.mark.slow
def test_mcp_memory_add_and_serve_write_at_once_and_lose_nothing(data_dir: Path) -> None:
    serve, url = start_process(data_dir)
    said: list[str] = []
    saved: list[str] = []
    posted: list[str] = []
    start, done = threading.Barrier(3, timeout=300), threading.Event()
    failures: list[BaseException] = []

    def guarded(target, *args) -> None:
        try:
            target(*args)
        except BaseException as exc:  # reported below, with the thread's own traceback
            failures.append(exc)
            start.abort()
            done.set()

    threads = [threading.Thread(target=guarded, args=(_mcp_writer, data_dir, start, done, said, saved)),
               threading.Thread(target=guarded, args=(_cli_writer, data_dir, start, done)),
               threading.Thread(target=guarded, args=(_serve_writer, url, start, done, posted))]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(600)
    finally:
        serve.terminate()
        serve.wait(60)
    assert not failures, failures
    listed = subprocess.run([sys.executable, "-m", "local_agent", "memory", "list", "--all-versions", "--json"],
                            cwd=ROOT, check=True, env={**os.environ, **server_env(data_dir)}, capture_output=True,
                            text=True)
    records = json.loads(listed.stdout)
    texts = {record["text"] for record in records}
    assert {f"note {n} from memory add" for n in range(ADDS)} <= texts
    assert len(posted) >= POSTS and set(posted) <= texts
    assert set(saved) <= {record["id"] for record in records}  # every fact MCP saved is there
    sources = {record["provenance"].get("source_text") for record in records}
    assert len(said) >= len(STATEMENTS) and set(STATEMENTS) <= sources
    doctor = subprocess.run([sys.executable, "-m", "local_agent", "memory", "doctor"], cwd=ROOT, check=False,
                            env={**os.environ, **server_env(data_dir)}, capture_output=True, text=True)
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
