#!/usr/bin/env python
"""Benchmark large memory stores: open time, dense search (exact and HNSW, with their recall@10
agreement), whole hybrid recall (with the ranker, and without it: `fused_recall`), dated recall, RSS and disk
size at 1k, 10k, 100k (and 1M) memories.

    local-agent bench --sections stores --texts ../shared/data/locomo-dev.json \\
        ../shared/data/distill-dev.jsonl --store-sizes 1000,10000,100000
    python scripts/bench_stores.py --texts ... --sizes 1000,10000,100000,1000000 [--dated] [--ask 3]

Without texts, the synthetic memories of the memory section (bench/synthetic.py) are embedded.

The stores are made from real MiniLM vectors: the given texts (LoCoMo turns, `text` fields of a
JSON-lines file) are embedded once (cached as .npy under the output folder) and tiled, each copy
with a small perturbation of its vector and a unique text suffix. With `--dated`, each memory
is dated, the store spanning the ten years before the day the dated questions are asked (so
"last week?" finds about one memory in 520, and recall reads the dates in each candidate's
words); without it, as in the earlier tables, no memory has a date, and dated questions cost
what reading their own dates and looking them up costs. The files are written by the store's
own compaction (of a state built in memory over the vectors, memory-mapped), not through add().
Each store is measured in a fresh process, so open time and RSS are what a command sees. Peak
RSS is read three times: after opening, after the searches a command runs (HNSW, hybrid and
dated recall), and after the exact searches that measure HNSW's agreement, which read every
vector (file pages the kernel can take back; `rss_anon_mib` is the process's own memory at the
end). With `--ask N`, `local-agent ask --incognito` is timed on each store too (wall time of the
whole command, model loading included, median of N after a warm-up: what opening a large store
adds to a question). Never run by `make test`: 1M memories take a long time to build on a small
machine.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Literal

import numpy as np

import local_agent
from local_agent.bench.measure import peak_rss_mb
from local_agent.memory.index.embedder import Embedder
from local_agent.memory.index.render import embedding_id
from local_agent.memory.index.state import MemoryState
from local_agent.memory.store.compaction import write_generation
from local_agent.memory.store.datadir import claim_data_dir
from local_agent.memory.store.layout import StorePaths
from local_agent.types import MemoryRecord, Provenance

SYNTHETIC_TEXTS = 3000  # distinct texts embedded when no --texts are given (then tiled)

NOISE = 0.01  # per-dimension perturbation of a tiled copy's vector (cosine to the original ~0.98)
QUERIES = 200
TODAY = dt.datetime(2026, 11, 30, 12)  # when the dated questions are asked
YEARS = 10  # the memories' dates span this many years before TODAY
CHUNK = 65536  # rows perturbed at a time


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
    print(f"embedded {len(texts)} texts in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    out.mkdir(parents=True, exist_ok=True)
    np.save(cache, vectors)
    return vectors


def tiled_vectors(base: np.ndarray, size: int, path: Path, seed: int = 0) -> np.ndarray:
    """`size` rows: row i is text i mod len(base)'s vector, perturbed and normalized; written to
    `path` a chunk at a time and returned memory-mapped (a million rows are 1.5 GB)."""
    rng = np.random.default_rng(seed)
    matrix = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(size, base.shape[1]))
    for start in range(0, size, CHUNK):
        rows = np.arange(start, min(size, start + CHUNK)) % len(base)
        chunk = base[rows] + NOISE * rng.standard_normal((len(rows), base.shape[1]), dtype=np.float32)
        matrix[start : start + len(rows)] = chunk / np.linalg.norm(chunk, axis=1, keepdims=True)
    matrix.flush()
    del matrix
    return np.load(path, mmap_mode="r")


def tiled_records(texts: list[str], size: int, dated: bool) -> list[MemoryRecord]:
    """`size` records: copy c of text j is `text (note c)`; `dated`: dated in order over YEARS years."""
    now, first = time.time(), TODAY - dt.timedelta(days=365 * YEARS)
    step = dt.timedelta(days=365 * YEARS) / size
    return [MemoryRecord(id=f"m{i:07d}", kind="fact", text=f"{texts[i % len(texts)]} (note {i // len(texts)})",
                         created=now, updated=now,
                         provenance=Provenance(date=(first + i * step).isoformat(timespec="minutes")) if dated
                         else Provenance())
            for i in range(size)]


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
    from local_agent.memory.store import MemoryStore

    queries = json.loads(queries_file.read_text(encoding="utf-8"))
    vectors = np.load(queries_file.with_suffix(".npy"))
    embedder = Embedder()
    started, cpu = time.perf_counter(), time.thread_time()
    store = MemoryStore.open(folder, embedder)
    opened, opened_cpu = time.perf_counter() - started, time.thread_time() - cpu
    open_rss = peak_rss_mb()
    state = store._files.state  # a benchmark of the store's insides
    allowed = state.dense.allowed(("fact", "turn"))
    timing: dict[str, list[float]] = {name: [] for name in ("dense", "exact", "recall", "fused", "dated", "date_index",
                                                            "dense_cpu", "exact_cpu", "recall_cpu", "fused_cpu",
                                                            "dated_cpu")}
    # Each kind of search in a loop of its own, as a process runs them: an exact search streams
    # every vector through the CPU caches, which a search timed right after it would pay for.
    found: dict[str, list[set[int]]] = {"dense": [], "exact": []}
    searches(state, vectors, allowed, "dense", timing, found)
    recalls(state, queries, vectors, "recall", timing)
    recalls(state, queries, vectors, "fused", timing)  # without the ranker (rerank.py): the store's part
    by_kind: dict[str, list[float]] = {question: [] for question in DATED}
    dated_first = dated_recall(state, queries, vectors, timing["dated"], timing["date_index"], timing["dated_cpu"],
                               by_kind)
    used_rss = peak_rss_mb()
    searches(state, vectors, allowed, "exact", timing, found)
    agreement = [len(rows & exact) / max(1, len(exact)) for rows, exact in zip(found["dense"], found["exact"])]
    return {
        "open_s": round(opened, 3), "open_cpu_s": round(opened_cpu, 3),  # CPU of the opening thread
        "loadavg": os.getloadavg()[0], "approximate": state.dense.approximate,
        "dense": percentiles(timing["dense"]), "exact_dense": percentiles(timing["exact"]),
        "recall_at_10_agreement": round(float(np.mean(agreement)), 4), "hybrid_recall": percentiles(timing["recall"]),
        "fused_recall": percentiles(timing["fused"]),
        # CPU seconds of the process (all threads) per search: what a busy shared machine changes least
        "cpu": {name: percentiles(timing[f"{name}_cpu"]) for name in ("dense", "exact", "recall", "fused", "dated")},
        "dated_recall": percentiles(timing["dated"]), "dated_recall_first_s": round(dated_first, 3),
        "dated_recall_by_question": {question: percentiles(times) for question, times in by_kind.items() if times},
        "lexical_equal_to_whole": lexical_equal_to_whole(state, queries, allowed),
        "date_index": percentiles(timing["date_index"]),
        "open_peak_rss_mib": round(open_rss, 1), "peak_rss_mib": round(used_rss, 1),
        "peak_rss_with_exact_mib": round(peak_rss_mb(), 1), "rss_anon_mib": round(rss_anon_mb(), 1),
        "disk_mib": round(sum(p.stat().st_size for p in StorePaths.for_data_dir(folder).files()) / 2**20, 1),
    }


def recalls(state: MemoryState, queries: list[str], vectors: np.ndarray, kind: str,
            timing: dict[str, list[float]]) -> None:
    """Time the whole recall of each query, with the ranker ("recall") or without it ("fused")."""
    from local_agent.memory.index.recall import DEFAULT_MIN_SCORE, hybrid_recall

    ranker: Literal["packaged"] | None = "packaged" if kind == "recall" else None
    for query, vector in zip(queries, vectors):
        started, cpu = time.perf_counter(), time.process_time()
        hybrid_recall(state, query, vector, k=6, kinds=("fact", "turn"), min_score=DEFAULT_MIN_SCORE, ranker=ranker)
        timing[kind].append(time.perf_counter() - started)
        timing[f"{kind}_cpu"].append(time.process_time() - cpu)


def searches(state: MemoryState, vectors: np.ndarray, allowed: np.ndarray, kind: str,
             timing: dict[str, list[float]], found: dict[str, list[set[int]]]) -> None:
    """Time the top-10 dense search of each query vector, HNSW ("dense") or exact."""
    for vector in vectors:
        started, cpu = time.perf_counter(), time.process_time()
        rows, _ = state.dense.search(vector, 10, allowed, exact=kind == "exact")
        timing[kind].append(time.perf_counter() - started)
        timing[f"{kind}_cpu"].append(time.process_time() - cpu)
        found[kind].append(set(rows.tolist()))


def rss_anon_mb() -> float:
    """This process's anonymous resident memory (its own, not file pages), MB (Linux)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def lexical_equal_to_whole(state: MemoryState, queries: list[str], allowed: np.ndarray, count: int = 100) -> float:
    """The share of queries whose best `count` BM25 scores, as recall's search finds them
    (MaxScore on a large store), equal those of scoring every row."""
    from local_agent.memory.index.recall import lexical_query

    weights = allowed.astype(np.float32)
    equal = 0
    for query in queries:
        text = lexical_query(query)
        whole = state.lexical.scores(text, weights)
        match = state.lexical.match(text, allowed, count)
        best = np.sort(whole[whole > 0])[::-1][:count]
        found = np.sort(whole[match.top])[::-1]
        equal += len(found) == len(best) and bool(np.allclose(found, best, rtol=1e-5, atol=1e-6))
    return round(equal / max(1, len(queries)), 4)


def dated_recall(state: MemoryState, queries: list[str], vectors: np.ndarray, times: list[float],
                 index_times: list[float], cpu_times: list[float], by_kind: dict[str, list[float]]) -> float:
    """Time whole recalls of dated questions ("... last week?"), which weigh when memories were
    said, and apart from them the date index's part (the memories said within the question's
    spans); returns the first recall's seconds (it loads the date library)."""
    from local_agent.memory.index import time_boost
    from local_agent.memory.index.recall import DEFAULT_MIN_SCORE, hybrid_recall

    first = 0.0
    allowed = state.dense.allowed(("fact", "turn"))
    for index, (query, vector) in enumerate(zip(queries, vectors)):
        question = f"{query} {DATED[index % len(DATED)]}"
        started, cpu = time.perf_counter(), time.process_time()
        hybrid_recall(state, question, vector, k=6, kinds=("fact", "turn"), min_score=DEFAULT_MIN_SCORE, today=TODAY)
        took = time.perf_counter() - started
        if index:
            times.append(took)
            cpu_times.append(time.process_time() - cpu)
            by_kind[DATED[index % len(DATED)]].append(took)
        else:
            first = took
        spans = time_boost.query_spans(question, TODAY, lambda: state.said_times().days(allowed))
        started = time.perf_counter()
        said = state.said_times()
        said.days(allowed)
        time_boost.said_rows(said, spans, allowed)
        index_times.append(time.perf_counter() - started)
    return first


ASK = ["-m", "local_agent", "ask", "--no-server", "--incognito", "--max-tokens", "8"]
ASK_MESSAGE = "What did Caroline say about the support group?"


def ask_seconds(folder: Path, reps: int, env: dict[str, str]) -> dict[str, float]:
    """Wall time of `local-agent ask --incognito` with `folder` as the data dir (median of
    `reps`, after a warm-up)."""
    command = [sys.executable, *ASK, "--data-dir", str(folder), "--", ASK_MESSAGE]
    times, cpu_times = [], []
    for rep in range(reps + 1):
        started, cpu = time.perf_counter(), _children_cpu()
        subprocess.run(command, capture_output=True, check=True, env=env)
        if rep:
            times.append(time.perf_counter() - started)
            cpu_times.append(_children_cpu() - cpu)
    return {"median_s": round(float(np.median(times)), 3), "min_s": round(min(times), 3),
            "max_s": round(max(times), 3), "median_cpu_s": round(float(np.median(cpu_times)), 3)}


def _children_cpu() -> float:
    """CPU seconds (user and system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def build_missing(size: int, texts: list[str], base: np.ndarray, model_id: str, out: Path, dated: bool) -> Path:
    """The folder of the store of `size` memories, built first when it is not there."""
    folder = out / "stores" / f"store-{size}{'-dated' if dated else ''}"
    if not (folder / "memory" / "memories.json").is_file():
        vectors_file = out / "stores" / f"vectors-{size}.npy"
        vectors_file.parent.mkdir(parents=True, exist_ok=True)
        records = tiled_records(texts, size, dated)
        built = build_store(folder, records, tiled_vectors(base, size, vectors_file), model_id)
        del records
        vectors_file.unlink()
        print(f"{size}: built in {built:.1f} s (peak RSS {peak_rss_mb():.0f} MiB)", file=sys.stderr, flush=True)
    return folder


def bench_size(size: int, texts: list[str], base: np.ndarray, model_id: str, out: Path, queries: Path,
               dated: bool, ask_reps: int = 0) -> dict:
    folder = build_missing(size, texts, base, model_id, out, dated)
    package_root = str(Path(local_agent.__file__).resolve().parents[1])  # the child measures this same code
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package_root, os.environ.get("PYTHONPATH")]))}
    child = subprocess.run([sys.executable, "-m", "local_agent.bench.stores", "--measure", str(folder),
                            "--queries-file", str(queries)],
                           capture_output=True, text=True, check=True, env=env)
    result = {"memories": size, "dated": dated, **json.loads(child.stdout.strip().splitlines()[-1])}
    if ask_reps:
        result["ask"] = ask_seconds(folder, ask_reps, env)
    print(json.dumps(result), file=sys.stderr, flush=True)
    return result


def write_queries(texts: list[str], base: np.ndarray, out: Path, count: int) -> Path:
    """Queries: a fixed sample of the texts (their own vectors, unperturbed)."""
    picks = np.random.default_rng(1).choice(len(texts), size=min(count, len(texts)), replace=False)
    path = out / "store-bench-queries.json"
    path.write_text(json.dumps([texts[i] for i in picks]), encoding="utf-8")
    np.save(path.with_suffix(".npy"), base[picks])
    return path


def synthetic_texts(count: int = SYNTHETIC_TEXTS) -> list[str]:
    """Varied memory texts when no dataset is given: the memory section's synthetic records."""
    import random

    from local_agent.bench.synthetic import synthetic_record

    rng = random.Random(0)
    return list(dict.fromkeys(synthetic_record(seq, rng).text for seq in range(count)))


def run_stores(text_files: list[Path] | None, sizes: list[int], out: Path, queries: int = QUERIES,
               dated: bool = False, ask_reps: int = 0) -> list[dict]:
    """Build (or reuse) a store of each size under `out` and measure it in a fresh process."""
    out.mkdir(parents=True, exist_ok=True)
    texts = read_texts(text_files) if text_files else synthetic_texts()
    embedder = Embedder()
    base = embedded(texts, embedder, out)
    queries_file = write_queries(texts, base, out, queries)
    return [bench_size(size, texts, base, embedder.model_id, out, queries_file, dated, ask_reps) for size in sizes]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=Path, nargs="+",
                        help="locomo-dev.json and/or .jsonl files with `text` [synthetic memories]")
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--output-dir", type=Path, default=Path("bench-results"))
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--dated", action="store_true", help="date every memory (ten years of them)")
    parser.add_argument("--ask", type=int, default=0, metavar="N", help="also time `ask --incognito`, N runs")
    parser.add_argument("--build-only", action="store_true",
                        help="build the stores that are missing, measure nothing (so that only the timed part "
                             "needs a quiet machine)")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--queries-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(args.measure, args.queries_file)))
        return
    sizes = [int(size) for size in args.sizes.split(",")]
    if args.build_only:
        texts = read_texts(args.texts) if args.texts else synthetic_texts()
        embedder = Embedder()
        base = embedded(texts, embedder, args.output_dir)
        for size in sizes:
            build_missing(size, texts, base, embedder.model_id, args.output_dir, args.dated)
        return
    results = run_stores(args.texts, sizes, args.output_dir, args.queries, args.dated, args.ask)
    (args.output_dir / "stores.json").write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
