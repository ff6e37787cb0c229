#!/usr/bin/env python
"""Benchmark `local-agent serve` (also `python scripts/benchmark.py --server`):

- a warm `local-agent ask --max-tokens 8 "hi"` through a running server: wall time to exit,
  next to the CLI's own floor (`local-agent --version`); each starts once the server is idle
  (the previous ask's memory work done), as when someone asks again seconds later;
- time to the first streamed token over HTTP against the same turn in-process;
- N concurrent clients x M requests: errors, p50/p95 latency, aggregate tokens/s;
- the server's RSS idle (model loaded) and its peak under that load.

Every run uses a fresh temporary data dir; the model is the default one (or --model).
Writes bench-results/server.json and prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import psutil

from local_agent.turn.result import measured

ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = [f"In one sentence, what is {n} times {n + 1}?" for n in range(1, 400)]


def _env(data_dir: Path, model: str | None) -> dict[str, str]:
    env = {**os.environ, "LOCAL_AGENT_DATA_DIR": str(data_dir), "LOCAL_AGENT_CONFIG": str(data_dir / "none.toml")}
    env.pop("LOCAL_AGENT_SERVER", None)
    if model:
        env["LOCAL_AGENT_MODEL"] = model
    return env


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


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median": statistics.median(ordered), "min": ordered[0], "max": ordered[-1], "p95": p95, "n": len(ordered)}


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


class Server:
    """`local-agent serve --port 0` in its own process, and its RSS sampled on demand."""

    def __init__(self, data_dir: Path, model: str | None) -> None:
        self.process = subprocess.Popen([sys.executable, "-m", "local_agent", "serve", "--port", "0"], cwd=ROOT,
                                        env=_env(data_dir, model), stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip().removeprefix("listening on ")
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/health").json()["status"] == "ok":
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        self.ps = psutil.Process(self.process.pid)

    def rss_mb(self) -> float:
        return self.ps.memory_info().rss / 2**20

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(60)


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


def load_test(server: Server, clients: int, requests: int, max_tokens: int) -> dict[str, Any]:
    """`clients` threads, each sending `requests` completions one after another."""
    latencies: list[float] = []
    errors: list[str] = []
    tokens = [0]
    peak = [server.rss_mb()]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            peak[0] = max(peak[0], server.rss_mb())

    def client(index: int) -> None:
        with httpx.Client(base_url=server.url, timeout=300) as http:
            for n in range(requests):
                body = {"messages": [{"role": "user", "content": QUESTIONS[(index * requests + n) % len(QUESTIONS)]}],
                        "max_tokens": max_tokens, "memory": False}
                start = time.perf_counter()
                response = http.post("/v1/chat/completions", json=body)
                latencies.append(time.perf_counter() - start)
                if response.status_code != 200:
                    errors.append(str(response.status_code))
                else:
                    tokens[0] += response.json()["usage"]["completion_tokens"]

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(client, range(clients)))
    wall = time.perf_counter() - start
    done.set()
    return {"clients": clients, "requests": clients * requests, "errors": len(errors),
            "latency_s": _summary(latencies), "tokens_per_s": tokens[0] / wall, "wall_s": wall,
            "peak_rss_mb": peak[0]}


def run(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_avg_before": os.getloadavg()}}
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        env = _env(data_dir, args.model)
        server = Server(data_dir, args.model)
        local = InProcess(Path(tmp) / "in-process", args.model)
        try:
            time.sleep(1.0)
            results["idle_rss_mb"] = server.rss_mb()
            results.update(paired_ttft(local, server.url, args.reps))
            local.close()
            results["warm_ask_s"] = _summary(warm_asks(env, server.url, args.reps))
            results["cli_floor_s"] = _summary([_cli(env, "--version") for _ in range(args.reps)])
            results["load"] = load_test(server, args.clients, args.requests, args.max_tokens)
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
        (f"{load['clients']} clients × {load['requests'] // load['clients']} requests: errors", str(load["errors"])),
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
    parser.add_argument("--output", type=Path, default=Path("bench-results/server.json"))
    args = parser.parse_args(argv)
    results = run(args)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=1) + "\n")
    print(markdown(results))
    print(f"wrote {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
