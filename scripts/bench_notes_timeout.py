#!/usr/bin/env python
"""Issue 23, item 1: how long a notes search over a note just under the size cap (about 1 MB,
some 2,000 chunks) keeps `ask` and a server busy, with --tool-timeout 5 (or --timeout).

- `local-agent ask --notes DIR --tool-timeout 5 --max-tokens 16 "Search my notes: ..."`, run
  --asks times on one fresh data dir: wall time to exit, the notes_search call's own seconds,
  and how many chunks the cached index holds vectors for afterwards (it grows ask by ask);
- `local-agent serve --notes DIR --tool-timeout 5` (API key from the environment): the same
  question, and a plain request sent a second later; how long each waited.

The real model and embedder (or --model); a fresh temporary data dir and notes folder.
Prints a markdown table and writes bench-results/notes_timeout.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "Search my notes: what did I note about the garden?"
WORDS = ("the garden tomato basil water soil seed spring summer rain sun kitchen book letter river "
         "mountain dog cat walk morning evening").split()
NOTE_BYTES = 1_000_072


def write_note(folder: Path) -> None:
    """One Markdown note of NOTE_BYTES bytes (under MAX_NOTE_BYTES), paragraphs of 80 words."""
    rng = random.Random(23)
    paragraphs, size = [], 0
    while size < NOTE_BYTES:
        paragraph = " ".join(rng.choice(WORDS) for _ in range(80)) + "."
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    folder.mkdir(parents=True)
    (folder / "big.md").write_text("\n\n".join(paragraphs)[:NOTE_BYTES], encoding="utf-8")


def environment(data_dir: Path, key: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("LOCAL_AGENT_")}
    env.update(LOCAL_AGENT_DATA_DIR=str(data_dir), LOCAL_AGENT_CONFIG=str(data_dir / "none.toml"),
               LOCAL_AGENT_API_KEY=key)
    return env


def embedded(data_dir: Path) -> int:
    [cache] = (data_dir / "tool-cache").glob("notes-*.json")
    vectors = json.loads(cache.read_text(encoding="utf-8"))["files"]["big.md"]["vectors"]
    return 0 if vectors is None else int(vectors["shape"][0])


def one_ask(notes: Path, env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, "-m", "local_agent", "ask", "--no-server", "--json", "--notes", str(notes),
               "--tool-timeout", str(args.timeout), "--max-tokens", "16", *args.model, QUESTION]
    start = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=args.limit,
                          check=False)
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit(f"ask failed: {done.stderr.strip()[-300:]}")
    record = json.loads(done.stdout)
    calls = [call for call in record["tool_calls"] if call["name"] == "notes_search"]
    return {"wall_s": round(wall, 2), "notes_search_s": [round(call["seconds"], 2) for call in calls],
            "timed_out": any(call["error"] for call in calls), "tools_s": round(record["timings"].get("tools_s", 0), 2),
            "embedded_chunks": embedded(Path(env["LOCAL_AGENT_DATA_DIR"]))}


def served(notes: Path, env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, "-m", "local_agent", "serve", "--port", "0", "--no-socket", "--notes", str(notes),
               "--tool-timeout", str(args.timeout), *args.model]
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               text=True)
    assert process.stdout is not None
    url = process.stdout.readline().strip().removeprefix("listening on ")
    headers = {"Authorization": f"Bearer {env['LOCAL_AGENT_API_KEY']}"}
    try:
        _wait_ready(url, headers)
        first: dict[str, float] = {}

        def search() -> None:
            start = time.monotonic()
            httpx.post(url + "/v1/chat/completions", headers=headers, timeout=args.limit,
                       json={"messages": [{"role": "user", "content": QUESTION}], "max_tokens": 16})
            first["took_s"] = round(time.monotonic() - start, 2)

        thread = threading.Thread(target=search)
        thread.start()
        time.sleep(1.0)
        start = time.monotonic()
        httpx.post(url + "/v1/chat/completions", headers=headers, timeout=args.limit,
                   json={"messages": [{"role": "user", "content": "Hello there."}], "max_tokens": 16})
        waited = round(time.monotonic() - start, 2)
        thread.join(args.limit)
        return {"search_request_s": first.get("took_s"), "plain_request_sent_1s_later_s": waited}
    finally:
        process.terminate()
        process.wait(60)


def _wait_ready(url: str, headers: dict[str, str]) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/health", headers=headers, timeout=2).json().get("status") == "ok":
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise SystemExit("the server did not get ready")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asks", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=5.0, help="--tool-timeout")
    parser.add_argument("--limit", type=float, default=300.0, help="give up on one command after this many s")
    parser.add_argument("--model", default=None)
    args = parser.parse_args()
    args.model = ["--model", args.model] if args.model else []
    with tempfile.TemporaryDirectory() as scratch:
        notes = Path(scratch) / "notes"
        write_note(notes)
        env = environment(Path(scratch) / "data", secrets.token_hex(16))
        asks = [one_ask(notes, env, args) for _ in range(args.asks)]
        server = served(notes, environment(Path(scratch) / "served", env["LOCAL_AGENT_API_KEY"]), args)
    result = {"tool_timeout_s": args.timeout, "note_bytes": NOTE_BYTES, "asks": asks, "server": server,
              "loadavg_after": os.getloadavg()}
    out = ROOT / "bench-results" / "notes_timeout.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print("| run | wall s | notes_search s | chunks embedded after |\n|---|---|---|---|")
    for number, ask in enumerate(asks, 1):
        print(f"| ask {number} | {ask['wall_s']} | {', '.join(map(str, ask['notes_search_s']))} "
              f"| {ask['embedded_chunks']} |")
    print(f"| serve: the search request | {server['search_request_s']} | | |")
    print(f"| serve: a plain request sent 1 s later | {server['plain_request_sent_1s_later_s']} | | |")


if __name__ == "__main__":
    main()
