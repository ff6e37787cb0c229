"""Measuring primitives: clocks that wait for CUDA, peak RSS and GPU memory, child processes."""

from __future__ import annotations

import multiprocessing
import resource
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any


def peak_rss_mb() -> float:
    """This process's peak resident memory, MB: Linux's VmHWM where there is one. (getrusage's
    ru_maxrss outlives exec: a child started by a large parent would report the parent's size.)"""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cuda_sync() -> None:
    """Wait for the CUDA work torch has queued. Only torch queues work asynchronously
    (llama.cpp hands back each token when it is done), and torch is not imported for this:
    that would add to the peak RSS of a llama.cpp process."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.synchronize()


class GpuMemory:
    """Peak GPU memory of this process: torch's allocator peak, or for llama.cpp (which
    allocates outside torch) the device memory in use beyond what was in use at the start."""

    def __init__(self, device: str) -> None:
        self.torch: Any = None
        if device == "cuda":
            import torch

            self.torch = torch
            self.start_used = self._device_used()

    def _device_used(self) -> float:
        free, total = self.torch.cuda.mem_get_info()
        return (total - free) / 2**20

    def peak_mb(self) -> float | None:
        if self.torch is None:
            return None
        allocated = self.torch.cuda.max_memory_allocated() / 2**20
        return allocated if allocated > 0 else self._device_used() - self.start_used


def timed_stream(chunks: Iterable[Any], count_completion: Callable[[], int]) -> dict[str, float]:
    """One streamed generation, started by the first chunk asked for: time to first chunk,
    then decode rate over the rest; `count_completion` is asked once the stream has ended."""
    cuda_sync()
    start = time.perf_counter()
    first = None
    for _ in chunks:
        if first is None:
            first = time.perf_counter() - start
    cuda_sync()
    total = time.perf_counter() - start
    tokens = count_completion()
    decode_s = max(total - (first or total), 1e-9)
    return {"ttft_s": first or total, "total_s": total, "completion_tokens": tokens,
            "decode_tok_s": max(tokens - 1, 0) / decode_s}


def timed_ms(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def run_in_child(target: Callable[..., Any], *args: Any) -> Any:
    """Run one measurement in a fresh process (its own peak RSS, no shared caches)."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        result = pool.apply(target, args)
        pool.close()
        pool.join()  # a clean exit lets the child release what it holds (terminate would not)
    return result
