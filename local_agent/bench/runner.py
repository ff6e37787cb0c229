"""Running a plan: its steps in order, each failure recorded, the results dict assembled."""

from __future__ import annotations

import datetime as dt
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..config import Settings
from ..errors import InputError, LocalAgentError
from .batch_rate import measure_batch_rate
from .batching import measure_batching
from .coldstart import measure_cold_start, measure_saved_state
from .generation import answer_settings, measure_backend
from .machine import load_average, machine_description
from .measure import run_in_child
from .pipeline import measure_pipeline
from .plan import SECTIONS, BackendRow, BenchPlan, candidate_rows, select_rows
from .random_weights import model_for_plan
from .raw_llama import measure_raw_llama
from .recall import measure_recall
from .server_load import measure_server_load
from .speed import measure_speed
from .targets import targets

if TYPE_CHECKING:
    from ..backends.probe import HardwareInfo


RESULTS_VERSION = 1


Step = tuple[str, Callable[[], None]]


@dataclass
class _Run:
    """One benchmark run: its steps fill `results` as they go; a step that fails is
    recorded under `errors` and the others still run."""

    settings: Settings
    plan: BenchPlan
    results: dict[str, Any] = field(default_factory=dict)
    prompts: dict[str, list[str]] = field(default_factory=dict)  # per llama-cpp row, for the raw baseline

    def steps(self, hw: HardwareInfo) -> list[Step]:
        steps: list[Step] = []
        if "backends" in self.plan.sections:
            steps += self._backend_steps(hw)
        if "speed" in self.plan.sections and not self.plan.random_weights:  # llama.cpp needs the GGUF
            steps.append(("speed", self._speed))
        if "cold-start" in self.plan.sections:
            steps += [("cold start, no memory", lambda: self._cold_start(False)),
                      ("cold start, memory", lambda: self._cold_start(True)),
                      ("ask with a saved system prompt state", self._saved_state)]
        if "memory" in self.plan.sections:
            steps += [("recall", self._recall), ("memory pipeline", self._pipeline)]
        if "batching" in self.plan.sections and not self.plan.random_weights:  # llama.cpp needs the GGUF
            steps.append(("batched decoding", self._batching))
        if "batch" in self.plan.sections:
            steps += [("batch --parallel, memory off", lambda: self._batch_rate(False)),
                      ("batch --parallel, a namespace each", lambda: self._batch_rate(True))]
        if "server" in self.plan.sections:
            steps += [("server under load, memory off", lambda: self._server(False)),
                      ("server under load, a namespace per client", lambda: self._server(True))]
        if "stores" in self.plan.sections:
            steps.append(("large stores", self._stores))
        return steps

    def _backend_steps(self, hw: HardwareInfo) -> list[Step]:
        rows, skipped = candidate_rows(hw, self.plan.random_weights)
        self.results["backends"], self.results["backends_skipped"] = [], skipped
        steps: list[Step] = []
        for row in select_rows(rows, self.plan.backends):
            steps.append((row.name, partial(self._backend, row)))
            if row.backend == "llama-cpp":
                steps.append((f"raw llama-cpp-python/{row.device}", partial(self._raw, row)))
        return steps

    def _backend(self, row: BackendRow) -> None:
        measured = run_in_child(measure_backend, self.settings, row.backend, row.device, self.plan.reps,
                                self.plan.tokens)
        self.prompts[row.name] = measured.pop("prompts")
        self.results["backends"].append({"name": row.name, "baseline": False, **measured})

    def _raw(self, row: BackendRow) -> None:
        from ..models import resolve_model

        if row.name not in self.prompts:
            raise LocalAgentError(f"no prompts: the {row.name} row failed")
        gguf = resolve_model(self.settings.model, self.settings.models_dir).gguf_path
        if gguf is None:
            raise LocalAgentError(f"model {self.settings.model} has no GGUF file for raw llama-cpp-python")
        # Its workers are processes of their own, with their own environments.
        measured = measure_raw_llama(self.settings, gguf, row.device, self.plan.reps, self.plan.tokens,
                                     self.prompts[row.name])
        self.results["backends"].append({"name": f"raw/{row.device}", "baseline": True, **measured})

    def _speed(self) -> None:
        self.results["speed"] = measure_speed(self.settings, self.plan)

    def _cold_start(self, memory: bool) -> None:
        # --quick warms up once, before the first of the two.
        warm_up = not (self.plan.quick and memory)
        measured = measure_cold_start(self.settings, memory, self.plan.cold_reps, warm_up=warm_up)
        self.results.setdefault("cold_start", {})["memory" if memory else "no_memory"] = measured

    def _saved_state(self) -> None:
        self.results["saved_state"] = measure_saved_state(self.settings, max(self.plan.cold_reps, 3))

    def _recall(self) -> None:
        k = self.settings.recall_k + 4  # what the agent asks the store for
        self.results.setdefault("memory", {}).update(
            run_in_child(measure_recall, self.plan.recall_sizes, self.plan.recall_passes, k))

    def _batching(self) -> None:
        self.results["batching"] = measure_batching(self.settings, self.plan.reps)

    def _batch_rate(self, memory: bool) -> None:
        measured = measure_batch_rate(self.settings, max(self.plan.cold_reps, 2), memory)
        self.results.setdefault("batch", {})["memory" if memory else "no_memory"] = measured

    def _server(self, memory: bool) -> None:
        from ..server.options import BENCH_PARALLEL

        counts = (1, BENCH_PARALLEL)
        measured = measure_server_load(self.settings.model, counts, memory)
        self.results.setdefault("server", {})["memory" if memory else "no_memory"] = measured

    def _stores(self) -> None:
        import tempfile

        from .stores import run_stores

        with tempfile.TemporaryDirectory(prefix="local-agent-stores-") as folder:
            self.results["stores"] = run_stores(list(self.plan.store_texts) or None, list(self.plan.store_sizes),
                                                Path(folder))

    def _pipeline(self) -> None:
        self.results.setdefault("memory", {})["pipeline"] = run_in_child(measure_pipeline, self.settings, self.plan)


def run_benchmark(settings: Settings, plan: BenchPlan, progress: bool = True) -> dict[str, Any]:
    """Run every step of `plan` and return all numbers with the machine's description."""
    from tqdm import tqdm

    from ..backends.probe import probe_hardware

    unknown = set(plan.sections) - set(SECTIONS)
    if unknown:
        raise InputError(f"unknown section(s) {', '.join(sorted(unknown))} (choose from {', '.join(SECTIONS)})")
    start = time.perf_counter()
    results: dict[str, Any] = {"version": RESULTS_VERSION, "created": dt.datetime.now().isoformat(timespec="seconds"),
                               "machine": machine_description(), "settings": _settings_dict(settings, plan),
                               "errors": {}}
    with model_for_plan(settings, plan) as measured_settings:
        run = _Run(measured_settings, plan, results)
        steps = run.steps(probe_hardware())
        with tqdm(steps, desc="benchmark", unit="step", file=sys.stderr, disable=not progress) as bar:
            for name, step in bar:
                bar.set_postfix_str(name)
                _run_step(name, step, results["errors"])
    add_ratios(results.get("backends", []))
    results["targets"] = targets(results)
    results["machine"]["load_average_at_end"] = load_average()
    results["wall_s"] = time.perf_counter() - start
    return results


def _run_step(name: str, step: Callable[[], None], errors: dict[str, str]) -> None:
    try:
        step()
    except Exception as exc:  # one failed measurement must not lose the others
        errors[name] = f"{type(exc).__name__}: {' '.join(str(exc).split())[:500]}"


def _settings_dict(settings: Settings, plan: BenchPlan) -> dict[str, Any]:
    from ..backends.probe import physical_cores

    # threads=0 (the default) lets the backend choose, and follow the cores left free.
    return {"model": settings.model, "threads": settings.threads or physical_cores(),
            "threads_auto": not settings.threads, "ctx_size": settings.ctx_size,
            "backend_for_pipeline": settings.backend, "device_for_pipeline": settings.device,
            "greedy": True, "repeat_penalty": answer_settings(settings, plan.tokens).repeat_penalty,
            **asdict(plan)}


def add_ratios(rows: list[dict[str, Any]]) -> None:
    """Each llama-cpp row's decode speed and time to first token relative to raw
    llama-cpp-python on the same device, from the paired runs."""
    baselines = {row["device"]: row for row in rows if row.get("baseline")}
    for row in rows:
        raw = baselines.get(row["device"])
        if row.get("baseline") or row["backend"] != "llama-cpp" or raw is None:
            continue
        row["decode_vs_raw"] = raw["paired"]["decode_ratio"]
        row["ttft_vs_raw"] = raw["paired"]["ttft_ratio"]
