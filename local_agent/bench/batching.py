"""Batched decoding: aggregate decode tokens/s of the product's engine (backends/llama_engine.py)
at 1, 2, 4 and 8 sequences, against llama.cpp's `llama-batched-bench` built by `make
llama-batched-bench` from the same source and flags, the two taking turns in the same run.

Both do what `llama-batched-bench -npp 128 -ntg 64 -npl 1,2,4,8` does: for each count, read that
many prompts of 128 random tokens, then write 64 tokens for each sequence, all of them in one
batch a step. llama-batched-bench feeds random tokens back and samples nothing; the engine
picks each token from the logits (greedy, the sampler chain of every request) and keeps
writing past an end of turn, so that every sequence writes its 64. The engine's decode rate is
taken over the steps that held exactly that many sequences and no prompt tokens, timed from
the top of its loop to the last token picked (Python's share included). Both use one KV stream
of the same window per sequence and no flash attention (the backend does not use it: it
changes greedy answers).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..config import Settings
from .llama_bench import CACHE
from .machine import load_average
from .measure import run_in_child
from .stats import spread
from .workers import library_env

COUNTS = (1, 2, 4, 8)
PROMPT_TOKENS = 128
WRITTEN_TOKENS = 64


def batched_bench_path(variant: str) -> Path:
    """Where `make llama-batched-bench` leaves the binary (LOCAL_AGENT_LLAMA_BATCHED_BENCH overrides)."""
    override = os.environ.get("LOCAL_AGENT_LLAMA_BATCHED_BENCH")
    return Path(override) if override else CACHE / f"llama-bench-{variant}" / "llama-batched-bench"


def run_batched_bench(binary: Path, gguf: Path, threads: int, window: int, counts: tuple[int, ...] = COUNTS,
                      flash_attn: str = "off", env: Mapping[str, str] | None = None,
                      timeout_s: float = 900) -> dict[str, Any]:
    """One llama-batched-bench run; decode (S_TG), prompt (S_PP) and overall tokens/s per count."""
    command = [str(binary), "-m", str(gguf), "-t", str(threads), "-npp", str(PROMPT_TOKENS),
               "-ntg", str(WRITTEN_TOKENS), "-npl", ",".join(map(str, counts)), "-c", str(window * max(counts)),
               "-fa", flash_attn, "--output-format", "jsonl"]
    env = {**(library_env() if env is None else env), "LD_LIBRARY_PATH": str(binary.parent)}
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return {"skipped": f"llama-batched-bench took over {timeout_s:.0f} s"}
    if done.returncode != 0:
        return {"skipped": f"llama-batched-bench failed ({done.returncode}): {done.stderr.strip()[-300:]}"}
    return parse_batched_bench(done.stdout + done.stderr)


def parse_batched_bench(output: str) -> dict[str, Any]:
    """Per count of sequences, from llama-batched-bench's JSON lines (its log lines around
    them are passed over)."""
    rows = [json.loads(line) for line in output.splitlines() if line.startswith('{"n_kv_max"')]
    return {str(row["pl"]): {"decode_tok_s": row["speed_tg"], "prompt_tok_s": row["speed_pp"],
                             "total_tok_s": row["speed"]} for row in rows}


def engine_rates(gguf: str, threads: int, window: int, counts: tuple[int, ...], seed: int = 0) -> dict[str, Any]:
    """The engine's rates per count (run in a child process: one model, one engine of
    max(counts) sequences for every count, as llama-batched-bench has one context)."""
    import numpy as np

    from ..backends.llama_cpp import LlamaCppBackend
    from ..backends.llama_parallel import ParallelLlamaBackend

    backend = ParallelLlamaBackend(LlamaCppBackend(Path(gguf), model_name="bench", context_size=window,
                                                   threads=threads), max(counts))
    try:
        engine, rng = backend.engine, np.random.default_rng(seed)
        vocab = backend.base.llama.n_vocab()
        _write(engine, [rng.integers(0, vocab, 16).tolist() for _ in range(max(counts))], 4)  # warm-up
        rates = {}
        for count in counts:
            engine.stats.log = []
            prompts = [rng.integers(0, vocab, PROMPT_TOKENS).tolist() for _ in range(count)]
            wall = _write(engine, prompts, WRITTEN_TOKENS)
            rates[str(count)] = _rates(engine.stats.log, count, wall)
        return rates
    finally:
        backend.close()


def _write(engine: Any, prompts: list[list[int]], tokens: int) -> float:
    """Every prompt put to the engine at once, each answered with exactly `tokens` tokens;
    returns the wall time until the last is done."""
    from ..backends.llama_sequence import Request
    from ..types import GenerationSettings

    settings = GenerationSettings(max_tokens=tokens, temperature=0.0, repeat_penalty=1.0)
    requests = [Request(prompt, settings, ignore_end=True) for prompt in prompts]
    start = time.perf_counter()
    for request in requests:
        engine.submit(request)
    for request in requests:
        while (event := request.events.get())[0] == "text":
            pass
        if event[0] == "error":
            raise event[1]
    return time.perf_counter() - start


def _rates(log: list[Any], count: int, wall: float) -> dict[str, float]:
    full = [step for step in log if step.sequences == count and step.prompt_tokens == 0]
    prompt = [step for step in log if step.prompt_tokens]
    return {
        "decode_tok_s": sum(step.written for step in full) / sum(step.seconds for step in full),
        "decode_steps": len(full),
        "total_tok_s": count * (PROMPT_TOKENS + WRITTEN_TOKENS) / wall,
        "prompt_steps": len(prompt),
    }


def measure_batching(settings: Settings, reps: int, counts: tuple[int, ...] = COUNTS) -> dict[str, Any]:
    """`reps` rounds (after a warm-up round) of llama-batched-bench and the engine in turns,
    the order alternating; medians, and the engine / llama-batched-bench ratio within each round."""
    from ..backends.probe import physical_cores
    from ..models import resolve_model
    from .llama_bench import build_variant

    gguf = resolve_model(settings.model, settings.models_dir).gguf_path
    if gguf is None:
        raise ValueError(f"model {settings.model} has no GGUF file")
    import llama_cpp

    threads = settings.threads or physical_cores()
    build = build_variant(llama_cpp.llama_print_system_info().decode("utf-8", "replace"))
    binary = batched_bench_path(build)
    result: dict[str, Any] = {"threads": threads, "counts": list(counts), "prompt_tokens": PROMPT_TOKENS,
                              "written_tokens": WRITTEN_TOKENS, "window": settings.ctx_size, "build": build,
                              "binary": str(binary), "load_average_start": load_average()}
    rounds: list[dict[str, Any]] = []
    for index in range(reps + 1):
        names = ("engine", "llama-batched-bench") if index % 2 else ("llama-batched-bench", "engine")
        measured: dict[str, Any] = {}
        for name in names:
            if name == "engine":
                measured[name] = run_in_child(engine_rates, str(gguf), threads, settings.ctx_size, counts)
            elif binary.is_file():
                measured[name] = run_batched_bench(binary, gguf, threads, settings.ctx_size, counts, env=os.environ)
            else:
                measured[name] = {"skipped": f"{binary} not found: build it with `make llama-batched-bench`"}
        if index:
            rounds.append(measured)
    result["load_average_end"] = load_average()
    result["rows"] = summarize_rounds(rounds, counts)
    result["skipped"] = next((r["llama-batched-bench"]["skipped"] for r in rounds
                              if "skipped" in r["llama-batched-bench"]), None)
    return result


def summarize_rounds(rounds: list[dict[str, Any]], counts: tuple[int, ...]) -> list[dict[str, Any]]:
    """Per count: the medians of both, and of their ratio within each round."""
    rows = []
    for count in map(str, counts):
        ours = [r["engine"][count] for r in rounds]
        theirs = [r["llama-batched-bench"][count] for r in rounds if count in r["llama-batched-bench"]]
        row: dict[str, Any] = {"sequences": int(count),
                               "engine_decode_tok_s": spread([o["decode_tok_s"] for o in ours]),
                               "engine_total_tok_s": spread([o["total_tok_s"] for o in ours])}
        if len(theirs) == len(ours):
            row["llama_batched_bench_decode_tok_s"] = spread([t["decode_tok_s"] for t in theirs])
            row["llama_batched_bench_total_tok_s"] = spread([t["total_tok_s"] for t in theirs])
            row["engine_vs_llama_batched_bench"] = spread([o["decode_tok_s"] / t["decode_tok_s"]
                                                          for o, t in zip(ours, theirs)])
        rows.append(row)
    return rows
