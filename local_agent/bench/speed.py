"""Speed on one llama.cpp build: llama.cpp's own llama-bench, raw llama-cpp-python with its
defaults, and the product's backend; and how their threads wait, idle and with one competing
CPU-bound process.

Three long-lived workers take turns, in rotating order, so that each round sees about the same
load: raw llama-cpp-python (no OpenMP variables, its default sampler), the backend as it runs
now (the package's wait policy, threads following the free cores), and the backend as it ran
before (OMP_WAIT_POLICY=PASSIVE, fixed threads). Ratios are taken within each round.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import replace
from functools import partial
from typing import Any

from ..config import Settings
from .llama_bench import best, build_variant, llama_bench_path, pp512_once, run_llama_bench
from .machine import load_average
from .plan import BenchPlan
from .stats import spread
from .workers import Competitor, Worker, backend_worker, library_env, raw_worker, with_env, worker_settings

PROMPT_TOKENS = 512
SETUPS = ("raw", "ours", "passive")
RUNS_FROM = {"idle": 2000, "competing": 3000, "prompt": 4000}  # prompts no other run processed


@contextlib.contextmanager
def speed_workers(settings: Settings, threads: int) -> Iterator[dict[str, Worker]]:
    from ..models import resolve_model

    gguf = resolve_model(settings.model, settings.models_dir).gguf_path
    if gguf is None:
        raise ValueError(f"model {settings.model} has no GGUF file")
    cpu = replace(settings, backend="llama-cpp", device="cpu")
    with contextlib.ExitStack() as stack:
        yield {
            "raw": stack.enter_context(raw_worker(gguf, threads, settings.ctx_size, library_env())),
            "ours": stack.enter_context(backend_worker(worker_settings(cpu), "backend")),
            "passive": stack.enter_context(backend_worker(
                worker_settings(replace(cpu, threads=threads)), "backend, PASSIVE",
                env=with_env({"OMP_WAIT_POLICY": "PASSIVE"}))),
        }


def measure_speed(settings: Settings, plan: BenchPlan) -> dict[str, Any]:
    """The whole section (see the module's docstring). llama-bench runs in the package's
    environment (its wait policy), as the backend does: with llama.cpp's default spin its decode
    stalls for minutes whenever the cores are busy."""
    from ..backends.probe import physical_cores
    from ..models import resolve_model

    threads = settings.threads or physical_cores()
    gguf = resolve_model(settings.model, settings.models_dir).gguf_path
    result: dict[str, Any] = {"threads": threads, "tokens": plan.tokens, "load_average_start": load_average()}
    with speed_workers(settings, threads) as workers:
        result["system_info"] = workers["raw"].ready["system_info"]
        result["build"] = build_variant(result["system_info"])
        binary = llama_bench_path(result["build"])
        bench = partial(pp512_once, binary, gguf, threads, os.environ) if binary.is_file() and gguf else None
        result["idle"] = decode_rounds(workers, plan.reps, plan.tokens, competing=False)
        result["competing"] = decode_rounds(workers, plan.reps, plan.tokens, competing=True)
        result["prompt"] = prompt_rounds(workers, plan.reps, bench)
    assert gguf is not None  # checked by speed_workers
    result["llama_bench"] = run_llama_bench(binary, gguf, threads, max(plan.reps, 2),
                                            flash_attn="0" if plan.quick else "0,1", env=os.environ)
    result["load_average_end"] = load_average()
    result["summary"] = summarize(result)
    return result


def decode_rounds(workers: dict[str, Worker], reps: int, tokens: int, competing: bool) -> dict[str, Any]:
    """Decode tokens/s of each setup, one run each a round; round 0 warms up. With a competing
    process raw llama-cpp-python is left out: its default spin then stalls for minutes."""
    setups = SETUPS[1:] if competing else SETUPS
    speeds: dict[str, list[float]] = {name: [] for name in setups}
    first = RUNS_FROM["competing" if competing else "idle"]
    for index in range(reps + 1):
        run = first + index
        prompt = workers["ours"].ask(op="format", run=run)["prompt"]
        order = setups[index % len(setups):] + setups[: index % len(setups)]
        for name in order:
            with Competitor() if competing else contextlib.nullcontext():
                if name == "raw":
                    measured = workers[name].ask(op="decode", prompt=prompt, max_tokens=tokens)
                else:
                    measured = workers[name].ask(op="decode", run=run, max_tokens=tokens)
            if index:
                speeds[name].append(measured["decode_tok_s"])
    result = {f"{name}_tok_s": spread(values) for name, values in speeds.items()}
    result["ours_vs_passive"] = spread([o / p for o, p in zip(speeds["ours"], speeds["passive"])])
    if "raw" in speeds:
        result["ours_vs_raw"] = spread([o / r for o, r in zip(speeds["ours"], speeds["raw"])])
    return result


def prompt_rounds(workers: dict[str, Worker], reps: int, bench: Callable[[], float] | None) -> dict[str, Any]:
    """Prompt evaluation of PROMPT_TOKENS tokens, in rotating order: raw `Llama.eval` on an
    empty context, the backend's time to first token of a chat prompt that long, and (when
    `bench` is given) llama-bench's pp512 without flash attention, as the backend runs; round 0
    warms up."""
    names = ("raw", "ours", "llama-bench") if bench else ("raw", "ours")
    speeds: dict[str, list[float]] = {name: [] for name in names}
    for index in range(reps + 1):
        for name in names[index % len(names):] + names[: index % len(names)]:
            if name == "llama-bench":
                assert bench is not None
                speed = bench()
            else:
                run = RUNS_FROM["prompt"] + index
                speed = workers[name].ask(op="prompt", tokens=PROMPT_TOKENS, run=run)["prompt_tok_s"]
            if index:
                speeds[name].append(speed)
    result = {"tokens": PROMPT_TOKENS, **{f"{name.replace('-', '_')}_tok_s": spread(v) for name, v in speeds.items()},
              "ours_vs_raw": spread([o / r for o, r in zip(speeds["ours"], speeds["raw"])])}
    if bench:
        result["ours_vs_llama_bench"] = spread([o / b for o, b in zip(speeds["ours"], speeds["llama-bench"])])
    return result


def summarize(result: dict[str, Any]) -> dict[str, Any]:
    """The numbers the targets check: decode against raw (idle) and against PASSIVE (with a
    competing process), and prompt evaluation against llama-bench's pp512 (paired runs,
    without flash attention: it changes the model's greedy answers, so the backend does not
    use it)."""
    tg128 = best(result["llama_bench"], "tg128")
    ratio = result["prompt"].get("ours_vs_llama_bench")
    return {
        "decode_vs_raw_idle": result["idle"]["ours_vs_raw"]["median"],
        "decode_vs_passive_competing": result["competing"]["ours_vs_passive"]["median"],
        "llama_bench_tg128_tok_s": tg128["tok_s"] if tg128 else None,
        "prompt_vs_llama_bench": ratio["median"] if ratio else None,
    }
