"""Decode speed settings: the OpenMP wait policy the package sets, the thread count that follows
the free cores, the benchmark's clean baseline environment and its llama-bench reader."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from local_agent.backends import cpu_share
from local_agent.bench import llama_bench, report
from local_agent.bench.targets import targets
from local_agent.bench.workers import library_env, with_env
from local_agent.process import omp_env

# -- the wait policy ---------------------------------------------------------------------------


def test_nothing_set_by_the_user_gives_a_short_spin():
    environ: dict[str, str] = {"PATH": "/bin"}
    assert omp_env.apply_wait_policy(environ) == {"GOMP_SPINCOUNT": omp_env.SHORT_SPIN}
    assert environ == {"PATH": "/bin", "GOMP_SPINCOUNT": omp_env.SHORT_SPIN}
    assert "OMP_WAIT_POLICY" not in environ  # PASSIVE would sleep at every barrier


@pytest.mark.parametrize("users", [{"OMP_WAIT_POLICY": "PASSIVE"}, {"OMP_WAIT_POLICY": "active"},
                                   {"GOMP_SPINCOUNT": "300000"}, {"GOMP_SPINCOUNT": "infinity"}])
def test_a_policy_the_user_set_is_left_alone(users: dict[str, str]):
    environ = dict(users)
    assert omp_env.apply_wait_policy(environ) == {}
    assert environ == users


def test_other_openmp_variables_do_not_count_as_a_choice():
    environ = {"OMP_NUM_THREADS": "4"}
    assert omp_env.wait_policy_env(environ) == {"GOMP_SPINCOUNT": omp_env.SHORT_SPIN}


def _package_env(extra: dict[str, str]) -> dict[str, str]:
    """What `import local_agent` leaves in a fresh process's environment, before llama_cpp."""
    script = ("import os, sys, local_agent; assert 'llama_cpp' not in sys.modules; "
              "print(os.environ.get('GOMP_SPINCOUNT'), os.environ.get('OMP_WAIT_POLICY'))")
    env = {**library_env(), **extra}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    return dict(zip(("GOMP_SPINCOUNT", "OMP_WAIT_POLICY"), done.stdout.split()))


def test_importing_the_package_sets_the_policy_before_any_runtime_loads():
    assert _package_env({}) == {"GOMP_SPINCOUNT": omp_env.SHORT_SPIN, "OMP_WAIT_POLICY": "None"}
    assert _package_env({"OMP_WAIT_POLICY": "PASSIVE"}) == {"GOMP_SPINCOUNT": "None", "OMP_WAIT_POLICY": "PASSIVE"}
    assert _package_env({"GOMP_SPINCOUNT": "50"}) == {"GOMP_SPINCOUNT": "50", "OMP_WAIT_POLICY": "None"}


@pytest.mark.parametrize(("users", "expected"), [({}, "1"), ({"OPENBLAS_NUM_THREADS": "4"}, "4")])
def test_importing_the_package_keeps_numpys_blas_to_one_thread_unless_the_user_chose(users: dict[str, str],
                                                                                    expected: str) -> None:
    env = {**library_env(), **users}
    script = "import local_agent, os; print(os.environ['OPENBLAS_NUM_THREADS'])"
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == expected


def test_the_raw_baseline_environment_has_no_openmp_variable():
    base = {"PATH": "/bin", "HOME": "/h", "OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "10000",
            "KMP_BLOCKTIME": "0", "OMP_NUM_THREADS": "2", "OPENBLAS_NUM_THREADS": "1"}
    assert library_env(base) == {"PATH": "/bin", "HOME": "/h"}
    assert with_env({"OMP_WAIT_POLICY": "PASSIVE"}, base) == {"PATH": "/bin", "HOME": "/h",
                                                              "OMP_WAIT_POLICY": "PASSIVE"}


# -- threads that follow the free cores ----------------------------------------------------------


@pytest.mark.parametrize(("wanted", "cores", "others", "threads"), [
    (2, 2, 0.0, 2), (2, 2, 0.3, 2), (2, 2, 0.67, 1), (2, 2, 1.0, 1), (2, 2, 2.0, 1),
    (8, 16, 4.0, 8), (8, 16, 9.0, 7), (4, 4, 0.49, 4), (4, 4, 0.51, 3),
])
def test_threads_fit_the_cores_other_processes_leave(wanted: int, cores: int, others: float, threads: int):
    assert cpu_share.fitting_threads(wanted, cores, others) == threads


def _stat(path: Path, busy_ticks: int, idle_ticks: int) -> None:
    # cpu user nice system idle iowait irq softirq steal
    path.write_text(f"cpu  {busy_ticks} 0 0 {idle_ticks} 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n")


def test_others_busy_is_machine_time_minus_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    stat, clock, own = tmp_path / "stat", [100.0], [5.0]
    monkeypatch.setattr(cpu_share.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(cpu_share, "_own_seconds", lambda: own[0])
    tick = os.sysconf("SC_CLK_TCK")
    _stat(stat, 1000, 0)
    share = cpu_share.CoreShare(stat)
    clock[0] += 0.1
    assert share.others_busy() is None  # too short a stretch to tell: it goes on
    clock[0] += 0.9  # 1 s in all: the machine was busy 1.5 core-seconds, 0.5 of them ours
    own[0] += 0.5
    _stat(stat, 1000 + int(1.5 * tick), 0)
    assert share.others_busy() == pytest.approx(1.0)
    clock[0] += 1.0  # the next stretch starts where the last ended: only this process ran
    own[0] += 2.0
    _stat(stat, 1000 + int(3.5 * tick), 0)
    assert share.others_busy() == pytest.approx(0.0)


def test_after_a_pause_the_processes_running_now_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    stat, loadavg, clock = tmp_path / "stat", tmp_path / "loadavg", [100.0]
    monkeypatch.setattr(cpu_share.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(cpu_share, "_own_seconds", lambda: 0.0)
    _stat(stat, 0, 0)
    share = cpu_share.CoreShare(stat, loadavg)
    clock[0] += 30.0  # a pause between answers, the machine busy all along: that was then
    _stat(stat, int(60 * os.sysconf("SC_CLK_TCK")), 0)
    loadavg.write_text("0.50 0.40 0.30 1/250 4242\n")  # now only this thread runs
    assert share.others_busy() == 0.0
    clock[0] += 0.5  # a fresh stretch from there
    _stat(stat, int(60.5 * os.sysconf("SC_CLK_TCK")), 0)
    assert share.others_busy() == pytest.approx(1.0)
    clock[0] += 5.0
    loadavg.write_text("2.50 1.40 1.30 3/250 4242\n")
    assert share.others_busy() == 2.0


def test_without_proc_stat_nothing_is_measured(tmp_path: Path):
    share = cpu_share.CoreShare(tmp_path / "missing")
    assert share.others_busy() is None


@pytest.mark.skipif(not cpu_share.PROC_STAT.is_file(), reason="needs /proc/stat")
def test_a_busy_process_shows_as_others_busy():
    share = cpu_share.CoreShare()
    loop = "import time\nend = time.time() + 1.5\nwhile time.time() < end: pass"
    busy = subprocess.Popen([sys.executable, "-c", loop])
    try:
        time.sleep(1.0)
        assert (share.others_busy() or 0.0) >= 0.6  # one core's worth, minus start-up
    finally:
        busy.kill()
        busy.wait()


# -- the benchmark's speed section -----------------------------------------------------------------

LLAMA_BENCH_JSON = [
    {"build_commit": "x", "n_threads": 2, "n_batch": 2048, "n_ubatch": 512, "flash_attn": False, "n_prompt": 512,
     "n_gen": 0, "avg_ts": 1500.5, "stddev_ts": 20.0, "samples_ts": [1480.5, 1520.5]},
    {"build_commit": "x", "n_threads": 2, "n_batch": 2048, "n_ubatch": 512, "flash_attn": True, "n_prompt": 512,
     "n_gen": 0, "avg_ts": 1600.0, "stddev_ts": 10.0, "samples_ts": [1590.0, 1610.0]},
    {"build_commit": "x", "n_threads": 2, "n_batch": 2048, "n_ubatch": 512, "flash_attn": False, "n_prompt": 0,
     "n_gen": 128, "avg_ts": 120.0, "stddev_ts": 2.0, "samples_ts": [118.0, 122.0]},
]


def test_llama_bench_output_is_read_per_test():
    parsed = llama_bench.parse_results(json.dumps(LLAMA_BENCH_JSON))
    assert [(t["test"], t["flash_attn"], t["tok_s"]) for t in parsed] == [
        ("pp512", False, 1500.5), ("pp512", True, 1600.0), ("tg128", False, 120.0)]
    result = {"tests": parsed}
    assert (llama_bench.best(result, "pp512") or {}).get("tok_s") == 1600.0
    assert llama_bench.best({"skipped": "no binary"}, "tg128") is None


def test_llama_bench_missing_is_reported_not_raised(tmp_path: Path):
    result = llama_bench.run_llama_bench(tmp_path / "llama-bench", tmp_path / "m.gguf", 2, 1)
    assert "make llama-bench" in result["skipped"]


def test_build_variant_follows_the_system_info():
    assert llama_bench.build_variant("CPU : AVX = 1 | AVX2 = 1 | AVX512 = 1 | OPENMP = 1") == "avx512"
    assert llama_bench.build_variant("CPU : AVX = 1 | AVX2 = 1 | OPENMP = 1") == "avx2"


def _s(median: float) -> dict[str, float]:
    return {"median": median, "min": median * 0.9, "max": median * 1.1, "n": 3}


def speed_results() -> dict:
    waits = {"idle": (110.0, 50.0, 108.0), "competing": (30.0, 50.0, 75.0)}
    speed: dict[str, Any] = {"threads": 2, "tokens": 128, "build": "avx2", "load_average_start": [1.0, 1.0, 1.0],
             "load_average_end": [1.1, 1.0, 1.0],
             "llama_bench": {"tests": llama_bench.parse_results(json.dumps(LLAMA_BENCH_JSON))},
             "prompt": {"tokens": 512, "raw_tok_s": _s(1400.0), "ours_tok_s": _s(1450.0), "ours_vs_raw": _s(1.03),
                        "llama_bench_tok_s": _s(1500.0), "ours_vs_llama_bench": _s(0.97)}}
    for case, (raw, passive, ours) in waits.items():
        rows = {"passive_tok_s": _s(passive), "ours_tok_s": _s(ours), "ours_vs_passive": _s(ours / passive)}
        if case == "idle":
            rows.update(raw_tok_s=_s(raw), ours_vs_raw=_s(ours / raw))
        speed[case] = rows
    from local_agent.bench.speed import summarize

    speed["summary"] = summarize(speed)
    return {"speed": speed}


def test_speed_targets_use_the_paired_ratios():
    checks = {c["target"]: c for c in targets(speed_results())}
    assert checks["decode / raw llama-cpp-python with its defaults, idle (speed)"]["value"] == pytest.approx(108 / 110)
    assert checks["decode / raw llama-cpp-python with its defaults, idle (speed)"]["met"] is True
    assert checks["decode / PASSIVE with one competing process (speed)"]["value"] == pytest.approx(1.5)
    prompt = checks["prompt evaluation of 512 tokens / llama-bench pp512 (speed)"]
    assert prompt["value"] == pytest.approx(0.97) and prompt["met"] is True  # paired, not the flash-attention best


def test_speed_tables_show_every_setup():
    text = "\n\n".join(report._speed_tables(speed_results()["speed"]))
    assert "| llama-bench (flash attention, batch 2048/512) | pp512 | 1,600.0 ± 10.0 |" in text
    assert "| local-agent backend (time to first token) | prompt 512 | 1,450.0 (1,305.0–1,595.0) |" in text
    assert "| competing | not run | 50.0 (45.0–55.0) | 75.0 (67.5–82.5) | – | 1.500 (1.350–1.650) |" in text
