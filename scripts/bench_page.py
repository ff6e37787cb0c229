#!/usr/bin/env python
"""Benchmark the page (`local-agent serve`, then the address in a browser), in Debian's
headless Chromium against a real server on the default model and a fresh data dir:

- page load: the browser's own navigation timing (`loadEventEnd` of the navigation entry),
  cold (the browser's cache off) and warm (a reload that revalidates each file: 304s), and the
  page's own "ready" mark (its first calls answered: settings and the conversation list);
- first token, paired: a question asked through the warm `ask` route from Python (the API's
  time to first token: request sent to first token line read) and one of the same shape typed
  into the page (Enter to the first token shown, the page's own performance marks), in turn
  first; incognito both, so each sees the same memory. The first pair warms up.

Writes bench-results/page.json and prints a markdown table. Goals: load < 300 ms; the page's
first token within 100 ms of the API's.

    python scripts/bench_page.py [--reps 9] [--max-tokens 8]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.browser.browser import Page, chrome, missing_browser, wait_for  # noqa: E402

QUESTIONS = [f"In one sentence, what is {n} plus {n + 2}?" for n in range(11, 211)]
LOAD_GOAL_MS = 300.0
FIRST_TOKEN_GOAL_MS = 100.0


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"median": statistics.median(ordered), "min": ordered[0], "max": ordered[-1], "n": len(ordered)}


class Server:
    """`local-agent serve --port 0` in its own process, on a fresh data dir."""

    def __init__(self, data_dir: Path, max_tokens: int) -> None:
        env = {**os.environ, "LOCAL_AGENT_DATA_DIR": str(data_dir), "LOCAL_AGENT_CONFIG": str(data_dir / "none.toml")}
        env.pop("LOCAL_AGENT_SERVER", None)
        env.pop("LOCAL_AGENT_API_KEY", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "local_agent", "serve", "--port", "0", "--max-tokens", str(max_tokens)],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip().removeprefix("listening on ")
        wait_for(lambda: _healthy(self.url), 300, "the server")

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(60)


def _healthy(url: str) -> bool:
    try:
        return bool(httpx.get(url + "/health", timeout=2).json()["status"] == "ok")
    except httpx.HTTPError:
        return False


def _idle(url: str) -> None:
    wait_for(lambda: not (health := httpx.get(url + "/health").json())["waiting"] and not health["busy"], 120, "idle")


def page_loads(page: Page, reps: int, cold: bool) -> dict[str, Any]:
    """Navigation timing of `reps` loads (after one that warms up)."""
    page.driver.execute_cdp_cmd("Network.enable", {})
    page.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": cold})
    loads, ready = [], []
    for _ in range(reps + 1):
        page.driver.get("about:blank")
        page.driver.get(page.url + "/#/chat")
        page.ready()
        wait_for(lambda: page.js("return performance.getEntriesByType('navigation')[0].loadEventEnd > 0"), 10, "load")
        timing = page.js("const n = performance.getEntriesByType('navigation')[0];"
                         "const r = performance.getEntriesByName('local-agent:ready')[0];"
                         "return [n.loadEventEnd - n.startTime, r.startTime];")
        loads.append(timing[0])
        ready.append(timing[1])
    page.driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
    return {"load_ms": summary(loads[1:]), "ready_ms": summary(ready[1:])}


def api_first_token_ms(url: str, info: dict[str, Any], question: str, session: str) -> tuple[float, float]:
    """(time to the first token read, the server's own first_token_s), in ms."""
    body = {"message": question, "session": session, "memory": info["memory"], "expect": info["identity"],
            "settings": {"incognito": True}, "wait_for_memory": True}
    start = time.perf_counter()
    first, record = 0.0, dict[str, Any]()
    with httpx.stream("POST", url + info["ask_path"], json=body, timeout=300) as response:
        for line in response.iter_lines():
            item = json.loads(line)
            if not first and item.get("token", "").strip():
                first = time.perf_counter() - start
            record = item.get("result", record)
    return first * 1000, record["timings"]["first_token_s"] * 1000


def page_first_token_ms(page: Page, question: str) -> tuple[float, float]:
    """(Enter to the first token shown, the server's own first_token_s), in ms."""
    page.js("performance.clearMarks('local-agent:answer')")
    page.type(question)
    wait_for(lambda: page.js("return performance.getEntriesByName('local-agent:answer').length > 0"), 300,
             "the answer")
    shown, server = page.js(
        "const first = performance.getEntriesByName('local-agent:first-token')[0];"
        "const sent = performance.getEntriesByName('local-agent:sent').at(-1);"
        "return [first.startTime - sent.startTime,"
        " performance.getEntriesByName('local-agent:answer')[0].detail.first_token_s];")
    page.finished(300)
    return float(shown), float(server) * 1000


def paired_first_token(page: Page, url: str, reps: int) -> dict[str, Any]:
    """Pairs of questions of one shape ("what is 12 plus 14?", then 13 plus 15), one through the
    API and one through the page, in turn first, so that each sees the model's prompt cache as
    warm as the other (the same question twice would find its whole prompt cached)."""
    info = httpx.get(url + "/v1/local-agent/info").json()
    page.open("#/chat")
    page.find("#incognito").click()
    api, browser, api_server, page_server = [], [], [], []
    for index in range(reps + 1):
        first, second = QUESTIONS[2 * index], QUESTIONS[2 * index + 1]
        api_question, page_question = (first, second) if index % 2 == 0 else (second, first)
        for source in ("api", "page") if index % 2 == 0 else ("page", "api"):
            _idle(url)
            if source == "api":
                seen, own = api_first_token_ms(url, info, api_question, f"bench-api-{index}")
                api.append(seen)
                api_server.append(own)
            else:
                seen, own = page_first_token_ms(page, page_question)
                browser.append(seen)
                page_server.append(own)
    differences = [b - a for a, b in zip(api[1:], browser[1:], strict=True)]
    # what each client added to the server's own time to first token, and the page's extra
    overheads = [(b - bs) - (a - as_) for a, as_, b, bs in zip(api[1:], api_server[1:], browser[1:], page_server[1:],
                                                               strict=True)]
    return {"api_first_token_ms": summary(api[1:]), "page_first_token_ms": summary(browser[1:]),
            "page_minus_api_ms": summary(differences),
            "server_first_token_ms": summary(api_server[1:] + page_server[1:]),
            "page_overhead_minus_api_overhead_ms": summary(overheads)}


def run(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "load_avg_before": os.getloadavg()}}
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "data", args.max_tokens)
        driver = chrome()
        try:
            page = Page(driver, server.url)
            page.open("#/chat")
            results["cold"] = page_loads(page, args.reps, cold=True)
            results["warm"] = page_loads(page, args.reps, cold=False)
            results.update(paired_first_token(page, server.url, args.reps))
        finally:
            driver.quit()
            server.close()
    results["machine"]["load_avg_after"] = os.getloadavg()
    return results


def table(results: dict[str, Any]) -> str:
    def cell(stats: dict[str, float]) -> str:
        return f"{stats['median']:.0f} ms ({stats['min']:.0f}–{stats['max']:.0f})"

    rows = [
        ("page load, cold cache (loadEventEnd)", cell(results["cold"]["load_ms"]), f"< {LOAD_GOAL_MS:.0f} ms"),
        ("page load, warm (revalidated)", cell(results["warm"]["load_ms"]), f"< {LOAD_GOAL_MS:.0f} ms"),
        ("page ready (its first calls answered), cold", cell(results["cold"]["ready_ms"]), ""),
        ("first token, API (warm ask route)", cell(results["api_first_token_ms"]), ""),
        ("first token, page (Enter to shown)", cell(results["page_first_token_ms"]), ""),
        ("page − API, paired", cell(results["page_minus_api_ms"]), f"≤ {FIRST_TOKEN_GOAL_MS:.0f} ms"),
        ("the server's own first token (both)", cell(results["server_first_token_ms"]), ""),
        ("page's transport and drawing − API's, paired", cell(results["page_overhead_minus_api_overhead_ms"]),
         f"≤ {FIRST_TOKEN_GOAL_MS:.0f} ms"),
    ]
    lines = ["| measure | median (min–max) | goal |", "|---|---|---|"]
    lines += [f"| {name} | {value} | {goal} |" for name, value, goal in rows]
    machine = results["machine"]
    lines.append(f"\n{machine['cpus']} CPUs; load average {machine['load_avg_before'][0]:.2f} before, "
                 f"{machine['load_avg_after'][0]:.2f} after")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--max-tokens", type=int, default=8)
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results" / "page.json")
    args = parser.parse_args()
    reason = missing_browser()
    if reason:
        sys.exit(f"cannot run the page benchmark: {reason}")
    results = run(args)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(table(results))


if __name__ == "__main__":
    main()
