"""The benchmark's pure parts: statistics, row selection, targets, the report writers, the
synthetic memories. No timing is asserted; nothing here loads a language model."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from local_agent import bench
from local_agent.backends.probe import HardwareInfo
from local_agent.bench.batching import parse_batched_bench, summarize_rounds
from local_agent.bench.parallel_chart import write_parallel_chart
from local_agent.cli import cli
from local_agent.config import Settings
from local_agent.errors import InputError


def s(median: float, low: float | None = None, high: float | None = None, n: int = 3) -> dict:
    return {"median": median, "min": median if low is None else low, "max": median if high is None else high, "n": n}


def row(name: str, decode: float, baseline: bool = False, gpu: float | None = None) -> dict:
    backend, device = name.split("/")
    measured = {"name": name, "baseline": baseline, "backend": "raw llama-cpp-python" if baseline else backend,
                "device": device, "load_s": 0.5, "prompt_tokens": 58, "completion_tokens": 32,
                "ttft_s": s(0.2, 0.15, 0.3), "decode_tok_s": s(decode, decode - 2, decode + 2),
                "prompt_tok_s": s(290.0, 250.0, 300.0), "peak_rss_mb": 550.0, "peak_gpu_mb": gpu}
    if baseline:
        measured["paired"] = {"decode_ratio": s(0.96, 0.94, 0.98), "ttft_ratio": s(1.01, 1.0, 1.02)}
    return measured


@pytest.fixture
def results() -> dict:
    """A small results dict shaped like run_benchmark's."""
    backends = [row("llama-cpp/cpu", 48.0), row("raw/cpu", 50.0, baseline=True), row("transformers/cpu", 20.0),
                row("transformers-4bit/cuda", 90.0, gpu=410.0)]
    bench.add_ratios(backends)
    turn = {"messages": 3, "tokens": 32,
            "bare": {"ttft_ms": s(200.0), "answer_ms": s(900.0), "prompt_tokens": s(40.0)},
            "agent_no_memory": {"ttft_ms": s(220.0), "answer_ms": s(950.0), "compose_ms": s(1.0),
                                "prompt_tokens": s(60.0), "after_answer_ms": s(0.1)},
            "agent_memory": {"ttft_ms": s(480.0), "answer_ms": s(1200.0), "compose_ms": s(5.0),
                             "prompt_tokens": s(250.0), "after_answer_ms": s(40.0), "recall_ms": s(30.0),
                             "recalled": s(6.0), "before_model_ms": s(35.0)},
            "memory_overhead_ms": 35.0, "ttft_delta_ms": 280.0, "ttft_delta_ratio": 2.4,
            "dialogue": {"no_read_ahead": {"ttft_ms": s(900.0), "prompt_tokens": s(400.0)},
                         "read_ahead": {"ttft_ms": s(450.0), "prompt_tokens": s(400.0)}}}
    memory = {"query_embedding_ms": s(12.0), "k": 10, "queries": 16,
              "recall": [{"memories": size, "build_s": 1.0, "recall_ms": s(ms, ms / 2, ms * 2), "hits": s(10.0)}
                         for size, ms in ((1_000, 1.0), (10_000, 2.5), (100_000, 19.0))],
              "pipeline": {"store_memories": 10_000, "runtime_load_s": 2.0, "turn": turn,
                           "distill": {"all_ms": s(900.0), "model_called_ms": s(1800.0), "runs": []},
                           "summary": {"fold_ms": s(3000.0), "messages": 8, "bullets": 5}}}
    data = {"version": 1, "created": "2026-11-30T10:00:00",
            "machine": {"processor": "Test CPU", "cpu_cores": 2, "ram_gb": 8.0, "cuda_device_name": "Test GPU",
                        "load_average_at_start": [1.0, 1.0, 1.0], "load_average_at_end": [1.5, 1.0, 1.0]},
            "settings": {"model": "tiny", "threads": 2, "tokens": 32, "reps": 2, "quick": True,
                         "random_weights": False},
            "backends": backends, "backends_skipped": {"llama-cpp/cuda": "llama.cpp was built without GPU offload"},
            "cold_start": {"no_memory": {"memory": False, "to_answer_s": s(2.0), "exit_s": s(2.5)},
                           "memory": {"memory": True, "to_answer_s": s(4.0), "exit_s": s(4.8)}},
            "memory": memory, "errors": {"transformers-4bit/cpu": "BackendError: no bitsandbytes"}, "wall_s": 100.0}
    data["targets"] = bench.targets(data)
    return data


def test_spread_reports_median_and_range():
    assert bench.spread([3.0, 1.0, 2.0, 10.0]) == {"median": 2.5, "min": 1.0, "max": 10.0, "n": 4}
    assert bench.spread([7.0]) == {"median": 7.0, "min": 7.0, "max": 7.0, "n": 1}


def test_rows_follow_the_hardware_and_say_why_others_are_left_out():
    cpu_only = HardwareInfo(cpu_cores=2, ram_gb=8.0, bitsandbytes_ok=True)
    rows, skipped = bench.candidate_rows(cpu_only)
    assert {r.name for r in rows} >= {"transformers/cpu", "transformers-4bit/cpu"}
    assert skipped["transformers/cuda"] == "no CUDA GPU"
    gpu = HardwareInfo(cpu_cores=2, ram_gb=8.0, cuda_available=True, bitsandbytes_ok=True, llama_gpu_offload=False)
    rows, skipped = bench.candidate_rows(gpu, random_weights=True)
    assert "transformers-4bit/cuda" in {r.name for r in rows}
    assert not [r for r in rows if r.backend == "llama-cpp"]
    assert "random-weights" in skipped["llama-cpp/cpu"]


def test_select_rows_by_backend_or_by_backend_and_device():
    rows = [bench.BackendRow("llama-cpp", "cpu"), bench.BackendRow("transformers", "cpu"),
            bench.BackendRow("transformers", "cuda")]
    assert bench.select_rows(rows, ()) == rows
    assert [r.name for r in bench.select_rows(rows, ("transformers",))] == ["transformers/cpu", "transformers/cuda"]
    assert [r.name for r in bench.select_rows(rows, ("transformers/cuda", "llama-cpp"))] == [
        "llama-cpp/cpu", "transformers/cuda"]
    with pytest.raises(InputError, match="unknown backend row"):
        bench.select_rows(rows, ("vllm",))


def test_decode_ratio_comes_from_the_paired_runs_on_the_same_device(results):
    llama, raw = results["backends"][:2]
    assert llama["decode_vs_raw"] == raw["paired"]["decode_ratio"]
    assert "decode_vs_raw" not in results["backends"][2]  # no raw baseline for transformers


def test_targets_compare_each_measurement_with_its_goal(results):
    checks = {c["target"]: c for c in results["targets"]}
    assert checks["agent decode / raw llama-cpp-python (paired runs)"]["met"] is True
    name = "memory pipeline overhead on TTFT (recall + compose) at 10,000 memories"
    assert checks[name] == {"target": name, "value": 35.0, "goal": "<= 50 ms", "unit": "ms", "met": True}
    assert checks["recall p50 at 100,000 memories"]["met"] is True
    assert checks["TTFT of a chat turn with memory, once loaded"]["value"] == pytest.approx(0.48)
    assert all(c["met"] is None for c in bench.targets({"settings": {}}))


def test_markdown_has_a_table_per_section_targets_and_problems(results):
    text = bench.render_markdown(results)
    assert ("| llama-cpp/cpu | 0.50 | 290.0 (250.0–300.0) | 48.0 (46.0–50.0) | 200 (150–300) "
            "| 0.960 (0.940–0.980) | 550 | – |") in text
    assert "| raw/cpu (baseline) |" in text
    assert '| `ask "hi"` --no-memory | 2.00 (2.00–2.00) | 2.50 (2.50–2.50) |' in text
    assert "| recall, search only, 100,000 memories (k=10) | 19.00 (9.50–38.00) |" in text
    assert "| TTFT with memory - bare (pipeline + longer prompt) | 280 (×2.40) |" in text
    assert "| the same, dialogue read ahead while the user types | 450 (450–450) |" in text
    assert ("| memory pipeline overhead on TTFT (recall + compose) at 10,000 memories | 35.0 ms | <= 50 ms | yes |"
            in text)
    assert "skipped llama-cpp/cuda: llama.cpp was built without GPU offload" in text
    assert "**failed** transformers-4bit/cpu: BackendError: no bitsandbytes" in text


def test_markdown_of_a_partial_run_leaves_out_what_did_not_run(results):
    for key in ("backends", "cold_start", "memory", "backends_skipped", "errors"):
        results.pop(key)
    results["targets"] = bench.targets(results)
    text = bench.render_markdown(results)
    assert "decode tok/s" not in text and "cold start" not in text and "distillation" not in text
    assert text.count("not measured") == 14


def test_json_writer_round_trips(results, tmp_path: Path):
    path = tmp_path / "out" / "benchmark.json"
    bench.write_json(results, path)
    assert json.loads(path.read_text()) == json.loads(json.dumps(results))


@pytest.mark.parametrize("keep", ["all", "memory only"])
def test_chart_writer_makes_a_png(results, tmp_path: Path, keep: str):
    if keep == "memory only":
        results.pop("backends")
    path = tmp_path / "charts" / "benchmark.png"
    bench.write_chart(results, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_synthetic_memories_are_varied_and_searchable_by_the_product_recall():
    from local_agent.memory.index import recall

    rng = random.Random(0)
    records = [bench.synthetic_record(seq, rng) for seq in range(300)]
    assert len({r.text for r in records}) > 250 and {r.kind for r in records} == {"fact", "turn"}
    vectors = bench.unit_vectors(300, 384)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-5)
    state = bench.synthetic_state(300, 384)
    unrelated = bench.unit_vectors(1, 384, seed=1)[0]  # random vectors carry no meaning: words decide
    hits = recall.hybrid_recall(state, "Who is moving to Lisbon next month?", unrelated, k=5,
                                kinds=("fact", "turn"), min_score=0.0)
    assert len(hits) == 5 and "Lisbon" in hits[0].record.text


def test_cold_start_command_puts_no_memory_on_ask():
    command = bench.ask_command(Settings(model="m", threads=2), "/tmp/d", memory=False, max_tokens=16)
    assert command[1:4] == ["-m", "local_agent", "ask"]
    assert command[-2:] == ["--no-memory", "hi"] and "--threads" in command


def test_random_weights_config_folder_needs_a_config(tmp_path: Path):
    folder = tmp_path / "model"
    folder.mkdir()
    with pytest.raises(InputError, match=r"no config\.json"):
        bench.config_folder(Settings(model=str(folder), models_dir=tmp_path))
    (folder / "config.json").write_text("{}")
    assert bench.config_folder(Settings(model=str(folder), models_dir=tmp_path)) == folder


def test_bench_command_help_and_bad_input():
    runner = CliRunner()
    help_text = runner.invoke(cli, ["bench", "--help"]).output
    assert "--quick" in help_text and "--random-weights" in help_text and "--backends" in help_text
    result = runner.invoke(cli, ["bench", "--sections", "nonsense", "--output-dir", "unused"])
    assert isinstance(result.exception, InputError) and "unknown section" in str(result.exception)


def test_a_child_reports_its_own_peak_memory_not_its_parents():
    import subprocess
    import sys

    from local_agent.bench.measure import peak_rss_mb

    held = bytearray(400 * 2**20)
    held[:: 4096] = b"\1" * len(held[:: 4096])  # touched, so it is resident in this parent
    assert peak_rss_mb() > 400
    code = "from local_agent.bench.measure import peak_rss_mb; print(peak_rss_mb())"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert float(child.stdout) < 300  # getrusage's ru_maxrss would say over 400 here
    del held


# -- batched decoding against llama-batched-bench ---------------------------------------------
BATCHED_BENCH_OUTPUT = """main: n_kv_max = 16384, n_batch = 2048
{"n_kv_max": 16384, "n_batch": 2048, "n_ubatch": 512, "flash_attn": 0, "is_pp_shared": 0, "n_gpu_layers": -1, \
"n_threads": 2, "n_threads_batch": 2, "pp": 128, "tg": 64, "pl": 4, "n_kv": 768, "t_pp": 2.5, "speed_pp": 204.8, \
"t_tg": 2.4, "speed_tg": 106.6, "t": 4.9, "speed": 156.7}
llama_perf_context_print: load time = 100 ms
"""


def batching_results() -> dict:
    rounds = [{"engine": {"4": {"decode_tok_s": ours, "total_tok_s": 150.0}, "8": {"decode_tok_s": ours * 1.1,
                                                                                  "total_tok_s": 160.0}},
               "llama-batched-bench": {"4": {"decode_tok_s": 105.0, "total_tok_s": 146.0},
                                       "8": {"decode_tok_s": 118.0, "total_tok_s": 170.0}}}
              for ours in (100.0, 98.0, 102.0)]
    return {"threads": 2, "counts": [4, 8], "prompt_tokens": 128, "written_tokens": 64, "window": 2048,
            "build": "avx2", "binary": "x", "load_average_start": [1.0], "load_average_end": [1.0],
            "rows": summarize_rounds(rounds, (4, 8)), "skipped": None}


def test_llama_batched_bench_json_lines_are_read_among_its_log_lines():
    parsed = parse_batched_bench(BATCHED_BENCH_OUTPUT)
    assert parsed == {"4": {"decode_tok_s": 106.6, "prompt_tok_s": 204.8, "total_tok_s": 156.7}}


def test_batching_rounds_become_medians_and_paired_ratios_with_a_target_each(results, tmp_path: Path):
    results["batching"] = batching_results()
    row4 = results["batching"]["rows"][0]
    assert row4["engine_decode_tok_s"]["median"] == 100.0
    assert row4["engine_vs_llama_batched_bench"]["median"] == pytest.approx(100.0 / 105.0)
    checks = {c["target"]: c for c in bench.targets(results)}
    assert checks["batched decode at 4 sequences / llama-batched-bench (paired runs)"]["met"] is True
    assert checks["batched decode at 8 sequences / llama-batched-bench (paired runs)"]["value"] == \
        pytest.approx(110.0 / 118.0)
    text = bench.render_markdown(results)
    assert "| 4 | 100.0 (98.0–102.0) | 105.0 (105.0–105.0) | 0.952 (0.933–0.971) |" in text
    assert "-npp 128 -ntg 64 -npl 4,8 -t 2 -c 16384 -fa off" in text
    path = tmp_path / "benchmark-parallel.png"
    write_parallel_chart(results, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_batch_rate_rows_tables_targets_and_chart(results, tmp_path: Path):
    from local_agent.bench.batch_rate import SESSIONS, TURNS, batch_input

    lines = batch_input(memory=True)
    assert len(lines) == SESSIONS * TURNS and len({line["user"] for line in lines}) == SESSIONS
    assert "user" not in batch_input(memory=False)[0]
    rows = [{"parallel": p, "wall_s": s(60.0 / p), "conversations_per_min": s(8.0 * p), "vs_parallel_1": s(p * 0.9),
             "share_differing": s(0.0 if p == 1 else 0.25)} for p in (1, 2, 4)]
    case = {"sessions": 8, "turns": 3, "max_tokens": 64, "load_average_start": [1.0], "load_average_end": [1.0]}
    results["batch"] = {"no_memory": {**case, "memory": False, "rows": rows},
                        "memory": {**case, "memory": True, "rows": rows}}
    checks = {c["target"]: c for c in bench.targets(results)}
    assert checks["batch --parallel 4 / --parallel 1 conversations per minute (--no-memory)"]["met"] is True
    text = bench.render_markdown(results)
    assert "| --no-memory | 4 | 15.0 (15.0–15.0) | 32.0 (32.0–32.0) | 3.60 (3.60–3.60) | 0.25 (0.25–0.25) |" in text
    path = tmp_path / "benchmark-parallel.png"
    write_parallel_chart(results, path)
    assert path.stat().st_size > 10_000


def test_server_rows_tables_targets_and_chart(results, tmp_path: Path):
    def row(parallel: int, tokens: float, p95: float) -> dict:
        return {"parallel": parallel, "clients": 8, "requests": 200, "errors": 0, "memory": False,
                "latency_s": {"median": p95 / 2, "min": 0.1, "max": p95 * 1.2, "p95": p95, "n": 200},
                "tokens_per_s": tokens, "wall_s": 60.0, "peak_rss_mb": 400.0}
    case = {"clients": 8, "requests": 25, "max_tokens": 16, "load_average_start": [1.0], "load_average_end": [1.0]}
    results["server"] = {"no_memory": {**case, "memory": False, "rows": [row(1, 56.6, 2.34), row(4, 90.0, 1.5)]},
                         "memory": {**case, "memory": True, "rows": [row(1, 30.0, 4.0), row(4, 50.0, 3.0)]}}
    checks = {c["target"]: c for c in bench.targets(results)}
    label = "server 8 clients x 25 requests, memory off, --parallel 4"
    assert checks[f"{label}: aggregate tokens/s"]["met"] is True
    assert checks[f"{label}: latency p95"]["met"] is True and checks[f"{label}: errors"]["met"] is True
    text = bench.render_markdown(results)
    assert "| off | 4 | 0 | 0.75 | 1.50 | 90.0 | 400 |" in text
    path = tmp_path / "benchmark-parallel.png"
    write_parallel_chart(results, path)
    assert path.stat().st_size > 10_000


def test_stores_section_is_the_bench_entry_for_large_stores(tmp_path: Path):
    """`--sections stores` builds stores of the given sizes from synthetic memories and
    measures each in a fresh process; bad sizes are one line."""
    runner = CliRunner()
    bad = runner.invoke(cli, ["bench", "--sections", "stores", "--store-sizes", "10,x", "--output-dir", "unused"])
    assert isinstance(bad.exception, InputError) and "--store-sizes" in str(bad.exception)
    from local_agent.bench.report import stores_table
    from local_agent.bench.stores import run_stores

    (row,) = run_stores(None, [300], tmp_path, queries=20)
    assert row["memories"] == 300 and row["recall_at_10_agreement"] == 1.0 and row["open_s"] > 0
    assert "| 300 |" in stores_table([row])
