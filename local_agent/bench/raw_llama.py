"""The baseline: raw llama-cpp-python with its defaults, alone and taking turns with the backend.

Raw means the library as a user gets it: its own process, an environment without any OpenMP
variable (the product's thread-wait policy or the user's), `create_completion`'s default
sampler, `Llama`'s default batch sizes. It shares with the backend only what a comparison
must: the model, threads, context size and GPU offload.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..config import Settings
from .stats import spread
from .workers import Worker, backend_worker, library_env, raw_worker, worker_settings

PAIRED_RUNS_FROM = 1000  # run numbers of the paired runs: prompts that no earlier run processed


def measure_raw_llama(settings: Settings, gguf: Path, device: str, reps: int, max_tokens: int,
                      prompts: list[str]) -> dict[str, Any]:
    """Raw llama-cpp-python on the backend row's prompts (run 0 warms up), then the paired
    runs with the product's backend (see `paired_runs`)."""
    from ..backends.probe import physical_cores

    threads = settings.threads or physical_cores()
    start = time.perf_counter()
    with raw_worker(gguf, threads, settings.ctx_size, library_env(), device=device) as raw:
        load_s = time.perf_counter() - start
        runs = [raw.ask(op="decode", prompt=prompt, max_tokens=max_tokens) for prompt in prompts[: reps + 1]][1:]
        backend = backend_worker(worker_settings(replace(settings, backend="llama-cpp", device=device)))
        with backend:
            paired = paired_runs(backend, raw, max(reps, 3), max_tokens)
        peak_rss = runs[-1]["peak_rss_mb"]
    return {"backend": "raw llama-cpp-python", "device": device, "load_s": load_s, "threads": threads,
            "environment": "no OpenMP variables", "sampler": "create_completion defaults",
            **summarize(runs), "peak_rss_mb": peak_rss, "peak_gpu_mb": None, "paired": paired}


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"prompt_tokens": runs[0]["prompt_tokens"],
            "completion_tokens": spread([r["completion_tokens"] for r in runs]),
            "ttft_s": spread([r["ttft_s"] for r in runs]), "decode_tok_s": spread([r["decode_tok_s"] for r in runs]),
            "prompt_tok_s": spread([r["prompt_tokens"] / r["ttft_s"] for r in runs])}


def paired_runs(backend: Worker, raw: Worker, pairs: int, max_tokens: int) -> dict[str, Any]:
    """The product's backend and raw llama-cpp-python, each in its own process, taking turns
    (in alternating order) on the same prompts: on a shared machine the load changes from one
    minute to the next, and the two halves of a pair see about the same load, so their ratio is
    what the target is checked on. Pair 0 warms up."""
    decode, ttft = [], []
    for index in range(pairs + 1):
        run = PAIRED_RUNS_FROM + index
        if index % 2 == 0:
            ours = backend.ask(op="decode", run=run, max_tokens=max_tokens)
            theirs = raw.ask(op="decode", prompt=ours["prompt"], max_tokens=max_tokens)
        else:
            prompt = backend.ask(op="format", run=run)["prompt"]
            theirs = raw.ask(op="decode", prompt=prompt, max_tokens=max_tokens)
            ours = backend.ask(op="decode", run=run, max_tokens=max_tokens)
        if index:
            decode.append(ours["decode_tok_s"] / theirs["decode_tok_s"])
            ttft.append(ours["ttft_s"] / theirs["ttft_s"])
    return {"decode_ratio": spread(decode), "ttft_ratio": spread(ttft)}
