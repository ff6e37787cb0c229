#!/usr/bin/env python3
"""Time of `local-agent models pull` against the stand-in hub on 127.0.0.1, and of loading the
pulled model, as the product does both.

The stand-in hub (tests/hub_standin.py: the hub's URL layout, plain HTTP, in memory) serves one
GGUF, by default a full-size random-weight stand-in that `scripts/bench_models.py --build` made.
`models pull hf:bench/standin-GGUF/FILE --yes` runs in a child process with HF_ENDPOINT pointed
at the stand-in and LOCAL_AGENT_MODELS_DIR at a temporary folder; its wall time covers the plan,
the download over loopback, our sha256 of the file and the landing. Then a fresh process
resolves `--model` to the pulled folder and loads it with `create_backend` (the llama.cpp
backend, 2048-token context): the load time a command pays at start. Loopback has no network
latency or bandwidth limit, so the pull time is the tool's own cost, not a download time.

    flock -x /tmp/la-cpu.lock scripts/bench_pull.py [--gguf PATH] [--reps 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_GGUF = (Path.home() / ".cache" / "local-agent" / "bench-models"
                / "smollm2-360m-instruct-q4_k_m.random.Q4_K_M.gguf")
LOAD = """
import json, sys, time
start = time.perf_counter()
from local_agent.backends import create_backend
from local_agent.config import load_settings
settings = load_settings({"model": sys.argv[1], "backend": "llama-cpp", "incognito": True})  # no saved prompt state
backend, choice = create_backend(settings)
print(json.dumps({"load_s": time.perf_counter() - start, "backend": choice.backend}))
"""


def _pull_once(hub_url: str, name: str, models: Path) -> float:
    env = {**os.environ, "HF_ENDPOINT": hub_url, "LOCAL_AGENT_MODELS_DIR": str(models), "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "local_agent", "models", "pull", name, "--yes"], env=env,
                            capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"pull failed: {result.stderr.strip().splitlines()[-1:]}")
    return elapsed


def _load_once(short: str, models: Path) -> dict[str, float | str]:
    env = {**os.environ, "LOCAL_AGENT_MODELS_DIR": str(models), "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, "-c", LOAD, short], env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"load failed: {result.stderr.strip().splitlines()[-1:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(ROOT))
    from tests.hub_standin import Repo, StandinHub

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gguf", type=Path, default=DEFAULT_GGUF, help="the GGUF the stand-in hub serves")
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args(argv)
    if not args.gguf.is_file():
        raise SystemExit(f"{args.gguf} is not there: run scripts/bench_models.py --build first")
    file_name = "standin-q4_k_m.gguf"
    hub = StandinHub().start()
    hub.repos["bench/standin-GGUF"] = Repo(files={file_name: args.gguf.read_bytes()})
    pulls, loads = [], []
    try:
        for _ in range(args.reps):
            with tempfile.TemporaryDirectory() as folder:
                models = Path(folder)
                pulls.append(_pull_once(hub.url, f"hf:bench/standin-GGUF/{file_name}", models))
                loads.append(_load_once("standin-q4_k_m", models))
    finally:
        hub.stop()
    size = args.gguf.stat().st_size
    pull_s = statistics.median(pulls)
    load_s = statistics.median(float(load["load_s"]) for load in loads)
    print(json.dumps({"file": args.gguf.name, "bytes": size, "pull_s": [round(p, 2) for p in pulls],
                      "pull_mb_s": round(size / 1e6 / pull_s, 1),
                      "load_s": [round(float(x["load_s"]), 2) for x in loads],
                      "load_median_s": round(load_s, 2), "backend": loads[0]["backend"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
