"""Issue 23, item 1: a note under the size cap (about 1 MB, some 2,000 chunks to embed) kept
`ask --notes` running for minutes and blocked the server: the search went on embedding after
its time limit, and the turn's memory work waited on the same embedder. Now `ask` returns
within the tool timeout plus a few seconds, a request queued behind it waits no longer, and
the next search goes on with the partial index. The real CLI and the real embedder, on the
scripted model (the model's own speed is not under test here)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from local_agent.memory.store.datadir import TOOL_CACHE_NAME
from local_agent.tools.notes_files import MAX_NOTE_BYTES
from local_agent.tools.notes_search import cache_file_for

from .server_helpers import ROOT, chat_body, start_process

TOOL_TIMEOUT = 5
BOUND_S = 20.0  # the bound for --tool-timeout 5
QUESTION = "Search my notes: what did I note about the garden?"
KEY = "notes-key-0123456789"

pytestmark = pytest.mark.slow


def _large_note(folder: Path) -> Path:
    """One Markdown note just under the size cap, of paragraphs of ordinary words."""
    words = ("the garden tomato basil water soil seed spring summer rain sun kitchen book letter river "
             "mountain dog cat walk morning evening").split()
    rng = random.Random(23)
    paragraphs: list[str] = []
    size = 0
    while size < MAX_NOTE_BYTES - 50_000:
        paragraph = " ".join(rng.choice(words) for _ in range(80)) + "."
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    folder.mkdir(parents=True)
    (folder / "journal.md").write_text("\n\n".join(paragraphs), encoding="utf-8")
    return folder


def _embedded(data_dir: Path, notes: Path) -> int:
    cache = json.loads(cache_file_for(notes, data_dir / TOOL_CACHE_NAME).read_text(encoding="utf-8"))
    vectors = cache["files"]["journal.md"]["vectors"]
    return 0 if vectors is None else int(vectors["shape"][0])


def _ask(data_dir: Path, notes: Path) -> tuple[float, dict]:
    command = [sys.executable, "-m", "tests.serve_scripted", "ask", "--no-server", "--json",
               "--data-dir", str(data_dir), "--notes", str(notes), "--tool-timeout", str(TOOL_TIMEOUT),
               "--max-tokens", "16", QUESTION]
    start = time.monotonic()
    done = subprocess.run(command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=3 * BOUND_S)
    took = time.monotonic() - start
    assert done.returncode == 0, done.stderr
    return took, json.loads(done.stdout)


def test_ask_with_a_large_note_returns_in_time_and_the_next_ask_goes_on(tmp_path: Path) -> None:
    notes = _large_note(tmp_path / "notes")
    data_dir = tmp_path / "data"
    took, first = _ask(data_dir, notes)
    assert took < BOUND_S
    [call] = [call for call in first["tool_calls"] if call["name"] == "notes_search"][:1]
    assert call["error"] is None and call["seconds"] < TOOL_TIMEOUT and "[journal.md]" in call["result"]
    after_first = _embedded(data_dir, notes)
    took, _ = _ask(data_dir, notes)
    assert took < BOUND_S
    assert _embedded(data_dir, notes) > after_first  # the partial index was kept and extended


def test_a_request_queued_behind_a_large_note_waits_no_longer_than_the_bound(tmp_path: Path) -> None:
    notes = _large_note(tmp_path / "notes")
    process, url = start_process(tmp_path / "data", "--notes", str(notes), "--tool-timeout", str(TOOL_TIMEOUT),
                                 api_key=KEY)
    headers = {"Authorization": f"Bearer {KEY}"}
    first: dict[str, float | int] = {}

    def search() -> None:
        start = time.monotonic()
        response = httpx.post(url + "/v1/chat/completions", json=chat_body(QUESTION), headers=headers,
                              timeout=3 * BOUND_S)
        first.update(status=response.status_code, took=time.monotonic() - start)

    try:
        searching = threading.Thread(target=search)
        searching.start()
        time.sleep(1.0)  # the search has started
        start = time.monotonic()
        plain = httpx.post(url + "/v1/chat/completions", json=chat_body("Hello there."), headers=headers,
                           timeout=3 * BOUND_S)
        waited = time.monotonic() - start
        searching.join(3 * BOUND_S)
    finally:
        process.terminate()
        process.wait(30)
    assert plain.status_code == 200 and waited < BOUND_S
    assert first["status"] == 200 and first["took"] < BOUND_S
