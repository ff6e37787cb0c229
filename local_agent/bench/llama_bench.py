"""llama.cpp's own `llama-bench` (pp512, tg128), built by `make llama-bench` from the same
source and flags as the installed llama-cpp-python: the ceiling for prompt and decode speed."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import LocalAgentError
from ..process.omp_env import OPENMP_PREFIXES
from .workers import library_env

CACHE = Path.home() / ".cache" / "local-agent"


def build_variant(system_info: str) -> str:
    """Which of the Makefile's builds `llama_print_system_info()` describes."""
    return "avx512" if "AVX512 = 1" in system_info else "avx2"


def llama_bench_path(variant: str) -> Path:
    """Where `make llama-bench` leaves the binary for `variant` (LOCAL_AGENT_LLAMA_BENCH overrides)."""
    override = os.environ.get("LOCAL_AGENT_LLAMA_BENCH")
    return Path(override) if override else CACHE / f"llama-bench-{variant}" / "llama-bench"


def parse_results(output: str) -> list[dict[str, Any]]:
    """One entry per test in llama-bench's JSON output: its name (pp512, tg128), flash
    attention, batch sizes and tokens/s (average and standard deviation)."""
    tests = []
    for test in json.loads(output):
        name = f"pp{test['n_prompt']}" if test["n_prompt"] else f"tg{test['n_gen']}"
        tests.append({"test": name, "flash_attn": bool(test.get("flash_attn")), "n_batch": test.get("n_batch"),
                      "n_ubatch": test.get("n_ubatch"), "threads": test.get("n_threads"),
                      "tok_s": test["avg_ts"], "stddev": test["stddev_ts"], "samples": test.get("samples_ts")})
    return tests


def run_llama_bench(binary: Path, gguf: Path, threads: int, reps: int, flash_attn: str = "0,1",
                    env: Mapping[str, str] | None = None, tests: tuple[str, ...] = ("-p", "512", "-n", "128"),
                    timeout_s: float = 900) -> dict[str, Any]:
    """pp512 and tg128 with `threads` threads, `reps` repetitions each, with flash attention
    as given ("0", "1" or both), in `env` (by default llama.cpp's: no OpenMP variables)."""
    if not binary.is_file():
        return {"skipped": f"{binary} not found: build it with `make llama-bench`"}
    command = [str(binary), "-m", str(gguf), "-t", str(threads), *tests, "-r", str(reps), "-fa", flash_attn,
               "-o", "json"]
    env = {**(library_env() if env is None else env), "LD_LIBRARY_PATH": str(binary.parent)}
    openmp = {name: value for name, value in env.items() if name.startswith(OPENMP_PREFIXES)}
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        return {"skipped": f"llama-bench took over {timeout_s:.0f} s"}
    if done.returncode != 0:
        return {"skipped": f"llama-bench failed ({done.returncode}): {done.stderr.strip()[-300:]}"}
    return {"binary": str(binary), "openmp_env": openmp, "tests": parse_results(done.stdout)}


def pp512_once(binary: Path, gguf: Path, threads: int, env: Mapping[str, str]) -> float:
    """One pp512 run without flash attention (after llama-bench's own warm-up): tokens/s."""
    result = run_llama_bench(binary, gguf, threads, 1, flash_attn="0", env=env, tests=("-p", "512", "-n", "0"))
    if "skipped" in result:
        raise LocalAgentError(result["skipped"])
    return float(result["tests"][0]["tok_s"])


def best(result: dict[str, Any], test: str) -> dict[str, Any] | None:
    """The fastest setting of `test` (pp512 or tg128) that llama-bench measured."""
    tests = [entry for entry in result.get("tests", []) if entry["test"] == test]
    return max(tests, key=lambda entry: entry["tok_s"], default=None)
