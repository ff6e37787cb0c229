#!/usr/bin/env python3
"""Speed and memory of the registry's bigger models on llama.cpp, measured on full-size
random-weight stand-ins (the real files cannot be fetched here; speed depends on the shapes,
not the weight values; the answers need the real weights).

Each stand-in (local_agent/bench/model_shapes.py FULL_SIZE: the model's config, the SmolLM2
tokenizer padded or cut to the model's vocabulary size, the family's chat template) is built
with random weights, converted by llama.cpp's converter and quantized to Q4_K_M with
llama_model_quantize, then kept in --cache. Each is measured in a fresh process, as the
product loads it (the llama-cpp backend's batch size, threads = physical cores, a 2048-token
context, swa_full): prompt tokens/s evaluating PROMPT random tokens in one call, decode
tokens/s evaluating one token at a time after them (llama-bench's pp/tg, no sampling), each
the median of --reps runs after a warm-up, and the process's peak RSS.

    scripts/bench_models.py --build              # make the stand-ins (minutes each)
    flock -x /tmp/la-cpu.lock scripts/bench_models.py --measure --out bench-results/models.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CACHE = Path.home() / ".cache" / "local-agent" / "bench-models"
PROMPT, DECODE, CONTEXT = 256, 64, 2048


def stand_in_path(cache: Path, name: str) -> Path:
    return cache / f"{name}.random.Q4_K_M.gguf"


def build_one(name: str, cache: Path) -> None:
    from local_agent.bench.model_shapes import FULL_SIZE
    from local_agent.bench.random_weights import random_weight_gguf
    from local_agent.config import load_settings
    from local_agent.models import load_registry

    settings = load_settings()
    folder = load_registry(settings.models_dir)[settings.model].hf_folder
    if folder is None:
        raise SystemExit("the default model has no transformers folder to take the SmolLM2 tokenizer from")
    cache.mkdir(parents=True, exist_ok=True)
    random_weight_gguf(FULL_SIZE[name], settings.models_dir / folder, stand_in_path(cache, name))


def measure_one(path: Path, reps: int) -> dict[str, Any]:
    """Prompt and decode speed of one GGUF in this (fresh) process, and its peak RSS."""
    import resource

    import llama_cpp

    from local_agent.backends.llama_cpp import SWA_FULL, batch_size_for
    from local_agent.backends.probe import physical_cores

    threads, batch = physical_cores(), batch_size_for(llama_cpp, "cpu")
    llm = llama_cpp.Llama(model_path=str(path), n_ctx=CONTEXT, n_batch=batch, n_ubatch=batch, n_threads=threads,
                          n_threads_batch=threads, swa_full=SWA_FULL, verbose=False)
    rng = random.Random(0)
    prompt = [rng.randrange(300, 30000) for _ in range(PROMPT)]
    steps = [rng.randrange(300, 30000) for _ in range(DECODE)]
    llm.eval(prompt[:32])  # warm-up
    prompt_rates, decode_rates = [], []
    for _ in range(reps):
        llm.reset()
        start = time.perf_counter()
        llm.eval(prompt)
        prompt_rates.append(PROMPT / (time.perf_counter() - start))
        start = time.perf_counter()
        for token in steps:
            llm.eval([token])
        decode_rates.append(DECODE / (time.perf_counter() - start))
    llm.close()
    return {"file_bytes": path.stat().st_size, "prompt_tok_s": round(statistics.median(prompt_rates), 1),
            "decode_tok_s": round(statistics.median(decode_rates), 1),
            "prompt_runs": [round(r, 1) for r in prompt_rates], "decode_runs": [round(r, 1) for r in decode_rates],
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024), "threads": threads,
            "n_batch": batch, "n_ctx": CONTEXT, "llama_cpp": llama_cpp.__version__}


def kv_bytes_per_token(name: str) -> int:
    """The f16 KV cache one token of context takes (keys and values, every layer; a sliding-
    window model keeps them all, swa_full)."""
    from local_agent.bench.model_shapes import FULL_SIZE

    config = FULL_SIZE[name].config
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    return int(config["num_hidden_layers"] * config["num_key_value_heads"] * head_dim * 2 * 2)


def _child(args: list[str]) -> str:
    result = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {(result.stderr or result.stdout).strip().splitlines()[-1:]}")
    return result.stdout


def main(argv: list[str] | None = None) -> int:
    from local_agent.bench.model_shapes import FULL_SIZE

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(FULL_SIZE), help="registry names, comma-separated")
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--build", action="store_true", help="make the missing stand-ins")
    parser.add_argument("--measure", action="store_true", help="measure the stand-ins")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", type=Path, help="write the measurements here as JSON")
    parser.add_argument("--build-one", help=argparse.SUPPRESS)
    parser.add_argument("--measure-one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build_one:
        build_one(args.build_one, args.cache)
        return 0
    if args.measure_one:
        print(json.dumps(measure_one(stand_in_path(args.cache, args.measure_one), args.reps)))
        return 0
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    for name in names if args.build else []:
        if not stand_in_path(args.cache, name).is_file():
            start = time.perf_counter()
            _child(["--build-one", name, "--cache", str(args.cache)])
            print(f"built {name} in {time.perf_counter() - start:.0f} s", flush=True)
    if args.measure:
        _measure(names, args)
    return 0


def _measure(names: list[str], args: argparse.Namespace) -> None:
    rows = {}
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").is_file() else []
    for name in names:
        rows[name] = json.loads(_child(["--measure-one", name, "--cache", str(args.cache), "--reps", str(args.reps)]))
        row = rows[name]
        row["kv_kib_per_token"] = round(kv_bytes_per_token(name) / 1024, 1)
        print(f"{name:<32} {row['file_bytes'] / 1e6:8.1f} MB  prompt {row['prompt_tok_s']:7.1f} tok/s  "
              f"decode {row['decode_tok_s']:6.1f} tok/s  peak RSS {row['peak_rss_mb']} MB", flush=True)
    report = {"machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                          "loadavg_before": load},
              "method": {"prompt_tokens": PROMPT, "decode_tokens": DECODE, "reps": args.reps},
              "models": rows}
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
