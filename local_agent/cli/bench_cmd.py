"""`local-agent bench`: speed of every backend against raw llama.cpp, cold start, and memory.

The benchmark module is imported when the command runs, not when the CLI starts.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import InputError
from ..types import BACKEND_NAMES
from .group import cli
from .options import common_options, echo_err, settings_from

if TYPE_CHECKING:
    from ..bench import BenchPlan


def _names(value: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (value or "").split(",") if part.strip())


def _plan(quick: bool, backends: str | None, sections: str | None, reps: int | None, tokens: int | None,
          random_weights: bool, texts: tuple[Path, ...] = (), store_sizes: str | None = None) -> BenchPlan:
    from ..bench import BenchPlan

    plan = BenchPlan.quick_plan() if quick else BenchPlan()
    overrides: dict[str, Any] = {"backends": _names(backends), "random_weights": random_weights}
    if sections:
        overrides["sections"] = _names(sections)
    if reps is not None:
        overrides["reps"] = reps
    if tokens is not None:
        overrides["tokens"] = tokens
    if texts:
        overrides["store_texts"] = tuple(texts)
    if store_sizes:
        try:
            overrides["store_sizes"] = tuple(int(size) for size in _names(store_sizes))
        except ValueError:
            raise InputError(f"--store-sizes takes whole numbers separated by commas, got {store_sizes!r}") from None
        if not overrides["store_sizes"] or min(overrides["store_sizes"]) < 1:
            raise InputError("--store-sizes needs at least one size, each at least 1")
    if overrides.get("reps", 1) < 1 or overrides.get("tokens", 2) < 2:
        raise InputError("--reps must be at least 1 and --tokens at least 2")
    return replace(plan, **overrides)


BENCH_HELP = """Measure speed and latency; print a markdown table, write JSON and a PNG chart.

\b
backends    for each backend this machine can run (CPU: llama-cpp, transformers
            float32, transformers-4bit; CUDA: transformers-4bit, transformers
            bfloat16, llama-cpp with GPU offload), each in its own process: load
            time, prompt tokens/s, decode tokens/s, time to first token (TTFT), peak
            RSS and peak GPU memory; and raw llama-cpp-python on the same prompts,
            threads and token count in its own process, with its own defaults
            (no OpenMP variables, its default sampler): the baseline for "decode vs raw".
speed       on the installed llama.cpp build: llama.cpp's llama-bench (pp512,
            tg128; `make llama-bench` builds it), raw llama-cpp-python and the
            backend: prompt evaluation of 512 tokens, and decode idle and with one
            competing CPU-bound process, against the backend with
            OMP_WAIT_POLICY=PASSIVE (how it ran before).
cold-start  wall time of `local-agent ask "hi"` in a fresh data dir, with memory
            and with --no-memory: to the first answer text, and to exit; and
            repeated on one data dir, with and without the saved system-prompt state.
memory      query embedding; recall (search only) at 1k, 10k and 100k synthetic
            memories; distillation; summary; and full turns through the agent on a
            store of 10k memories: TTFT of the bare backend, of the agent without
            memory and with memory (their difference is the memory overhead).
batching    llama.cpp decoding 1, 2, 4 and 8 conversations at once in one model,
            against llama.cpp's own llama-batched-bench from the same build.
batch       conversations per minute of `batch --parallel`, memory off and with
            a namespace per session.
server      `serve` under 8 clients at --parallel 1 and 4, memory off and with a
            namespace per client: errors, p50/p95 latency, tokens/s, RSS.
stores      large memory stores (--store-sizes, made of --texts): open time, dense
            search and its agreement with exact search, whole and dated recall,
            RSS, disk (scripts/bench_stores.py adds 1M, --dated and --ask).

\b
Targets: agent decode >= 0.95 x raw (idle), >= PASSIVE with a competing process;
prompt evaluation >= 0.9 x llama-bench pp512; memory overhead on TTFT <= 50 ms at
10k memories; recall p50 <= 20 ms at 100k memories; TTFT of a chat turn with
memory <= 0.25 s.
Every number is the median of several runs after a warm-up, with min and max.
--model, --threads, --ctx-size apply to every row; --backend/--device choose the
runtime of the cold-start and memory sections (auto by default). Your own data dir
is never touched: every measurement uses a temporary one.
"""


@cli.command(help=BENCH_HELP)
@click.option("--quick", is_flag=True,
              help="Fewer runs (2 after the warm-up), 32 tokens a run, one cold start each, one pass over "
                   "the recall queries: a few minutes on 2 CPU cores.")
@click.option("--backends", metavar="ROWS",
              help=f"Comma-separated rows to measure: {', '.join(BACKEND_NAMES)}, each "
                   "optionally with /cpu or /cuda (e.g. llama-cpp/cpu,transformers-4bit/cuda). "
                   "Default: every row this machine can run.")
@click.option("--sections", metavar="NAMES",
              help="Comma-separated parts to run: backends, speed, cold-start, memory, batching, batch, "
                   "server, stores [all].")
@click.option("--reps", type=int, help="Timed runs after the warm-up [5; 2 with --quick].")
@click.option("--tokens", type=int, help="Tokens generated per run, greedy [128; 32 with --quick].")
@click.option("--random-weights", is_flag=True,
              help="Measure the transformers rows on weights initialized from the model folder's "
                   "config.json instead of its safetensors (speed does not depend on weight values): "
                   "for machines that have the config and tokenizer files but not the weights.")
@click.option("--texts", type=click.Path(exists=True, dir_okay=False, path_type=Path), multiple=True,
              help="stores: what the memories say, from a LoCoMo .json or a .jsonl with `text` fields "
                   "(repeat for several files) [synthetic memories].")
@click.option("--store-sizes", metavar="N,N",
              help="stores: the store sizes [1000,10000,100000; 1000,10000 with --quick].")
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("bench-results"),
              show_default=True, help="Where benchmark.json and benchmark.png are written.")
@click.option("--no-progress", is_flag=True, help="No progress bar on stderr.")
@common_options
def bench(quick: bool, backends: str | None, sections: str | None, reps: int | None, tokens: int | None,
          random_weights: bool, texts: tuple[Path, ...], store_sizes: str | None, output_dir: Path,
          no_progress: bool) -> None:
    """Run the benchmark (its --help is BENCH_HELP, kept out of the function for its length)."""
    from ..bench import render_markdown, run_benchmark, write_json

    settings = settings_from(click.get_current_context())
    plan = _plan(quick, backends, sections, reps, tokens, random_weights, texts, store_sizes)
    results = run_benchmark(settings, plan, progress=not no_progress)
    json_path, chart_path = output_dir / "benchmark.json", output_dir / "benchmark.png"
    write_json(results, json_path)
    click.echo(render_markdown(results))
    _write_chart(results, chart_path)
    echo_err(f"wrote {json_path} and {chart_path}")
    from ..bench.parallel_chart import has_parallel_sections, write_parallel_chart

    if has_parallel_sections(results):
        write_parallel_chart(results, output_dir / "benchmark-parallel.png")
        echo_err(f"wrote {output_dir / 'benchmark-parallel.png'}")


def _write_chart(results: dict[str, Any], path: Path) -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("the chart needs matplotlib: pip install -e '.[dev]' "
                         "(the table and the JSON are written)") from None
    from ..bench import write_chart

    write_chart(results, path)
