#!/usr/bin/env python
"""Benchmark `local-agent serve` (also `python scripts/benchmark.py --server`):

- a warm `local-agent ask --max-tokens 8 "hi"` through a running server: wall time to exit,
  next to the CLI's own floor (`local-agent --version`); each starts once the server is idle
  (the previous ask's memory work done), as when someone asks again seconds later;
- time to the first streamed token over HTTP against the same turn in-process;
- N concurrent clients x M requests against `serve --parallel P` (--parallel), memory off, or on
  with a namespace per client (--memory): errors, p50/p95 latency, aggregate tokens/s;
- the server's RSS idle (model loaded) and its peak under that load.

Every run uses a fresh temporary data dir; the model is the default one (or --model).
Writes bench-results/server.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from local_agent.bench.server_load import QUESTIONS, ServerProcess, load_test, server_env, summary
from local_agent.server.options import DEFAULT_PARALLEL
from local_agent.turn.result import measured

ROOT = Path(__file__).resolve().parent.parent


def _env(data_dir: Path, model: str | None) -> dict[str, str]:
    return server_env(data_dir, model)


def _cli(env: dict[str, str], *args: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "local_agent", *args], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _wait_idle(url: str, timeout: float = 120.0) -> None:
    """Until the server has nothing queued or running (GET /health)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        health = httpx.get(url + "/health").json()
        if not health["waiting"] and not health.get("busy"):
            return
        time.sleep(0.05)
    raise TimeoutError(f"the server at {url} stayed busy")


def warm_asks(env: dict[str, str], url: str, reps: int) -> list[float]:
    """`ask --max-tokens 8 "hi"` through the server, each once it is idle; a warm-up first."""
    times = []
    for _ in range(reps + 1):
        _wait_idle(url)
        times.append(_cli(env, "ask", "--max-tokens", "8", "hi"))
    return times[1:]


_summary = summary


class InProcess:
    """The same turns as over HTTP (no memory, a fresh dialogue each), in this process."""

    def __init__(self, data_dir: Path, model: str | None) -> None:
        from local_agent.app import build_runtime
        from local_agent.config import load_settings

        os.environ.update(_env(data_dir, model))
        self.settings = load_settings()
        self.runtime = build_runtime(self.settings, memory=False)

    def first_token_s(self, question: str) -> float:
        agent = self.runtime.agent
        agent.use_session(f"bench-{secrets.token_hex(4)}")  # a fresh dialogue
        result = agent.respond(question, generation=self.settings.generation(max_tokens=8))
        return measured(result.timings.first_token_s)

    def close(self) -> None:
        self.runtime.close()


def http_first_token_s(client: httpx.Client, question: str) -> float:
    body = {"messages": [{"role": "user", "content": question}], "max_tokens": 8, "stream": True, "memory": False}
    start = time.perf_counter()
    first = 0.0
    with client.stream("POST", "/v1/chat/completions", json=body) as response:
        for line in response.iter_lines():  # one iterator: a second one would restart the stream
            if not first and line.startswith("data: {") and '"content":"' in line and '"content":""' not in line:
                first = time.perf_counter() - start
    return first


def paired_ttft(local: InProcess, url: str, reps: int) -> dict[str, dict[str, float]]:
    """The same questions in-process and over HTTP, alternating, so both see the same load;
    the first pair warms up."""
    inside, over_http = [], []
    with httpx.Client(base_url=url, timeout=120) as client:
        for question in QUESTIONS[: reps + 1]:
            inside.append(local.first_token_s(question))
            over_http.append(http_first_token_s(client, question))
    differences = [h - i for h, i in zip(over_http[1:], inside[1:], strict=True)]
    return {"in_process_ttft_s": _summary(inside[1:]), "http_ttft_s": _summary(over_http[1:]),
            "http_minus_in_process_s": _summary(differences)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_avg_before": os.getloadavg()}}
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        env = _env(data_dir, args.model)
        server = ServerProcess(data_dir, args.model, ("--parallel", str(args.parallel)))
        local = InProcess(Path(tmp) / "in-process", args.model)
        try:
            time.sleep(1.0)
            results["idle_rss_mb"] = server.rss_mb()
            results.update(paired_ttft(local, server.url, args.reps))
            local.close()
            results["warm_ask_s"] = _summary(warm_asks(env, server.url, args.reps))
            results["cli_floor_s"] = _summary([_cli(env, "--version") for _ in range(args.reps)])
            results["load"] = load_test(server, args.clients, args.requests, args.max_tokens, args.memory)
            results["load"]["parallel"] = args.parallel
        finally:
            server.close()
    results["machine"]["load_avg_after"] = os.getloadavg()
    return results


def markdown(results: dict[str, Any]) -> str:
    ms = lambda s: f"{s['median'] * 1000:.0f} ms ({s['min'] * 1000:.0f}–{s['max'] * 1000:.0f})"  # noqa: E731
    load = results["load"]
    rows = [
        ("warm `ask --max-tokens 8 \"hi\"`, wall to exit (target ≤ 400 ms)", ms(results["warm_ask_s"])),
        ("  the CLI's floor: `local-agent --version`", ms(results["cli_floor_s"])),
        ("TTFT streamed over HTTP", ms(results["http_ttft_s"])),
        ("TTFT in-process, same turns", ms(results["in_process_ttft_s"])),
        ("  HTTP − in-process, paired (target ≤ 30 ms)", ms(results["http_minus_in_process_s"])),
        ((f"{load['clients']} clients × {load['requests'] // load['clients']} requests, --parallel "
          f"{load['parallel']}, memory {'on' if load['memory'] else 'off'}: errors"), str(load["errors"])),
        ("  latency p50 / p95", f"{load['latency_s']['median']:.2f} s / {load['latency_s']['p95']:.2f} s"),
        ("  aggregate tokens/s", f"{load['tokens_per_s']:.1f}"),
        ("server RSS idle / peak under load", f"{results['idle_rss_mb']:.0f} MB / {load['peak_rss_mb']:.0f} MB"),
        ("load average before / after (1 min)", "{:.2f} / {:.2f}".format(
            results["machine"]["load_avg_before"][0], results["machine"]["load_avg_after"][0])),
    ]
    return "\n".join(["| measure | value |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows)])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=9, help="timed runs after a warm-up [9]")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=25, help="requests per client [25]")
    parser.add_argument("--max-tokens", type=int, default=16, help="answer length under load [16]")
    parser.add_argument("--model", help="model (default: the default model)")
    parser.add_argument("--parallel", type=int, default=DEFAULT_PARALLEL,
                        help=f"serve --parallel: requests answered at once [{DEFAULT_PARALLEL}]")
    parser.add_argument("--memory", action="store_true",
                        help="the load test with memory on, each client a namespace of its own (default: off)")
    parser.add_argument("--output", type=Path, default=Path("bench-results/server.json"))
    args = parser.parse_args(argv)
    results = run(args)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1) + "\n")
    print(markdown(results))
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
