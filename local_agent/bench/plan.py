"""What to run: the plan of a benchmark run and the (backend, device) rows it measures."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..types import BACKEND_NAMES

if TYPE_CHECKING:
    from ..backends.probe import HardwareInfo


SECTIONS = ("backends", "speed", "cold-start", "memory", "batching", "batch", "server", "stores")


@dataclass(frozen=True)
class BenchPlan:
    """How much to measure. `reps` timed runs follow one warm-up run wherever a warm-up
    makes sense (generation, distillation, summary, turns, recall)."""

    quick: bool = False
    reps: int = 5
    tokens: int = 128  # tokens generated per run (greedy)
    cold_reps: int = 3
    recall_sizes: tuple[int, ...] = (1_000, 10_000, 100_000)
    recall_passes: int = 5  # passes over the recall queries at each size
    turn_store_size: int = 10_000  # memories in the store during the full-turn measurement
    store_sizes: tuple[int, ...] = (1_000, 10_000, 100_000)  # the stores section's stores
    store_texts: tuple[Path, ...] = ()  # what they are made of (empty: synthetic memories)
    sections: tuple[str, ...] = SECTIONS
    backends: tuple[str, ...] = ()  # row selectors (see select_rows); empty: every available row
    random_weights: bool = False

    @classmethod
    def quick_plan(cls, **overrides: Any) -> BenchPlan:
        return replace(cls(quick=True, reps=2, tokens=32, cold_reps=1, recall_passes=1,
                           store_sizes=(1_000, 10_000)), **overrides)


@dataclass(frozen=True)
class BackendRow:
    backend: str
    device: str

    @property
    def name(self) -> str:
        return f"{self.backend}/{self.device}"


def candidate_rows(hw: HardwareInfo, random_weights: bool = False) -> tuple[list[BackendRow], dict[str, str]]:
    """The (backend, device) rows this machine can run, and why the others are left out."""
    has_llama = importlib.util.find_spec("llama_cpp") is not None
    wanted = {
        BackendRow("llama-cpp", "cpu"): None if has_llama else "llama-cpp-python is not installed",
        BackendRow("transformers", "cpu"): None,
        BackendRow("transformers-4bit", "cpu"): None if hw.bitsandbytes_ok else "bitsandbytes is not installed",
    }
    cuda = None if hw.cuda_available else "no CUDA GPU"
    no_4bit = None if hw.bitsandbytes_ok else "bitsandbytes has no CUDA build"
    no_offload = None if hw.llama_gpu_offload else "llama.cpp was built without GPU offload"
    wanted[BackendRow("transformers-4bit", "cuda")] = cuda or no_4bit
    wanted[BackendRow("transformers", "cuda")] = cuda
    wanted[BackendRow("llama-cpp", "cuda")] = cuda or no_offload
    if random_weights:
        for row in wanted:
            if row.backend == "llama-cpp" and wanted[row] is None:
                wanted[row] = "--random-weights measures the transformers runtimes only (llama.cpp needs the GGUF)"
    rows = [row for row, reason in wanted.items() if reason is None]
    return rows, {row.name: reason for row, reason in wanted.items() if reason is not None}


def select_rows(rows: list[BackendRow], selectors: tuple[str, ...]) -> list[BackendRow]:
    """Rows matching `selectors` ("llama-cpp" for every device, or "llama-cpp/cpu")."""
    if not selectors:
        return rows
    from ..backends.probe import DEVICES

    for selector in selectors:
        backend, _, device = selector.partition("/")
        if backend not in BACKEND_NAMES or (device and device not in DEVICES):
            raise InputError(f"unknown backend row {selector!r} "
                             "(e.g. llama-cpp, transformers/cpu, transformers-4bit/cuda)")
    return [row for row in rows if row.backend in selectors or row.name in selectors]
