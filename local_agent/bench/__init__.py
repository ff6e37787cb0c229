"""Benchmarks: each backend against raw llama-cpp-python, cold start, and the memory pipeline.

Every measurement warms up first, repeats, and reports the median and spread. Each backend is
measured in its own child process so that its peak RSS is its own; CUDA work is synchronized
before the clock is read. `run_benchmark` runs a `BenchPlan` and returns one results dict;
`render_markdown`, `write_json` and `write_chart` turn it into the report.

Modules, from the bottom up: `stats` (median and spread), `measure` (clocks, peak memory,
child processes), `plan` (what to run), `generation` and `raw_llama` (backend speed and its
baseline), `coldstart`, `synthetic`, `recall`, `turns` and `pipeline` (the memory pipeline),
`random_weights`, `machine`, `targets`, `runner` (a whole run), `report` and `chart`.
"""

from .chart import write_chart
from .coldstart import ask_command, measure_cold_start
from .generation import answer_settings, bench_messages, measure_backend
from .machine import machine_description
from .pipeline import measure_pipeline
from .plan import SECTIONS, BackendRow, BenchPlan, candidate_rows, select_rows
from .random_weights import config_folder, random_weight_model
from .raw_llama import measure_raw_llama
from .recall import measure_recall
from .report import render_markdown, write_json
from .runner import RESULTS_VERSION, add_ratios, run_benchmark
from .stats import spread
from .synthetic import RECALL_QUERIES, synthetic_record, synthetic_state, unit_vectors, write_synthetic_store
from .targets import targets

__all__ = [
    "RECALL_QUERIES", "RESULTS_VERSION", "SECTIONS", "BackendRow", "BenchPlan", "add_ratios", "answer_settings",
    "ask_command", "bench_messages", "candidate_rows", "config_folder", "machine_description",
    "measure_backend", "measure_cold_start", "measure_pipeline", "measure_raw_llama", "measure_recall",
    "random_weight_model", "render_markdown", "run_benchmark", "select_rows", "spread", "synthetic_record",
    "synthetic_state", "targets", "unit_vectors", "write_chart", "write_json", "write_synthetic_store",
]
