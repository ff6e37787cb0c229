#!/usr/bin/env python
"""Benchmark large memory stores: open time, dense search (exact and HNSW, with their recall@10
agreement), whole hybrid recall, RSS and disk size at 1k, 10k, 100k (and 1M) memories.

    python scripts/bench_stores.py --texts /work/shared/data/locomo-dev.json \\
        /work/shared/data/distill-dev.jsonl --sizes 1000,10000,100000
    python scripts/benchmark.py --sections stores --texts ...     # the same

The stores are made from real MiniLM vectors: the given texts (LoCoMo turns, `text` fields of a
JSON-lines file) are embedded once (cached as .npy under the output folder) and tiled, each copy
with a small perturbation of its vector and a unique text suffix. The files are written directly
in the snapshot format (one compaction of a state built in memory), not through add(). Each
store is measured in a fresh process, so open time and RSS are what a command sees. Never run
by `make test`: 1M memories take a long time to build on a small machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

import local_agent
from local_agent.bench.measure import peak_rss_mb
from local_agent.memory.index.embedder import Embedder
from local_agent.memory.index.render import embedding_id
from local_agent.memory.index.state import MemoryState
from local_agent.memory.store.compaction import write_generation
from local_agent.memory.store.datadir import claim_data_dir
from local_agent.memory.store.layout import StorePaths
from local_agent.types import MemoryRecord

NOISE = 0.01  # per-dimension perturbation of a tiled copy's vector (cosine to the original ~0.98)
QUERIES = 200


def read_texts(paths: list[Path]) -> list[str]:
    """LoCoMo turns (a .json file) and `text` fields (a .jsonl file), without repeats."""
    texts: dict[str, None] = {}
    for path in paths:
        if path.suffix == ".jsonl":
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    texts.setdefault(json.loads(line)["text"].strip())
            continue
        for sample in json.loads(path.read_text(encoding="utf-8")):
            conversation = sample["conversation"]
            for key, turns in conversation.items():
                if key.startswith("session_") and isinstance(turns, list):
                    for turn in turns:
                        texts.setdefault(f"{turn['speaker']}: {turn['text']}".strip())
    return [text for text in texts if text]


def embedded(texts: list[str], embedder: Embedder, out: Path) -> np.ndarray:
    """The texts' vectors, from the cache when the same texts were embedded by the same model."""
    digest = hashlib.sha256("\n".join([embedder.model_id, *texts]).encode("utf-8")).hexdigest()[:16]
    cache = out / f"store-bench-vectors-{digest}.npy"
    if cache.is_file():
        return np.load(cache)
    started = time.perf_counter()
    vectors = np.asarray(embedder.embed(texts), dtype=np.float32)
    print(f"embedded {len(texts)} texts in {time.perf_counter() - started:.1f} s", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors


def tiled(texts: list[str], base: np.ndarray, size: int, seed: int = 0) -> tuple[list[MemoryRecord], np.ndarray]:
    """`size` records: copy c of text j is `text (note c)`, its vector perturbed and normalized."""
    rng = np.random.default_rng(seed)
    rows = np.arange(size) % len(texts)
    vectors = base[rows] + rng.normal(scale=NOISE, size=(size, base.shape[1])).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    now = time.time()
    records = [MemoryRecord(id=f"m{i:07d}", kind="fact", text=f"{texts[j]} (note {i // len(texts)})",
                            created=now, updated=now) for i, j in enumerate(rows.tolist())]
    return records, vectors.astype(np.float32)


def build_store(folder: Path, records: list[MemoryRecord], vectors: np.ndarray, model_id: str) -> float:
    """Write the store's files as one compaction would; returns the seconds it took."""
    started = time.perf_counter()
    paths = StorePaths.for_data_dir(claim_data_dir(folder))
    paths.create()
    state = MemoryState.build(records, vectors, len(records), vectors.shape[1])
    write_generation(paths, state, 1, embedding_id(model_id))
    return time.perf_counter() - started


DATED = ("last week?", "yesterday?", "in May?", "two weeks ago?")


def percentiles(values: list[float]) -> dict[str, float]:
    return {"p50_ms": round(float(np.percentile(values, 50)) * 1000, 3),
            "p95_ms": round(float(np.percentile(values, 95)) * 1000, 3)}


def measure(folder: Path, queries_file: Path) -> dict[str, object]:
    """In a fresh process: open the store, then time searches and recalls."""
    from local_agent.memory.index.recall import DEFAULT_MIN_SCORE, hybrid_recall
    from local_agent.memory.store import MemoryStore

    queries = json.loads(queries_file.read_text(encoding="utf-8"))
    vectors = np.load(queries_file.with_suffix(".npy"))
    embedder = Embedder()
    started, cpu = time.perf_counter(), time.thread_time()
    store = MemoryStore.open(folder, embedder)
    opened, opened_cpu = time.perf_counter() - started, time.thread_time() - cpu
    state = store._files.state  # a benchmark of the store's insides
    allowed = state.dense.allowed(("fact", "turn"))
    timing: dict[str, list[float]] = {"dense": [], "exact": [], "recall": [], "dated": []}
    # Each kind of search in a loop of its own, as a process runs them: an exact search streams
    # every vector through the CPU caches, which a search timed right after it would pay for.
    found: dict[str, list[set[int]]] = {"dense": [], "exact": []}
    for kind in ("dense", "exact"):
        for vector in vectors:
            started = time.perf_counter()
            rows, _ = state.dense.search(vector, 10, allowed, exact=kind == "exact")
            timing[kind].append(time.perf_counter() - started)
            found[kind].append(set(rows.tolist()))
    agreement = [len(rows & exact) / max(1, len(exact)) for rows, exact in zip(found["dense"], found["exact"])]
    for query, vector in zip(queries, vectors):
        started = time.perf_counter()
        hybrid_recall(state, query, vector, k=6, kinds=("fact", "turn"), min_score=DEFAULT_MIN_SCORE)
        timing["recall"].append(time.perf_counter() - started)
    dated_first = dated_recall(state, queries, vectors, timing["dated"])
    return {
        "open_s": round(opened, 3), "open_cpu_s": round(opened_cpu, 3),  # CPU of the opening thread
        "loadavg": os.getloadavg()[0], "approximate": state.dense.approximate,
        "dense": percentiles(timing["dense"]), "exact_dense": percentiles(timing["exact"]),
        "recall_at_10_agreement": round(float(np.mean(agreement)), 4), "hybrid_recall": percentiles(timing["recall"]),
        "dated_recall": percentiles(timing["dated"]), "dated_recall_first_s": round(dated_first, 3),
        "peak_rss_mib": round(peak_rss_mb(), 1),
        "disk_mib": round(sum(p.stat().st_size for p in StorePaths.for_data_dir(folder).files()) / 2**20, 1),
    }


def dated_recall(state: MemoryState, queries: list[str], vectors: np.ndarray, times: list[float]) -> float:
    """Time whole recalls of dated questions ("... last week?"), which weigh when every memory
    was said; returns the first one's seconds (it reads every memory's date once)."""
    from local_agent.memory.index.recall import DEFAULT_MIN_SCORE, hybrid_recall

    today = dt.datetime(2026, 11, 30, 12)
    first = 0.0
    for index, (query, vector) in enumerate(zip(queries, vectors)):
        started = time.perf_counter()
        hybrid_recall(state, f"{query} {DATED[index % len(DATED)]}", vector, k=6, kinds=("fact", "turn"),
                      min_score=DEFAULT_MIN_SCORE, today=today)
        took = time.perf_counter() - started
        if index:
            times.append(took)
        else:
            first = took
    return first


def bench_size(size: int, texts: list[str], base: np.ndarray, model_id: str, out: Path, queries: Path) -> dict:
    folder = out / "stores" / f"store-{size}"
    if not (folder / "memory" / "memories.json").is_file():
        records, vectors = tiled(texts, base, size)
        built = build_store(folder, records, vectors, model_id)
        print(f"{size}: built in {built:.1f} s", flush=True)
    package_root = str(Path(local_agent.__file__).resolve().parents[1])  # the child measures this same code
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    child = subprocess.run([sys.executable, __file__, "--measure", str(folder), "--queries-file", str(queries)],
                           capture_output=True, text=True, check=True, env=env)
    result = {"memories": size, **json.loads(child.stdout.strip().splitlines()[-1])}
    print(json.dumps(result), flush=True)
    return result


def write_queries(texts: list[str], base: np.ndarray, out: Path, count: int) -> Path:
    """Queries: a fixed sample of the texts (their own vectors, unperturbed)."""
    picks = np.random.default_rng(1).choice(len(texts), size=min(count, len(texts)), replace=False)
    path = out / "store-bench-queries.json"
    path.write_text(json.dumps([texts[i] for i in picks]), encoding="utf-8")
    np.save(path.with_suffix(".npy"), base[picks])
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=Path, nargs="+", help="locomo-dev.json and/or .jsonl files with `text`")
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--output-dir", type=Path, default=Path("bench-results"))
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--queries-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.measure, args.queries_file)))
        return
    if not args.texts:
        parser.error("--texts is required")
    texts = read_texts(args.texts)
    embedder = Embedder()
    base = embedded(texts, embedder, args.output_dir)
    queries = write_queries(texts, base, args.output_dir, args.queries)
    results = [bench_size(int(size), texts, base, embedder.model_id, args.output_dir, queries)
               for size in args.sizes.split(",")]
    (args.output_dir / "stores.json").write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
