"""The server under load: `local-agent serve` in a process of its own, N clients each sending M
chat completions one after another; errors, latency percentiles, aggregate tokens/s and the
server's peak RSS. Used by the benchmark's server section and by scripts/bench_server.py.

With memory on, each client is a user of its own (`user`: a memory namespace each), so that a
client's requests recall what its earlier ones stored while clients do not wait for each other.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .machine import load_average

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = [f"In one sentence, what is {n} times {n + 1}?" for n in range(1, 400)]
CLIENTS, REQUESTS, MAX_TOKENS = 8, 25, 16


def server_env(data_dir: Path, model: str | None = None, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """A server's (or client's) environment: its own data dir, no config file, no running server."""
    env = {**(os.environ if base is None else base), "LOCAL_AGENT_DATA_DIR": str(data_dir),
           "LOCAL_AGENT_CONFIG": str(data_dir / "none.toml")}
    env.pop("LOCAL_AGENT_SERVER", None)
    if model:
        env["LOCAL_AGENT_MODEL"] = model
    return env


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median": statistics.median(ordered), "min": ordered[0], "max": ordered[-1], "p95": p95,
            "n": len(ordered)}


class ServerProcess:
    """`local-agent serve --port 0` in its own process (with `extra` flags), ready to answer."""

    def __init__(self, data_dir: Path, model: str | None = None, extra: tuple[str, ...] = ()) -> None:
        import httpx
        import psutil

        self.process = subprocess.Popen([sys.executable, "-m", "local_agent", "serve", "--port", "0", *extra],
                                        cwd=ROOT, env=server_env(data_dir, model), stdout=subprocess.PIPE,
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
        return float(self.ps.memory_info().rss) / 2**20

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(60)


def load_test(server: ServerProcess, clients: int, requests: int, max_tokens: int, memory: bool = False
              ) -> dict[str, Any]:
    """`clients` threads, each sending `requests` completions one after another."""
    import httpx

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
                body: dict[str, Any] = {
                    "messages": [{"role": "user", "content": QUESTIONS[(index * requests + n) % len(QUESTIONS)]}],
                    "max_tokens": max_tokens, "memory": memory}
                if memory:
                    body["user"] = f"client{index}"
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
    return {"clients": clients, "requests": clients * requests, "errors": len(errors), "memory": memory,
            "latency_s": summary(latencies), "tokens_per_s": tokens[0] / wall, "wall_s": wall,
            "peak_rss_mb": peak[0]}


def measure_server_load(model: str | None, parallel: tuple[int, ...], memory: bool, clients: int = CLIENTS,
                        requests: int = REQUESTS, max_tokens: int = MAX_TOKENS) -> dict[str, Any]:
    """One load test per `serve --parallel` value, each a fresh server and data dir."""
    rows = []
    start_load = load_average()
    for count in parallel:
        with tempfile.TemporaryDirectory(prefix="local-agent-bench-") as folder:
            server = ServerProcess(Path(folder) / "data", model, ("--parallel", str(count)))
            try:
                rows.append({"parallel": count, **load_test(server, clients, requests, max_tokens, memory)})
            finally:
                server.close()
    return {"memory": memory, "clients": clients, "requests": requests, "max_tokens": max_tokens,
            "load_average_start": start_load, "load_average_end": load_average(), "rows": rows}
