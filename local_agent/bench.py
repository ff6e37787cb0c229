"""Benchmarks: each backend against raw llama-cpp-python, cold start, and the memory pipeline.

Every measurement warms up first, repeats, and reports the median and spread. Each backend is
measured in its own child process so that its peak RSS is its own.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from .config import Settings
from .types import GenerationSettings, Message

BENCH_REQUEST = ("Write a long, detailed story about a lighthouse keeper who finds a message in a "
                 "bottle. Describe the sea, the weather, the lighthouse and the keeper's daily routine.")


def bench_messages(run: int) -> list[Message]:
    """The run number leads the prompt so no run reuses another's KV cache: every run
    processes the whole prompt, and prompt speed is measured honestly."""
    return [Message("system", f"Run {run}. You are a helpful assistant."), Message("user", BENCH_REQUEST)]


def spread(values: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cuda_sync() -> None:
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.synchronize()
    except ImportError:
        pass


def _peak_gpu_mb() -> float | None:
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.max_memory_allocated() / 2**20
    except ImportError:
        pass
    return None


def _timed_stream(stream_factory: Callable[[], Any], count_completion: Callable[[], int]) -> dict[str, float]:
    """One streamed generation: time to first chunk, then decode rate over the rest."""
    _cuda_sync()
    start = time.perf_counter()
    first = None
    for _ in stream_factory():
        if first is None:
            first = time.perf_counter() - start
    _cuda_sync()
    total = time.perf_counter() - start
    tokens = count_completion()
    decode_s = max(total - (first or total), 1e-9)
    return {"ttft_s": first or total, "total_s": total, "completion_tokens": tokens,
            "decode_tok_s": max(tokens - 1, 0) / decode_s}


def _repeat(run: Callable[[int], dict[str, float]], reps: int) -> list[dict[str, float]]:
    """Run 0 warms up and is dropped."""
    return [run(index) for index in range(reps + 1)][1:]


def _summarize_runs(runs: list[dict[str, float]]) -> dict[str, Any]:
    return {
        "prompt_tokens": runs[0]["prompt_tokens"],
        "completion_tokens": runs[0]["completion_tokens"],
        "ttft_s": spread([r["ttft_s"] for r in runs]),
        "decode_tok_s": spread([r["decode_tok_s"] for r in runs]),
        "prompt_tok_s": spread([r["prompt_tokens"] / r["ttft_s"] for r in runs]),
    }


def measure_backend(settings: Settings, backend: str, device: str, reps: int, max_tokens: int) -> dict[str, Any]:
    """Load one backend through the product's own loader and time generation."""
    from .backends import create_backend

    start = time.perf_counter()
    model, choice = create_backend(replace(settings, backend=backend, device=device))
    _cuda_sync()
    load_s = time.perf_counter() - start
    generation = GenerationSettings(max_tokens=max_tokens, temperature=0.0)

    def run(index: int) -> dict[str, float]:
        timing = _timed_stream(lambda: model.stream(bench_messages(index), generation),
                               lambda: model.last_completion.completion_tokens)
        return {**timing, "prompt_tokens": model.last_completion.prompt_tokens}

    runs = _repeat(run, reps)
    prompts = [model.format_prompt(bench_messages(index)) for index in range(reps + 1)]
    model.close()
    return {"backend": backend, "device": device, "load_s": load_s, "reason": choice.reason,
            **_summarize_runs(runs), "peak_rss_mb": _peak_rss_mb(), "peak_gpu_mb": _peak_gpu_mb(),
            "prompts": prompts}


def measure_raw_llama(settings: Settings, gguf: Path, reps: int, max_tokens: int, prompts: list[str]) -> dict[str, Any]:
    """llama-cpp-python called directly: the baseline the agent's backend is compared with."""
    import llama_cpp

    from .backends.probe import physical_cores

    threads = settings.threads or physical_cores()
    start = time.perf_counter()
    llm = llama_cpp.Llama(model_path=str(gguf), n_ctx=settings.ctx_size, n_threads=threads,
                          n_threads_batch=threads, n_gpu_layers=0, seed=0, verbose=False)
    load_s = time.perf_counter() - start
    counted = {"n": 0}

    def run(index: int) -> dict[str, float]:
        tokens = llm.tokenize(prompts[index].encode(), add_bos=False, special=True)

        def count_token(_ids: Any, _logits: Any) -> bool:
            counted["n"] += 1  # once per sampled token, as the agent's backend counts
            return False

        def stream():
            counted["n"] = 0
            criteria = llama_cpp.StoppingCriteriaList([count_token])
            yield from llm.create_completion(tokens, max_tokens=max_tokens, temperature=0.0, stream=True,
                                             stopping_criteria=criteria)

        return {**_timed_stream(stream, lambda: counted["n"]), "prompt_tokens": len(tokens)}

    runs = _repeat(run, reps)
    llm.close()
    return {"backend": "raw llama-cpp-python", "device": "cpu", "load_s": load_s,
            **_summarize_runs(runs), "peak_rss_mb": _peak_rss_mb(), "peak_gpu_mb": None}


def _child(target: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """Run one measurement in a fresh process (its own peak RSS, no shared caches)."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        return pool.apply(target, args)


def measure_cold_start(settings: Settings, memory: bool, reps: int) -> dict[str, float]:
    """Wall time of `local-agent ask "hi"` from process start to the answer."""
    times = []
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as data_dir:
            command = [sys.executable, "-m", "local_agent", "ask", "--max-tokens", "16", "--data-dir", data_dir,
                       "--model", settings.model, "hi"]
            if not memory:
                command.insert(3, "--no-memory")
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env={**os.environ, "LOCAL_AGENT_CONFIG": os.devnull})
            times.append(time.perf_counter() - start)
    return spread(times)


def machine_description() -> dict[str, Any]:
    from .backends.probe import probe_hardware

    hardware = probe_hardware().to_dict()
    return {"platform": platform.platform(), "processor": _cpu_model(), "python": platform.python_version(), **hardware}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def write_json(results: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")
