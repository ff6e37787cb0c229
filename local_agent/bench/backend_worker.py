"""The product's llama-cpp backend as a benchmark worker (the protocol of raw_worker.py).

    python -m local_agent.bench.backend_worker '{"model": ..., "models_dir": ..., "threads": 0, ...}'

Requests, one JSON line each:

    {"op": "decode", "run": I, "max_tokens": N}   a chat answer (greedy, the product's settings)
                                                  to bench_messages(I); the reply carries the
                                                  templated prompt, for raw llama-cpp-python
    {"op": "format", "run": I}                    just the templated prompt of that answer
    {"op": "prompt", "tokens": N, "run": I}       time to first token of a prompt of N tokens
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..types import GenerationSettings, Message
from .generation import answer_settings, backend_run, bench_messages
from .measure import peak_rss_mb
from .raw_worker import FILLER

if TYPE_CHECKING:
    from ..backends.base import Backend


def settings_from(values: dict[str, Any]) -> Settings:
    paths: dict[str, Any] = {name: Path(values[name]) for name in ("models_dir", "data_dir") if name in values}
    return Settings(**{**values, **paths})


def decode(backend: Backend, settings: Settings, request: dict[str, Any]) -> dict[str, Any]:
    messages = bench_messages(int(request["run"]))
    measured = backend_run(backend, messages, answer_settings(settings, int(request["max_tokens"])))
    return {**measured, "prompt": backend.format_prompt(messages)}


def format_prompt(backend: Backend, settings: Settings, request: dict[str, Any]) -> dict[str, Any]:
    return {"prompt": backend.format_prompt(bench_messages(int(request["run"])))}


def prompt_messages(backend: Backend, tokens: int, run: int) -> list[Message]:
    """A system line unique to `run` (so no KV cache is reused) and filler text, together
    `tokens` tokens once templated (or a token or two fewer)."""
    system = Message("system", f"Run {run}.")
    # The template's own tokens, counted by the runtime itself (markers are special tokens).
    probe = [Message("system", f"Run {run}!"), Message("user", "")]  # shares little with the prompt
    overhead = backend.generate(probe, GenerationSettings(max_tokens=1)).prompt_tokens
    words = (FILLER.decode() * (tokens // 20 + 1)).split()
    low, high = 0, len(words)
    while low < high:  # the most words that fit
        middle = (low + high + 1) // 2
        if backend.count_tokens(" ".join(words[:middle])) + overhead <= tokens:
            low = middle
        else:
            high = middle - 1
    return [system, Message("user", " ".join(words[:low]))]


def prompt(backend: Backend, settings: Settings, request: dict[str, Any]) -> dict[str, Any]:
    """Time to first token of an N-token prompt: what prompt evaluation costs a chat turn."""
    messages = prompt_messages(backend, int(request["tokens"]), int(request["run"]))
    measured = backend_run(backend, messages, answer_settings(settings, 2))
    return {"seconds": measured["ttft_s"], "prompt_tokens": measured["prompt_tokens"],
            "prompt_tok_s": measured["prompt_tokens"] / measured["ttft_s"]}


def main(argv: list[str]) -> int:
    from ..backends import create_backend

    settings = settings_from(json.loads(argv[0]))
    start = time.perf_counter()
    backend, _ = create_backend(settings)
    print(json.dumps({"ready": True, "load_s": time.perf_counter() - start, **backend.describe()}), flush=True)
    operations = {"decode": decode, "format": format_prompt, "prompt": prompt}
    for line in sys.stdin:
        if line.strip():
            request = json.loads(line)
            result = operations[request["op"]](backend, settings, request)
            print(json.dumps({**result, "peak_rss_mb": peak_rss_mb()}), flush=True)
    backend.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
