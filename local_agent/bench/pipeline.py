"""The memory pipeline through the product's runtime: distillation, summary, full turns
(in a child process)."""

from __future__ import annotations

import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import InputError
from ..types import Message
from .measure import peak_rss_mb
from .plan import BenchPlan
from .stats import scaled, spread
from .synthetic import write_synthetic_store
from .turns import measure_turns

if TYPE_CHECKING:
    from ..app import Runtime
    from ..turn.agent import MemoryParts


# One message per route: rules, the model (two), and the gate's rejection.
DISTILL_WARMUP = "I started learning the cello two years ago."
DISTILL_MESSAGES = (
    "My name is Priya and I work as a nurse in Leeds.",
    "Fixing up old bicycles keeps me busy most evenings.",
    "We have three kids and they really wanted a dog, so now we have a beagle.",
    "What time is it in Tokyo right now?",
)
SUMMARY_DIALOGUE = (
    Message("user", "I'm planning a trip to Kyoto in April with my sister Aiko."),
    Message("assistant", "That sounds lovely! April is cherry blossom season in Kyoto."),
    Message("user", "We want to see temples but avoid the biggest crowds. I also need a vegetarian dinner."),
    Message("assistant", "Visit Fushimi Inari early in the morning, and try shojin ryori, Buddhist vegetarian food."),
    Message("user", "Great. My budget is about 2000 dollars for the whole week."),
    Message("assistant", "That is workable: stay in a guesthouse and use a regional rail pass."),
    Message("user", "Remind me to book the train from Tokyo by Friday."),
    Message("assistant", "Noted: book the Tokyo to Kyoto train by Friday."),
)


def measure_pipeline(settings: Settings, plan: BenchPlan) -> dict[str, Any]:
    """Distillation, summary and full turns through the product's own runtime (build_runtime:
    chat backend, distiller backend, store, agent) over a store of `plan.turn_store_size`
    synthetic memories."""
    from ..app import build_runtime
    from ..memory.index.embedder import Embedder

    with tempfile.TemporaryDirectory(prefix="local-agent-bench-") as tmp:
        data_dir = Path(tmp)
        write_synthetic_store(data_dir, plan.turn_store_size, Embedder())
        start = time.perf_counter()
        runtime = build_runtime(replace(settings, data_dir=data_dir), memory=True)
        load_s = time.perf_counter() - start
        try:
            return {"store_memories": plan.turn_store_size, "runtime_load_s": load_s,
                    "distill": _measure_distill(runtime, plan.reps),
                    "summary": _measure_summary(runtime, plan.reps),
                    "turn": measure_turns(runtime, settings, plan), "peak_rss_mb": peak_rss_mb()}
        finally:
            runtime.close()


def _memory(runtime: Runtime) -> MemoryParts:
    if runtime.memory is None:
        raise InputError("the memory pipeline benchmark needs a runtime with memory on")
    return runtime.memory


def _measure_distill(runtime: Runtime, reps: int) -> dict[str, Any]:
    distiller = _memory(runtime).distiller
    if distiller is None:
        raise InputError("the memory pipeline benchmark needs a distiller")
    distiller.distill(DISTILL_WARMUP)  # compiles the grammar, caches the fixed prompt prefix
    runs: list[dict[str, Any]] = []
    for message in DISTILL_MESSAGES * reps:
        result = distiller.distill(message)
        runs.append({"message": message, "seconds": result.seconds, "model_called": result.model_called,
                     "facts": len(result.candidates)})
    model_runs = [r["seconds"] * 1000 for r in runs if r["model_called"]]
    return {"all_ms": scaled([r["seconds"] for r in runs], 1000),
            "model_called_ms": spread(model_runs) if model_runs else None,
            "runs": runs[: len(DISTILL_MESSAGES)]}


def _measure_summary(runtime: Runtime, reps: int) -> dict[str, Any]:
    summarizer = _memory(runtime).summarizer
    if summarizer is None:
        raise InputError("the memory pipeline benchmark needs a summarizer")
    seconds = []
    for index in range(reps + 1):  # run 0 warms up (compiles the schema's grammar)
        start = time.perf_counter()
        text = summarizer.fold("", SUMMARY_DIALOGUE)
        if index:
            seconds.append(time.perf_counter() - start)
    return {"fold_ms": scaled(seconds, 1000), "messages": len(SUMMARY_DIALOGUE),
            "bullets": text.count("\n") + 1}
