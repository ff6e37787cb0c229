#!/usr/bin/env python
"""Issue 44, item 2: how long one big message keeps `serve` from answering the next request.

Against a real `local-agent serve` (the default model unless --model; a fresh data dir; memory
on unless the case turns it off), each case sends its big message and, --after seconds later
(3), a plain `hi`; it reports the status and seconds of both, and the journal afterwards (its
size and its longest line). The cases:

- `900 KB` (memory on, then off): first-person statements, about 900,000 characters, far over
  the message limit (limits.MAX_MESSAGE_CHARS);
- `6,000 characters of statements`: about the longest message of first-person statements
  that fits the default context (2,048 tokens), so the whole turn runs: recall, the answer,
  storing and distillation (which reads its first clauses, gate.MAX_CLAUSES);
- `limit, statements`: the most a message may hold, made of first-person statements;
- `limit, one word`: the most a message may hold, one word without a space (the tokenizer's
  hardest text).

Prints a markdown table, with the load average before and after, and writes
bench-results/big_message.json. Run it under `flock /tmp/la-cpu.lock` on a shared machine.
"""

from __future__ import annotations

import argparse
import json
import os
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
sys.path.insert(0, str(ROOT))
from local_agent.limits import MAX_MESSAGE_CHARS  # noqa: E402

STATEMENTS = ("I grow tomatoes on my balcony. My sister Aiko lives in Kyoto. I work as a nurse at night. "
              "I am allergic to peanuts. My dog is called Biscuit. I prefer tea to coffee. ")


def statements(chars: int) -> str:
    return (STATEMENTS * (chars // len(STATEMENTS) + 1))[:chars].rstrip()


CASES: list[tuple[str, str, bool]] = [
    ("900 KB, memory on", statements(900_000), True),
    ("900 KB, memory off", statements(900_000), False),
    ("6,000 characters of statements (fits the default context)", statements(6_000), True),
    ("limit, statements", statements(MAX_MESSAGE_CHARS), True),
    ("limit, one word", "a" * MAX_MESSAGE_CHARS, True),
]


def environment(data_dir: Path, key: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if not name.startswith("LOCAL_AGENT_")}
    env.update(LOCAL_AGENT_DATA_DIR=str(data_dir), LOCAL_AGENT_CONFIG=str(data_dir / "none.toml"),
               LOCAL_AGENT_API_KEY=key)
    return env


def post(url: str, headers: dict[str, str], text: str, memory: bool, limit: float) -> dict[str, Any]:
    start = time.monotonic()
    try:
        response = httpx.post(url + "/v1/chat/completions", headers=headers, timeout=limit,
                              json={"messages": [{"role": "user", "content": text}], "max_tokens": 16,
                                    "memory": memory})
    except httpx.HTTPError as exc:
        return {"status": type(exc).__name__, "seconds": round(time.monotonic() - start, 2)}
    body = response.json()
    said = body.get("error", {}).get("message") if response.status_code != 200 else \
        body["choices"][0]["message"]["content"]
    return {"status": response.status_code, "seconds": round(time.monotonic() - start, 2), "said": said[:160]}


def journal(data_dir: Path) -> dict[str, int]:
    path = data_dir / "memory" / "journal.jsonl"
    if not path.is_file():
        return {"bytes": 0, "longest_line": 0}
    lines = path.read_bytes().splitlines()
    return {"bytes": path.stat().st_size, "longest_line": max(map(len, lines), default=0)}


def one_case(url: str, headers: dict[str, str], case: tuple[str, str, bool], args: argparse.Namespace,
             data_dir: Path) -> dict[str, Any]:
    name, text, memory = case
    big: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: big.update(post(url, headers, text, memory, args.limit)))
    thread.start()
    time.sleep(args.after)
    plain = post(url, headers, "hi", True, args.limit)
    thread.join(args.limit)
    return {"case": name, "chars": len(text), "memory": memory, "big": big, "hi_sent_after_s": args.after,
            "hi": plain, "journal": journal(data_dir)}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--after", type=float, default=3.0, help="seconds between the big message and `hi`")
    parser.add_argument("--limit", type=float, default=600.0, help="give up on one request after this many s")
    parser.add_argument("--model", default=None)
    args = parser.parse_args()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as scratch:
        data_dir = Path(scratch) / "data"
        key = secrets.token_hex(16)
        command = [sys.executable, "-m", "local_agent", "serve", "--port", "0", "--no-socket",
                   *(["--model", args.model] if args.model else [])]
        process = subprocess.Popen(command, cwd=ROOT, env=environment(data_dir, key), stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        assert process.stdout is not None
        url = process.stdout.readline().strip().removeprefix("listening on ")
        headers = {"Authorization": f"Bearer {key}"}
        try:
            _wait_ready(url, headers)
            post(url, headers, "Hello.", False, args.limit)  # warm: the first request pays for nothing here
            results = [one_case(url, headers, case, args, data_dir) for case in CASES]
        finally:
            process.terminate()
            process.wait(60)
    report = {"max_message_chars": MAX_MESSAGE_CHARS, "loadavg_before": load_before,
              "loadavg_after": os.getloadavg(), "cases": results}
    out = ROOT / "bench-results" / "big_message.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"load average before {load_before}, after {report['loadavg_after']}")
    print(f"| case | characters | big: status, s | `hi` {args.after:g} s later: status, s | journal bytes | "
          "longest journal line |\n|---|---|---|---|---|---|")
    for row in results:
        print(f"| {row['case']} | {row['chars']} | {row['big']['status']}, {row['big']['seconds']} "
              f"| {row['hi']['status']}, {row['hi']['seconds']} | {row['journal']['bytes']} "
              f"| {row['journal']['longest_line']} |")


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


if __name__ == "__main__":
    main()
