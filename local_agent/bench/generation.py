"""Generation speed of one backend, loaded through the product's own loader (in a child process)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..types import GenerationSettings, Message
from .measure import GpuMemory, cuda_sync, peak_rss_mb, timed_stream
from .stats import spread

if TYPE_CHECKING:
    from ..backends.base import Backend


BENCH_REQUEST = ("Write a long, detailed story about a lighthouse keeper who finds a message in a "
                 "bottle. Describe the sea, the weather, the lighthouse and the keeper's daily routine.")


def bench_messages(run: int) -> list[Message]:
    """The run number leads the prompt so no run reuses another's KV cache: every run
    processes the whole prompt, and prompt speed is measured honestly."""
    return [Message("system", f"Run {run}. You are a helpful assistant."), Message("user", BENCH_REQUEST)]


def answer_settings(settings: Settings, max_tokens: int) -> GenerationSettings:
    """What a chat answer is generated with (repeat penalty included), greedy, cut at
    `max_tokens`: the same for every row, the raw baseline and the turns."""
    return settings.generation(max_tokens=max_tokens, temperature=0.0)


def repeat_runs(run: Callable[[int], dict[str, float]], reps: int) -> list[dict[str, float]]:
    """Run 0 warms up and is dropped."""
    return [run(index) for index in range(reps + 1)][1:]


def summarize_runs(runs: list[dict[str, float]]) -> dict[str, Any]:
    return {
        "prompt_tokens": runs[0]["prompt_tokens"],
        "completion_tokens": runs[0]["completion_tokens"],
        "ttft_s": spread([r["ttft_s"] for r in runs]),
        "decode_tok_s": spread([r["decode_tok_s"] for r in runs]),
        "prompt_tok_s": spread([r["prompt_tokens"] / r["ttft_s"] for r in runs]),
    }


def measure_backend(settings: Settings, backend: str, device: str, reps: int, max_tokens: int) -> dict[str, Any]:
    """Load one backend through the product's own loader and time generation."""
    from ..backends import create_backend

    gpu = GpuMemory(device)
    start = time.perf_counter()
    model, choice = create_backend(replace(settings, backend=backend, device=device))
    cuda_sync()
    load_s = time.perf_counter() - start
    generation = answer_settings(settings, max_tokens)
    runs = repeat_runs(lambda index: backend_run(model, bench_messages(index), generation), reps)
    prompts = [model.format_prompt(bench_messages(index)) for index in range(reps + 1)]
    peak_gpu = gpu.peak_mb()
    model.close()
    return {"backend": backend, "device": device, "load_s": load_s, "reason": choice.reason,
            **summarize_runs(runs), "peak_rss_mb": peak_rss_mb(), "peak_gpu_mb": peak_gpu,
            "prompts": prompts}


def backend_run(model: Backend, messages: list[Message], generation: GenerationSettings) -> dict[str, float]:
    stream = model.stream(messages, generation)

    def generated() -> int:
        # A run cut at max_tokens generated exactly that many; the count is exact either way.
        usage = stream.result()
        return generation.max_tokens if usage.finish_reason == "length" else usage.completion_tokens

    timing = timed_stream(stream, generated)
    return {**timing, "prompt_tokens": stream.result().prompt_tokens}
