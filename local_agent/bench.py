"""Benchmarks: each backend against raw llama-cpp-python, cold start, and the memory pipeline.

Every measurement warms up first, repeats, and reports the median and spread. Each backend is
measured in its own child process so that its peak RSS is its own; CUDA work is synchronized
before the clock is read. `run_benchmark` runs a `BenchPlan` and returns one results dict;
`render_markdown`, `write_json` and `write_chart` turn it into the report.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib.metadata
import importlib.util
import json
import multiprocessing
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .config import Settings
from .errors import InputError, LocalAgentError
from .types import GenerationSettings, MemoryRecord, Message

if TYPE_CHECKING:
    import numpy as np

    from .agent import MemoryParts, TurnResult
    from .app import Runtime
    from .backends.base import Backend
    from .backends.probe import HardwareInfo
    from .memory.state import MemoryState

RESULTS_VERSION = 1
SECTIONS = ("backends", "cold-start", "memory")

BENCH_REQUEST = ("Write a long, detailed story about a lighthouse keeper who finds a message in a "
                 "bottle. Describe the sea, the weather, the lighthouse and the keeper's daily routine.")

# Targets from issue 4 (value must be >= or <= the limit).
DECODE_RATIO_GOAL = 0.95
MEMORY_OVERHEAD_GOAL_MS = 50.0
RECALL_P50_GOAL_MS = 20.0
CHAT_TTFT_GOAL_S = 1.0


def bench_messages(run: int) -> list[Message]:
    """The run number leads the prompt so no run reuses another's KV cache: every run
    processes the whole prompt, and prompt speed is measured honestly."""
    return [Message("system", f"Run {run}. You are a helpful assistant."), Message("user", BENCH_REQUEST)]


# -- statistics -----------------------------------------------------------------------------
def spread(values: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "n": len(values),
    }


def _scaled(values: list[float], factor: float) -> dict[str, float]:
    return spread([value * factor for value in values])


def _median(entry: dict[str, Any] | None, key: str) -> float | None:
    """The median of spread `entry[key]`, or None when it was not measured."""
    if not entry or not isinstance(entry.get(key), dict):
        return None
    return entry[key]["median"]


# -- what to run ----------------------------------------------------------------------------
@dataclass(frozen=True)
class BenchPlan:
    """How much to measure. `reps` timed runs follow one warm-up run wherever a warm-up
    makes sense (generation, distillation, summary, turns, recall)."""

    quick: bool = False
    reps: int = 5
    tokens: int = 128  # tokens generated per run (greedy)
    cold_reps: int = 3
    recall_sizes: tuple[int, ...] = (1_000, 10_000, 100_000)
    recall_passes: int = 5  # passes over the recall queries at each size
    turn_store_size: int = 10_000  # memories in the store during the full-turn measurement
    sections: tuple[str, ...] = SECTIONS
    backends: tuple[str, ...] = ()  # row selectors (see select_rows); empty: every available row
    random_weights: bool = False

    @classmethod
    def quick_plan(cls, **overrides: Any) -> "BenchPlan":
        return replace(cls(quick=True, reps=2, tokens=32, cold_reps=1, recall_passes=1), **overrides)


@dataclass(frozen=True)
class BackendRow:
    backend: str
    device: str

    @property
    def name(self) -> str:
        return f"{self.backend}/{self.device}"


def candidate_rows(hw: "HardwareInfo", random_weights: bool = False) -> tuple[list[BackendRow], dict[str, str]]:
    """The (backend, device) rows this machine can run, and why the others are left out."""
    has_llama = importlib.util.find_spec("llama_cpp") is not None
    wanted = {
        BackendRow("llama-cpp", "cpu"): None if has_llama else "llama-cpp-python is not installed",
        BackendRow("transformers", "cpu"): None,
        BackendRow("transformers-4bit", "cpu"): None if hw.bitsandbytes_ok else "bitsandbytes is not installed",
    }
    cuda = None if hw.cuda_available else "no CUDA GPU"
    no_4bit = None if hw.bitsandbytes_ok else "bitsandbytes has no CUDA build"
    no_offload = None if hw.llama_gpu_offload else "llama.cpp was built without GPU offload"
    wanted[BackendRow("transformers-4bit", "cuda")] = cuda or no_4bit
    wanted[BackendRow("transformers", "cuda")] = cuda
    wanted[BackendRow("llama-cpp", "cuda")] = cuda or no_offload
    if random_weights:
        for row in wanted:
            if row.backend == "llama-cpp" and wanted[row] is None:
                wanted[row] = "--random-weights measures the transformers runtimes only (llama.cpp needs the GGUF)"
    rows = [row for row, reason in wanted.items() if reason is None]
    return rows, {row.name: reason for row, reason in wanted.items() if reason is not None}


def select_rows(rows: list[BackendRow], selectors: tuple[str, ...]) -> list[BackendRow]:
    """Rows matching `selectors` ("llama-cpp" for every device, or "llama-cpp/cpu")."""
    if not selectors:
        return rows
    from .backends.probe import BACKENDS, DEVICES

    for selector in selectors:
        backend, _, device = selector.partition("/")
        if backend not in BACKENDS or (device and device not in DEVICES):
            raise InputError(f"unknown backend row {selector!r} "
                             "(e.g. llama-cpp, transformers/cpu, transformers-4bit/cuda)")
    return [row for row in rows if row.backend in selectors or row.name in selectors]


# -- measuring generation (in child processes) -----------------------------------------------
def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cuda_sync() -> None:
    """Wait for the CUDA work torch has queued. Only torch queues work asynchronously
    (llama.cpp hands back each token when it is done), and torch is not imported for this:
    that would add to the peak RSS of a llama.cpp process."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.synchronize()


class _GpuMemory:
    """Peak GPU memory of this process: torch's allocator peak, or for llama.cpp (which
    allocates outside torch) the device memory in use beyond what was in use at the start."""

    def __init__(self, device: str) -> None:
        self.torch: Any = None
        if device == "cuda":
            import torch

            self.torch = torch
            self.start_used = self._device_used()

    def _device_used(self) -> float:
        free, total = self.torch.cuda.mem_get_info()
        return (total - free) / 2**20

    def peak_mb(self) -> float | None:
        if self.torch is None:
            return None
        allocated = self.torch.cuda.max_memory_allocated() / 2**20
        return allocated if allocated > 0 else self._device_used() - self.start_used


def _timed_stream(stream_factory: Callable[[], Any], count_completion: Callable[[], int]) -> dict[str, float]:
    """One streamed generation: time to first chunk, then decode rate over the rest."""
    _cuda_sync()
    start = time.perf_counter()
    first = None
    for _ in stream_factory():
        if first is None:
            first = time.perf_counter() - start
    _cuda_sync()
    total = time.perf_counter() - start
    tokens = count_completion()
    decode_s = max(total - (first or total), 1e-9)
    return {"ttft_s": first or total, "total_s": total, "completion_tokens": tokens,
            "decode_tok_s": max(tokens - 1, 0) / decode_s}


def answer_settings(settings: Settings, max_tokens: int) -> GenerationSettings:
    """What a chat answer is generated with (repeat penalty included), greedy, cut at
    `max_tokens`: the same for every row, the raw baseline and the turns."""
    return settings.generation(max_tokens=max_tokens, temperature=0.0)


def _repeat(run: Callable[[int], dict[str, float]], reps: int) -> list[dict[str, float]]:
    """Run 0 warms up and is dropped."""
    return [run(index) for index in range(reps + 1)][1:]


def _summarize_runs(runs: list[dict[str, float]]) -> dict[str, Any]:
    return {
        "prompt_tokens": runs[0]["prompt_tokens"],
        "completion_tokens": runs[0]["completion_tokens"],
        "ttft_s": spread([r["ttft_s"] for r in runs]),
        "decode_tok_s": spread([r["decode_tok_s"] for r in runs]),
        "prompt_tok_s": spread([r["prompt_tokens"] / r["ttft_s"] for r in runs]),
    }


def measure_backend(settings: Settings, backend: str, device: str, reps: int, max_tokens: int) -> dict[str, Any]:
    """Load one backend through the product's own loader and time generation."""
    from .backends import create_backend

    gpu = _GpuMemory(device)
    start = time.perf_counter()
    model, choice = create_backend(replace(settings, backend=backend, device=device))
    _cuda_sync()
    load_s = time.perf_counter() - start
    generation = answer_settings(settings, max_tokens)
    runs = _repeat(lambda index: _backend_run(model, bench_messages(index), generation), reps)
    prompts = [model.format_prompt(bench_messages(index)) for index in range(reps + 1)]
    peak_gpu = gpu.peak_mb()
    model.close()
    return {"backend": backend, "device": device, "load_s": load_s, "reason": choice.reason,
            **_summarize_runs(runs), "peak_rss_mb": _peak_rss_mb(), "peak_gpu_mb": peak_gpu,
            "prompts": prompts}


def _backend_run(model: "Backend", messages: list[Message], generation: GenerationSettings) -> dict[str, float]:
    def generated() -> int:
        # A run cut at max_tokens generated exactly that many; the count is exact either way.
        usage = model.last_completion
        return generation.max_tokens if usage.finish_reason == "length" else usage.completion_tokens

    timing = _timed_stream(lambda: model.stream(messages, generation), generated)
    return {**timing, "prompt_tokens": model.last_completion.prompt_tokens}


def measure_raw_llama(settings: Settings, gguf: Path, device: str, reps: int, max_tokens: int,
                      prompts: list[str]) -> dict[str, Any]:
    """llama-cpp-python called directly, with the backend's threads, batch size and GPU
    offload, and no hooks of ours: the baseline the agent's llama-cpp backend is compared
    with. Its own numbers come first (peak RSS included); then it takes turns with the
    product's backend in this same process (see `_paired_runs`)."""
    gpu = _GpuMemory(device)
    start = time.perf_counter()
    llm = _load_raw_llama(settings, gguf, device)
    load_s = time.perf_counter() - start
    generation = answer_settings(settings, max_tokens)
    runs = _repeat(lambda index: _raw_run(llm, prompts[index], generation), reps)
    row = {"backend": "raw llama-cpp-python", "device": device, "load_s": load_s, **_summarize_runs(runs),
           "peak_rss_mb": _peak_rss_mb(), "peak_gpu_mb": gpu.peak_mb()}
    try:
        row["paired"] = _paired_runs(settings, llm, device, max(reps, 3), generation)
    finally:
        llm.close()
    return row


def _load_raw_llama(settings: Settings, gguf: Path, device: str) -> Any:
    import llama_cpp  # imported here so that the load time includes it, as the backend's does

    from .backends.llama_cpp import batch_size_for
    from .backends.probe import physical_cores

    threads = settings.threads or physical_cores()
    batch = batch_size_for(llama_cpp, device)
    return llama_cpp.Llama(model_path=str(gguf), n_ctx=settings.ctx_size, n_batch=batch, n_ubatch=batch,
                           n_threads=threads, n_threads_batch=threads, n_gpu_layers=-1 if device == "cuda" else 0,
                           seed=0, verbose=False)


def _raw_run(llm: Any, prompt: str, generation: GenerationSettings) -> dict[str, float]:
    completion = _RawCompletion(llm, prompt, generation)
    return {**_timed_stream(completion.stream, completion.generated), "prompt_tokens": len(completion.tokens)}


PAIRED_RUNS_FROM = 1000  # run numbers of the paired runs: prompts that no earlier run processed


def _paired_runs(settings: Settings, llm: Any, device: str, pairs: int,
                 generation: GenerationSettings) -> dict[str, Any]:
    """The product's llama-cpp backend and raw llama-cpp-python loaded side by side, taking
    turns (in alternating order) on the same prompts. On a shared machine the load changes
    between two processes run one after the other; the two halves of a pair see about the
    same load, so their ratio is what the target is checked on. Pair 0 warms up."""
    from .backends import create_backend

    model, _ = create_backend(replace(settings, backend="llama-cpp", device=device))
    decode, ttft = [], []
    try:
        for index in range(pairs + 1):
            messages = bench_messages(PAIRED_RUNS_FROM + index)
            turns = [("agent", lambda: _backend_run(model, messages, generation)),
                     ("raw", lambda: _raw_run(llm, model.format_prompt(messages), generation))]
            result = {name: run() for name, run in (turns if index % 2 == 0 else turns[::-1])}
            if index:
                decode.append(result["agent"]["decode_tok_s"] / result["raw"]["decode_tok_s"])
                ttft.append(result["agent"]["ttft_s"] / result["raw"]["ttft_s"])
    finally:
        model.close()
    return {"decode_ratio": spread(decode), "ttft_ratio": spread(ttft)}


class _RawCompletion:
    """One streamed create_completion with the backend's sampling settings, remembering how it
    ended to count its tokens the way the backend does: max_tokens when cut there, else the
    answer's tokens plus end-of-text."""

    def __init__(self, llm: Any, prompt: str, generation: GenerationSettings) -> None:
        self.llm, self.generation, self.max_tokens = llm, generation, generation.max_tokens
        self.tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
        self.parts: list[str] = []
        self.finish_reason: str | None = None

    def stream(self) -> Iterator[Any]:
        settings = self.generation
        for chunk in self.llm.create_completion(self.tokens, max_tokens=self.max_tokens, temperature=0.0,
                                                repeat_penalty=settings.repeat_penalty, seed=settings.seed,
                                                stream=True):
            choice = chunk["choices"][0]
            self.parts.append(choice["text"])
            self.finish_reason = choice.get("finish_reason") or self.finish_reason
            yield chunk

    def generated(self) -> int:
        if self.finish_reason == "length":
            return self.max_tokens
        return len(self.llm.tokenize("".join(self.parts).encode("utf-8"), add_bos=False, special=False)) + 1


def _child(target: Callable[..., Any], *args: Any) -> Any:
    """Run one measurement in a fresh process (its own peak RSS, no shared caches)."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        result = pool.apply(target, args)
        pool.close()
        pool.join()  # a clean exit lets the child release what it holds (terminate would not)
    return result


# -- random weights -------------------------------------------------------------------------
def config_folder(settings: Settings) -> Path:
    """The Hugging Face folder (config.json + tokenizer) of `settings.model`: the folder
    itself, or the registry model's derived folder. Its weights need not be there."""
    from .models import load_registry

    path = Path(settings.model).expanduser()
    if not path.is_dir():
        entry = load_registry(settings.models_dir).get(settings.model)
        if entry is None or not entry.hf_folder:
            raise InputError(f"--random-weights needs a model folder or a registry model with an hf_folder; "
                             f"{settings.model!r} is neither")
        path = Path(settings.models_dir) / entry.hf_folder
    if not (path / "config.json").is_file():
        raise InputError(f"--random-weights: {path} has no config.json")
    return path


def random_weight_model(source: Path, out: Path) -> str:
    """Write to `out` a model with the architecture and tokenizer of `source` and freshly
    initialized weights (generation speed does not depend on weight values), so that the
    transformers runtimes can be measured where the real weights are not. Returns `out`."""
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    transformers.logging.disable_progress_bar()
    config = AutoConfig.from_pretrained(source, local_files_only=True)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.save_pretrained(out, safe_serialization=True)
    AutoTokenizer.from_pretrained(source, local_files_only=True).save_pretrained(out)
    return str(out)


@contextlib.contextmanager
def _model_for_plan(settings: Settings, plan: BenchPlan) -> Iterator[Settings]:
    """`settings`, pointed at a random-weight copy of the model when the plan asks for one."""
    if not plan.random_weights:
        yield settings
        return
    source = config_folder(settings)
    with tempfile.TemporaryDirectory(prefix="local-agent-bench-model-") as tmp:
        out = Path(tmp) / f"{source.name}-random"
        yield replace(settings, model=_child(random_weight_model, source, out))


# -- cold start -----------------------------------------------------------------------------
def _ask_command(settings: Settings, data_dir: str, memory: bool, max_tokens: int) -> list[str]:
    """The command line of one cold start: the benchmark's settings as flags, since the
    child reads no config file (see `_time_process`)."""
    command = [sys.executable, "-m", "local_agent", "ask", "--max-tokens", str(max_tokens),
               "--data-dir", data_dir, "--model", settings.model, "--ctx-size", str(settings.ctx_size)]
    if settings.threads:
        command += ["--threads", str(settings.threads)]
    for name in ("backend", "device"):
        if getattr(settings, name) != "auto":
            command += [f"--{name}", getattr(settings, name)]
    return command + ([] if memory else ["--no-memory"]) + ["hi"]


def _time_process(command: list[str], models_dir: Path) -> tuple[float, float]:
    """(seconds to the first byte of the answer on stdout, seconds to exit) of `command`,
    run without the user's config file."""
    env = {**os.environ, "LOCAL_AGENT_CONFIG": os.devnull, "LOCAL_AGENT_MODELS_DIR": str(models_dir)}
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, env=env) as process:
            assert process.stdout is not None
            process.stdout.read(1)  # ask streams the answer and flushes every chunk
            first = time.perf_counter() - start
            process.stdout.read()
        total = time.perf_counter() - start
        if process.returncode != 0:
            raise LocalAgentError(f"{' '.join(command[2:5])} failed: {_tail(errors)}")
    return first, total


def _tail(stream: IO[bytes], lines: int = 3) -> str:
    stream.seek(0)
    return " | ".join(stream.read().decode("utf-8", "replace").strip().splitlines()[-lines:])


def measure_cold_start(settings: Settings, memory: bool, reps: int, max_tokens: int = 16,
                       warm_up: bool = True) -> dict[str, Any]:
    """Wall time of `local-agent ask "hi"` from process start to the answer, each run in a
    fresh data dir (with memory: the store is created and the embedder loaded)."""
    firsts, totals = [], []
    for index in range(reps + int(warm_up)):
        with tempfile.TemporaryDirectory(prefix="local-agent-bench-") as data_dir:
            first, total = _time_process(_ask_command(settings, data_dir, memory, max_tokens), settings.models_dir)
        if index >= int(warm_up):
            firsts.append(first)
            totals.append(total)
    return {"memory": memory, "to_answer_s": spread(firsts), "exit_s": spread(totals)}


# -- memory pipeline: synthetic memories ----------------------------------------------------
_NAMES = ("Maria", "Tom", "Aiko", "Priya", "Lars", "Chen", "Fatima", "Diego", "Olga", "Kwame", "Sofia",
          "Ravi", "Emma", "Jonas", "Leila", "Mateo", "Hana", "Samuel", "Ines", "Yusuf", "Noor", "Pavel")
_PLACES = ("Lisbon", "Denver", "Kyoto", "Nairobi", "Oslo", "Toronto", "Seville", "Hanoi", "Melbourne",
           "Krakow", "Lima", "Dublin", "Austin", "Porto", "Tbilisi", "Busan", "Quebec", "Marrakesh",
           "Helsinki", "Cusco", "the lake house", "the office", "the farmers market", "the gym")
_ACTIVITIES = ("hiking", "pottery", "salsa dancing", "rock climbing", "baking sourdough", "learning Japanese",
               "playing chess", "swimming", "painting watercolors", "trail running", "birdwatching", "knitting",
               "surfing", "gardening", "film photography", "playing the cello", "cycling", "yoga",
               "woodworking", "camping", "studying for the CFA exam", "training for a marathon")
_FOODS = ("sushi", "lentil soup", "tacos", "ramen", "paella", "dumplings", "falafel", "pho", "lasagna",
          "green curry", "pierogi", "shakshuka", "banana bread", "ceviche", "bibimbap", "goulash")
_RELATIONS = ("sister", "brother", "coworker", "neighbor", "best friend", "cousin", "manager", "roommate",
              "daughter", "son", "partner", "dentist")
_TIMES = ("yesterday", "last weekend", "on Monday", "this morning", "last summer", "two weeks ago",
          "on my birthday", "after work", "during the holidays", "last night")
_TURN_TEMPLATES = (
    "I went {activity} near {place} with {name} {time}.",
    "My {relation} {name} is moving to {place} next month.",
    "We had {food} for dinner {time} and it was great.",
    "I've been {activity} about {n} times since I moved to {place}.",
    "{name} recommended a {food} place in {place}.",
    "Can you remind me what {name} said about {activity}?",
    "I'm planning a trip to {place} in {n} weeks to try {activity}.",
    "My {relation} hates {food} but loves {activity}.",
    "I spent {n} dollars on gear for {activity} {time}.",
    "Do you think {food} would be good for a party of {n} people?",
)
_FACT_TEMPLATES: tuple[tuple[str, tuple[str, str] | None], ...] = (
    ("The user's favorite food is {food}.", ("user", "favorite food")),
    ("The user lives in {place}.", ("user", "home city")),
    ("The user enjoys {activity}.", None),
    ("The user's {relation} is named {name}.", None),
    ("The user has been {activity} for {n} years.", None),
)

RECALL_QUERIES = (
    "Where did I go hiking last weekend?",
    "What is my favorite food?",
    "Who is moving to Lisbon next month?",
    "What did Maria recommend?",
    "Which city do I live in?",
    "When is my trip to Kyoto?",
    "What does my sister like to do?",
    "Tell me about my pottery classes.",
    "How much did I spend on cycling gear?",
    "What is my cousin's name?",
    "What did we eat for dinner on my birthday?",
    "Am I still training for a marathon?",
    "Who hates ramen?",
    "What should I bring to the party?",
    "What have I been studying lately?",
    "Where does Kwame live?",
)


def synthetic_record(seq: int, rng: random.Random) -> MemoryRecord:
    """One varied memory: mostly chat turns (with session, date and speaker), some keyed facts."""
    words = dict(name=rng.choice(_NAMES), place=rng.choice(_PLACES), activity=rng.choice(_ACTIVITIES),
                 food=rng.choice(_FOODS), relation=rng.choice(_RELATIONS), time=rng.choice(_TIMES),
                 n=rng.randint(2, 40))
    created = 1.7e9 + seq * 600.0
    if rng.random() < 0.25:
        template, key = rng.choice(_FACT_TEMPLATES)
        return MemoryRecord(id=f"syn{seq:07d}", kind="fact", text=template.format(**words), key=key,
                            created=created, updated=created)
    provenance = {"session": f"synthetic-{seq // 20}", "turn_index": seq % 20 * 2, "role": "user",
                  "date": dt.date.fromtimestamp(created).isoformat()}
    return MemoryRecord(id=f"syn{seq:07d}", kind="turn", text=rng.choice(_TURN_TEMPLATES).format(**words),
                        provenance=provenance, created=created, updated=created)


def unit_vectors(count: int, dimension: int, seed: int = 0) -> "np.ndarray":
    """Random L2-normalized float32 vectors: a flat inner-product search costs the same
    whatever the vectors hold, and embedding 100k texts would take minutes here."""
    import numpy as np

    vectors = np.random.default_rng(seed).standard_normal((count, dimension), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def synthetic_state(count: int, dimension: int, seed: int = 0) -> "MemoryState":
    """The store's own in-memory state (FAISS + BM25 indexes) over `count` synthetic memories."""
    from .memory.state import MemoryState

    rng = random.Random(seed)
    records = [synthetic_record(seq, rng) for seq in range(count)]
    return MemoryState.build(records, unit_vectors(count, dimension, seed), count, dimension)


def write_synthetic_store(data_dir: Path, count: int, embedder: Any) -> None:
    """A memory store on disk in `data_dir` holding `count` synthetic memories, written by the
    store's own compaction code, so that MemoryStore.open reads it as any user's store."""
    from .memory.compaction import write_generation
    from .memory.layout import StorePaths
    from .memory.render import embedding_id

    paths = StorePaths.for_data_dir(data_dir)
    paths.create()
    state = synthetic_state(count, embedder.dimension)
    write_generation(paths, state, 1, embedding_id(embedder.model_id))


# -- memory pipeline: recall (child process) -------------------------------------------------
def _timed_ms(call: Callable[[], Any]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def measure_recall(sizes: tuple[int, ...], passes: int, k: int) -> dict[str, Any]:
    """Query embedding latency, then hybrid recall (the product's `hybrid_recall` over the
    store's own indexes) at each store size, with the query vectors computed beforehand."""
    from .memory import recall
    from .memory.embedder import Embedder

    embedder = Embedder()
    queries = list(RECALL_QUERIES)
    embedder.embed(queries[:1])  # loads the model; the first call is slow
    embed_ms = [_timed_ms(lambda q=q: embedder.embed([q])) for q in queries * passes]
    vectors = embedder.embed(queries)
    scales = [_recall_at(size, queries, vectors, embedder.dimension, passes, k, recall) for size in sizes]
    return {"query_embedding_ms": spread(embed_ms), "recall": scales, "k": k, "queries": len(queries),
            "peak_rss_mb": _peak_rss_mb()}


def _recall_at(size: int, queries: list[str], vectors: Any, dimension: int, passes: int, k: int,
               recall: Any) -> dict[str, Any]:
    start = time.perf_counter()
    state = synthetic_state(size, dimension)
    build_s = time.perf_counter() - start

    def search(index: int) -> list[Any]:
        return recall.hybrid_recall(state, queries[index], vectors[index], k=k, kinds=("fact", "turn"),
                                    min_score=recall.DEFAULT_MIN_SCORE)

    search(0)  # warm-up
    times = [_timed_ms(lambda i=i: search(i)) for _ in range(passes) for i in range(len(queries))]
    hits = [len(search(i)) for i in range(len(queries))]
    return {"memories": size, "build_s": build_s, "recall_ms": spread(times), "hits": spread(hits)}


# -- memory pipeline: distillation, summary, full turns (child process) ----------------------
# One message per route: rules, the model (two), and the gate's rejection.
DISTILL_WARMUP = "I started learning the cello two years ago."
DISTILL_MESSAGES = (
    "My name is Priya and I work as a nurse in Leeds.",
    "Fixing up old bicycles keeps me busy most evenings.",
    "We have three kids and they really wanted a dog, so now we have a beagle.",
    "What time is it in Tokyo right now?",
)
SUMMARY_DIALOGUE = (
    Message("user", "I'm planning a trip to Kyoto in April with my sister Aiko."),
    Message("assistant", "That sounds lovely! April is cherry blossom season in Kyoto."),
    Message("user", "We want to see temples but avoid the biggest crowds. I also need a vegetarian dinner."),
    Message("assistant", "Visit Fushimi Inari early in the morning, and try shojin ryori, Buddhist vegetarian food."),
    Message("user", "Great. My budget is about 2000 dollars for the whole week."),
    Message("assistant", "That is workable: stay in a guesthouse and use a regional rail pass."),
    Message("user", "Remind me to book the train from Tokyo by Friday."),
    Message("assistant", "Noted: book the Tokyo to Kyoto train by Friday."),
)
TURN_WARMUP = "Hello! How are you today?"
TURN_MESSAGES = (
    "What should I cook for dinner tonight?",
    "Any tips for my trip to Kyoto?",
    "Can you suggest something fun to do this weekend?",
    "How do I keep a sourdough starter alive?",
    "What is a good way to practice the cello?",
)


def measure_pipeline(settings: Settings, plan: BenchPlan) -> dict[str, Any]:
    """Distillation, summary and full turns through the product's own runtime (build_runtime:
    chat backend, distiller backend, store, agent) over a store of `plan.turn_store_size`
    synthetic memories."""
    from .app import build_runtime
    from .memory.embedder import Embedder

    with tempfile.TemporaryDirectory(prefix="local-agent-bench-") as tmp:
        data_dir = Path(tmp)
        write_synthetic_store(data_dir, plan.turn_store_size, Embedder())
        start = time.perf_counter()
        runtime = build_runtime(replace(settings, data_dir=data_dir), memory=True, new_session=True)
        load_s = time.perf_counter() - start
        try:
            return {"store_memories": plan.turn_store_size, "runtime_load_s": load_s,
                    "distill": _measure_distill(runtime, plan.reps),
                    "summary": _measure_summary(runtime, plan.reps),
                    "turn": _measure_turns(runtime, settings, plan), "peak_rss_mb": _peak_rss_mb()}
        finally:
            runtime.close()


def _measure_distill(runtime: "Runtime", reps: int) -> dict[str, Any]:
    distiller = runtime.agent.memory.distiller
    distiller.distill(DISTILL_WARMUP)  # compiles the grammar, caches the fixed prompt prefix
    runs = []
    for message in DISTILL_MESSAGES * reps:
        result = distiller.distill(message)
        runs.append({"message": message, "seconds": result.seconds, "model_called": result.model_called,
                     "facts": len(result.candidates)})
    model_runs = [r["seconds"] * 1000 for r in runs if r["model_called"]]
    return {"all_ms": _scaled([r["seconds"] for r in runs], 1000),
            "model_called_ms": spread(model_runs) if model_runs else None,
            "runs": runs[: len(DISTILL_MESSAGES)]}


def _measure_summary(runtime: "Runtime", reps: int) -> dict[str, Any]:
    summarizer = runtime.agent.memory.summarizer
    seconds = []
    for index in range(reps + 1):  # run 0 warms up (compiles the schema's grammar)
        start = time.perf_counter()
        text = summarizer.fold("", SUMMARY_DIALOGUE)
        if index:
            seconds.append(time.perf_counter() - start)
    return {"fold_ms": _scaled(seconds, 1000), "messages": len(SUMMARY_DIALOGUE),
            "bullets": text.count("\n") + 1}


def _measure_turns(runtime: "Runtime", settings: Settings, plan: BenchPlan) -> dict[str, Any]:
    """Time to first token of the same messages three ways, each in a block with its own
    warm-up (llama.cpp keeps the previous prompt's prefix cached, as in a chat): the bare
    backend on the message alone, the agent without memory, the agent with memory. Every
    agent turn starts a fresh session, so no history grows between runs."""
    generation = answer_settings(settings, plan.tokens)
    messages = list(TURN_MESSAGES[: max(plan.reps, 2)])
    bare = _bare_turns(runtime.backend, messages, generation)
    without = _agent_turns(runtime, None, messages, generation)
    with_memory = _agent_turns(runtime, runtime.agent.memory, messages, generation)
    # The pipeline's own cost before the model sees the prompt: recall (query embedding
    # included) and composing. The longer prompt that recalled memories make is the model's
    # prompt processing, reported apart as the TTFT difference.
    pipeline_ms = _median(with_memory, "before_model_ms")
    delta = _median(with_memory, "ttft_ms") - _median(bare, "ttft_ms")
    return {"messages": len(messages), "tokens": plan.tokens, "bare": bare, "agent_no_memory": without,
            "agent_memory": with_memory, "memory_overhead_ms": pipeline_ms, "ttft_delta_ms": delta,
            "ttft_delta_ratio": _median(with_memory, "ttft_ms") / _median(bare, "ttft_ms")}


def _bare_turns(backend: "Backend", messages: list[str], generation: GenerationSettings) -> dict[str, Any]:
    def run(message: str) -> dict[str, float]:
        timing = _timed_stream(lambda: backend.stream([Message("user", message)], generation),
                               lambda: backend.last_completion.completion_tokens)
        return {**timing, "prompt_tokens": backend.last_completion.prompt_tokens}

    run(TURN_WARMUP)
    runs = [run(message) for message in messages]
    return {"ttft_ms": _scaled([r["ttft_s"] for r in runs], 1000),
            "answer_ms": _scaled([r["total_s"] for r in runs], 1000),
            "prompt_tokens": spread([r["prompt_tokens"] for r in runs])}


def _agent_turns(runtime: "Runtime", memory: "MemoryParts | None", messages: list[str],
                 generation: GenerationSettings) -> dict[str, Any]:
    from .agent import Agent

    sessions = runtime.agent.sessions

    def turn(message: str) -> tuple["TurnResult", float]:
        agent = Agent(runtime.backend, sessions, sessions.new(), generation, memory=memory,
                      options=runtime.agent.options)
        result = agent.respond(message)
        start = time.perf_counter()
        agent.wait()  # storing the turn and distilling it, after the answer
        return result, time.perf_counter() - start

    turn(TURN_WARMUP)
    runs = [turn(message) for message in messages]
    timings = [result.timings for result, _ in runs]
    report = {
        "ttft_ms": _scaled([t["first_token_s"] for t in timings], 1000),
        "answer_ms": _scaled([t["answer_s"] for t in timings], 1000),
        "compose_ms": _scaled([t["compose_s"] for t in timings], 1000),
        "before_model_ms": _scaled([t.get("recall_s", 0.0) + t["compose_s"] for t in timings], 1000),
        "prompt_tokens": spread([float(result.tokens.get("prompt", 0)) for result, _ in runs]),
        "after_answer_ms": _scaled([after for _, after in runs], 1000),
    }
    if memory is not None:
        report["recall_ms"] = _scaled([t["recall_s"] for t in timings], 1000)
        report["recalled"] = spread([float(len(result.recalled)) for result, _ in runs])
    return report


# -- the machine ----------------------------------------------------------------------------
def machine_description() -> dict[str, Any]:
    from .backends.probe import probe_hardware

    hardware = probe_hardware().to_dict()
    return {"platform": platform.platform(), "processor": _cpu_model(), "python": platform.python_version(),
            "logical_cpus": os.cpu_count(), **hardware, "load_average_at_start": _load_average(),
            "libraries": _library_versions()}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def _load_average() -> list[float] | None:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return None


def _library_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in ("llama-cpp-python", "torch", "transformers", "bitsandbytes", "sentence-transformers",
                 "faiss-cpu", "bm25s"):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


# -- running a plan -------------------------------------------------------------------------
Step = tuple[str, Callable[[], None]]


@dataclass
class _Run:
    """One benchmark run: its steps fill `results` as they go; a step that fails is
    recorded under `errors` and the others still run."""

    settings: Settings
    plan: BenchPlan
    results: dict[str, Any] = field(default_factory=dict)
    prompts: dict[str, list[str]] = field(default_factory=dict)  # per llama-cpp row, for the raw baseline

    def steps(self, hw: "HardwareInfo") -> list[Step]:
        steps: list[Step] = []
        if "backends" in self.plan.sections:
            steps += self._backend_steps(hw)
        if "cold-start" in self.plan.sections:
            steps += [("cold start, no memory", lambda: self._cold_start(False)),
                      ("cold start, memory", lambda: self._cold_start(True))]
        if "memory" in self.plan.sections:
            steps += [("recall", self._recall), ("memory pipeline", self._pipeline)]
        return steps

    def _backend_steps(self, hw: "HardwareInfo") -> list[Step]:
        rows, skipped = candidate_rows(hw, self.plan.random_weights)
        self.results["backends"], self.results["backends_skipped"] = [], skipped
        steps: list[Step] = []
        for row in select_rows(rows, self.plan.backends):
            steps.append((row.name, lambda row=row: self._backend(row)))
            if row.backend == "llama-cpp":
                steps.append((f"raw llama-cpp-python/{row.device}", lambda row=row: self._raw(row)))
        return steps

    def _backend(self, row: BackendRow) -> None:
        measured = _child(measure_backend, self.settings, row.backend, row.device, self.plan.reps, self.plan.tokens)
        self.prompts[row.name] = measured.pop("prompts")
        self.results["backends"].append({"name": row.name, "baseline": False, **measured})

    def _raw(self, row: BackendRow) -> None:
        from .models import resolve_model

        if row.name not in self.prompts:
            raise LocalAgentError(f"no prompts: the {row.name} row failed")
        gguf = resolve_model(self.settings.model, self.settings.models_dir).gguf_path
        measured = _child(measure_raw_llama, self.settings, gguf, row.device, self.plan.reps, self.plan.tokens,
                          self.prompts[row.name])
        self.results["backends"].append({"name": f"raw/{row.device}", "baseline": True, **measured})

    def _cold_start(self, memory: bool) -> None:
        # --quick warms up once, before the first of the two.
        warm_up = not (self.plan.quick and memory)
        measured = measure_cold_start(self.settings, memory, self.plan.cold_reps, warm_up=warm_up)
        self.results.setdefault("cold_start", {})["memory" if memory else "no_memory"] = measured

    def _recall(self) -> None:
        k = self.settings.recall_k + 4  # what the agent asks the store for
        self.results.setdefault("memory", {}).update(
            _child(measure_recall, self.plan.recall_sizes, self.plan.recall_passes, k))

    def _pipeline(self) -> None:
        self.results.setdefault("memory", {})["pipeline"] = _child(measure_pipeline, self.settings, self.plan)


def run_benchmark(settings: Settings, plan: BenchPlan, progress: bool = True) -> dict[str, Any]:
    """Run every step of `plan` and return all numbers with the machine's description."""
    from tqdm import tqdm

    from .backends.probe import physical_cores, probe_hardware

    unknown = set(plan.sections) - set(SECTIONS)
    if unknown:
        raise InputError(f"unknown section(s) {', '.join(sorted(unknown))} (choose from {', '.join(SECTIONS)})")
    start = time.perf_counter()
    settings = replace(settings, threads=settings.threads or physical_cores())
    results: dict[str, Any] = {"version": RESULTS_VERSION, "created": dt.datetime.now().isoformat(timespec="seconds"),
                               "machine": machine_description(), "settings": _settings_dict(settings, plan),
                               "errors": {}}
    with _model_for_plan(settings, plan) as measured_settings:
        run = _Run(measured_settings, plan, results)
        steps = run.steps(probe_hardware())
        with tqdm(steps, desc="benchmark", unit="step", file=sys.stderr, disable=not progress) as bar:
            for name, step in bar:
                bar.set_postfix_str(name)
                _run_step(name, step, results["errors"])
    _add_ratios(results.get("backends", []))
    results["targets"] = targets(results)
    results["machine"]["load_average_at_end"] = _load_average()
    results["wall_s"] = time.perf_counter() - start
    return results


def _run_step(name: str, step: Callable[[], None], errors: dict[str, str]) -> None:
    try:
        step()
    except Exception as exc:  # one failed measurement must not lose the others
        errors[name] = f"{type(exc).__name__}: {' '.join(str(exc).split())[:500]}"


def _settings_dict(settings: Settings, plan: BenchPlan) -> dict[str, Any]:
    return {"model": settings.model, "threads": settings.threads, "ctx_size": settings.ctx_size,
            "backend_for_pipeline": settings.backend, "device_for_pipeline": settings.device,
            "greedy": True, "repeat_penalty": answer_settings(settings, plan.tokens).repeat_penalty,
            **asdict(plan)}


def _add_ratios(rows: list[dict[str, Any]]) -> None:
    """Each llama-cpp row's decode speed and time to first token relative to raw
    llama-cpp-python on the same device, from the paired runs."""
    baselines = {row["device"]: row for row in rows if row.get("baseline")}
    for row in rows:
        raw = baselines.get(row["device"])
        if row.get("baseline") or row["backend"] != "llama-cpp" or raw is None:
            continue
        row["decode_vs_raw"] = raw["paired"]["decode_ratio"]
        row["ttft_vs_raw"] = raw["paired"]["ttft_ratio"]


# -- targets --------------------------------------------------------------------------------
def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The issue's targets with the measured value (None: not measured in this run)."""
    memory = results.get("memory", {})
    turn = memory.get("pipeline", {}).get("turn", {})
    ratios = [_median(r, "decode_vs_raw") for r in results.get("backends", []) if "decode_vs_raw" in r]
    recall_top = max(memory.get("recall", []), key=lambda r: r["memories"], default=None)
    store_size = memory.get("pipeline", {}).get("store_memories")
    checks = [
        ("agent decode / raw llama-cpp-python (paired runs)", min(ratios, default=None),
         ">=", DECODE_RATIO_GOAL, ""),
        (f"memory pipeline overhead on TTFT (recall + compose) at {store_size or 10_000:,} memories",
         turn.get("memory_overhead_ms"), "<=", MEMORY_OVERHEAD_GOAL_MS, "ms"),
        (f"recall p50 at {recall_top['memories'] if recall_top else 100_000:,} memories",
         _median(recall_top, "recall_ms"), "<=", RECALL_P50_GOAL_MS, "ms"),
        ("TTFT of a chat turn with memory, once loaded",
         _ms_to_s(_median(turn.get("agent_memory"), "ttft_ms")), "<=", CHAT_TTFT_GOAL_S, "s"),
    ]
    return [_check(*check) for check in checks]


def _ms_to_s(value: float | None) -> float | None:
    return None if value is None else value / 1000


def _check(name: str, value: float | None, op: str, goal: float, unit: str) -> dict[str, Any]:
    met = None if value is None else (value >= goal if op == ">=" else value <= goal)
    return {"target": name, "value": value, "goal": f"{op} {goal:g}{' ' + unit if unit else ''}", "unit": unit,
            "met": met}


# -- report: markdown -----------------------------------------------------------------------
def _num(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:,.{digits}f}"


def _cell(entry: dict[str, Any] | None, key: str, factor: float = 1.0, digits: int = 1) -> str:
    """'median (min–max)' of spread entry[key], scaled; just the median when n is 1."""
    if not entry or not isinstance(entry.get(key), dict):
        return "–"
    values = entry[key]
    median = _num(values["median"] * factor, digits)
    if values["n"] < 2:
        return median
    return f"{median} ({_num(values['min'] * factor, digits)}–{_num(values['max'] * factor, digits)})"


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


def _backend_table(rows: list[dict[str, Any]]) -> str:
    header = ["backend", "load s", "prompt tok/s", "decode tok/s", "TTFT ms", "decode vs raw (paired)",
              "peak RSS MB", "peak GPU MB"]
    body = [[row["name"] + (" (baseline)" if row["baseline"] else ""), _num(row["load_s"], 2),
             _cell(row, "prompt_tok_s"), _cell(row, "decode_tok_s"), _cell(row, "ttft_s", 1000, 0),
             _cell(row, "decode_vs_raw", digits=3), _num(row["peak_rss_mb"], 0), _num(row["peak_gpu_mb"], 0)]
            for row in rows]
    return _table(header, body)


def _cold_table(cold: dict[str, Any]) -> str:
    body = [[f'`ask "hi"` {"with memory" if entry["memory"] else "--no-memory"}',
             _cell(entry, "to_answer_s", 1, 2), _cell(entry, "exit_s", 1, 2)]
            for entry in cold.values()]
    return _table(["cold start (fresh data dir)", "to first answer text s", "to exit s"], body)


def _memory_rows(memory: dict[str, Any]) -> list[list[str]]:
    rows = []
    if "query_embedding_ms" in memory:
        rows.append(["query embedding (MiniLM, 1 query)", _cell(memory, "query_embedding_ms", 1, 1)])
    for scale in memory.get("recall", []):
        rows.append([f"recall, search only, {scale['memories']:,} memories (k={memory['k']})",
                     _cell(scale, "recall_ms", 1, 2)])
    pipeline = memory.get("pipeline", {})
    if pipeline:
        rows += _pipeline_rows(pipeline)
    return rows


def _pipeline_rows(pipeline: dict[str, Any]) -> list[list[str]]:
    distill, summary, turn = pipeline["distill"], pipeline["summary"], pipeline["turn"]
    size = f"{pipeline['store_memories']:,}"
    return [
        [f"runtime load (chat + distiller backends, store of {size})", _num(pipeline["runtime_load_s"] * 1000, 0)],
        ["distillation, every message", _cell(distill, "all_ms", 1, 0)],
        ["distillation, messages that reach the model", _cell(distill, "model_called_ms", 1, 0)],
        [f"summary fold ({summary['messages']} messages)", _cell(summary, "fold_ms", 1, 0)],
        ["TTFT, bare backend on the message", _cell(turn["bare"], "ttft_ms", 1, 0)],
        ["TTFT, agent turn without memory", _cell(turn["agent_no_memory"], "ttft_ms", 1, 0)],
        [f"TTFT, agent turn with memory ({size} memories)", _cell(turn["agent_memory"], "ttft_ms", 1, 0)],
        [f"recall inside the turn ({size} memories, with query embedding)",
         _cell(turn["agent_memory"], "recall_ms", 1, 1)],
        [f"full turn without memory ({turn['tokens']} tokens)", _cell(turn["agent_no_memory"], "answer_ms", 1, 0)],
        [f"full turn with memory ({turn['tokens']} tokens)", _cell(turn["agent_memory"], "answer_ms", 1, 0)],
        ["memory work after the answer (store + distill)", _cell(turn["agent_memory"], "after_answer_ms", 1, 0)],
        ["memory pipeline before the model (recall + compose)", _cell(turn["agent_memory"], "before_model_ms", 1, 1)],
        ["TTFT with memory - bare (pipeline + longer prompt)",
         f"{_num(turn['ttft_delta_ms'], 0)} (×{_num(turn['ttft_delta_ratio'], 2)})"],
    ]


def _targets_table(checks: list[dict[str, Any]]) -> str:
    marks = {True: "yes", False: "**no**", None: "not measured"}
    digits = {"": 3, "ms": 1, "s": 2}
    body = [[c["target"], _num(c["value"], digits[c["unit"]]) + _unit(c), c["goal"], marks[c["met"]]]
            for c in checks]
    return _table(["target", "measured", "goal", "met"], body)


def _unit(check: dict[str, Any]) -> str:
    return f" {check['unit']}" if check["unit"] and check["value"] is not None else ""


def render_markdown(results: dict[str, Any]) -> str:
    """The report: one table per section, then the targets, errors and skipped rows."""
    parts = _heading(results)
    if results.get("backends"):
        parts.append(_backend_table(results["backends"]))
    if results.get("cold_start"):
        parts.append(_cold_table(results["cold_start"]))
    memory_rows = _memory_rows(results.get("memory", {}))
    if memory_rows:
        parts.append(_table(["memory pipeline", "ms"], memory_rows))
    parts.append(_targets_table(results.get("targets", [])))
    parts += _notes(results)
    return "\n\n".join(parts) + "\n"


def _heading(results: dict[str, Any]) -> list[str]:
    machine, plan = results["machine"], results["settings"]
    gpu = f", {machine['cuda_device_name']}" if machine.get("cuda_device_name") else ""
    weights = " (random weights)" if plan["random_weights"] else ""
    load = f"load average {machine.get('load_average_at_start')} → {machine.get('load_average_at_end')}"
    return [f"## local-agent benchmark ({'quick' if plan['quick'] else 'full'}, {results['created']})",
            f"{machine['processor']}, {machine['cpu_cores']} cores, {machine['ram_gb']} GB RAM{gpu}; {load}. "
            f"Model {plan['model']}{weights}, {plan['threads']} threads, {plan['tokens']} tokens per run, "
            f"greedy (repeat penalty {plan.get('repeat_penalty', 1.0):g}), {plan['reps']} runs after a warm-up; "
            "cells are median (min–max)."]


def _notes(results: dict[str, Any]) -> list[str]:
    notes = [f"- skipped {name}: {reason}" for name, reason in results.get("backends_skipped", {}).items()]
    notes += [f"- **failed** {name}: {error}" for name, error in results.get("errors", {}).items()]
    if "wall_s" in results:
        notes.append(f"- wall time {results['wall_s']:.0f} s")
    return ["\n".join(notes)] if notes else []


# -- report: files --------------------------------------------------------------------------
def write_json(results: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")


_DEVICE_COLORS = {"cpu": "#4C72B0", "cuda": "#55A868"}
_BASELINE_COLOR = "#8C8C8C"


def write_chart(results: dict[str, Any], path: Path) -> None:
    """A PNG comparing the backends (CPU and GPU bars in their own colours, the raw
    llama-cpp-python baseline in grey, whiskers from min to max) and recall latency by
    store size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = results.get("backends", [])
    figure, axes = plt.subplots(2, 3, figsize=(15, 8.5), constrained_layout=True)
    panels = [("decode_tok_s", 1, "decode tokens/s (higher is better)"),
              ("prompt_tok_s", 1, "prompt tokens/s (higher is better)"),
              ("ttft_s", 1000, "time to first token, ms (lower is better)")]
    for axis, (key, factor, title) in zip(axes[0], panels):
        _bar_panel(axis, rows, key, factor, title)
    _ratio_notes(axes[0][0], rows)
    _plain_bars(axes[1][0], rows, "load_s", "model load, s (lower is better)")
    _memory_panel(axes[1][1], rows)
    _recall_panel(axes[1][2], results.get("memory", {}).get("recall", []))
    plan = results["settings"]
    weights = " (random weights)" if plan["random_weights"] else ""
    figure.suptitle(f"local-agent benchmark: {plan['model']}{weights}, {results['machine']['processor']}, "
                    f"{plan['threads']} threads, {plan['tokens']} tokens/run "
                    f"({'quick' if plan['quick'] else 'full'}, {results['created']})", fontsize=11)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _colors(rows: list[dict[str, Any]]) -> list[str]:
    return [_BASELINE_COLOR if row["baseline"] else _DEVICE_COLORS.get(row["device"], "#C44E52") for row in rows]


def _labels(rows: list[dict[str, Any]]) -> list[str]:
    return [row["name"].replace("-4bit", "\n4-bit").replace("/", "\n") for row in rows]


def _tick_size(rows: list[dict[str, Any]]) -> float:
    return 8 if len(rows) <= 5 else 6.5


def _bar_panel(axis: Any, rows: list[dict[str, Any]], key: str, factor: float, title: str) -> None:
    axis.set_title(title, fontsize=10)
    rows = [row for row in rows if isinstance(row.get(key), dict)]
    if not rows:
        return _empty(axis)
    medians = [row[key]["median"] * factor for row in rows]
    low = [m - row[key]["min"] * factor for m, row in zip(medians, rows)]
    high = [row[key]["max"] * factor - m for m, row in zip(medians, rows)]
    bars = axis.bar(_labels(rows), medians, color=_colors(rows), yerr=[low, high], capsize=4)
    axis.bar_label(bars, fmt="%.0f" if max(medians) >= 100 else "%.1f", fontsize=8, label_type="center",
                   color="white", fontweight="bold")
    axis.tick_params(axis="x", labelsize=_tick_size(rows))
    _legend(axis, rows)


def _ratio_notes(axis: Any, rows: list[dict[str, Any]]) -> None:
    """Above each bar compared with raw llama-cpp-python: the paired-run ratio (the bars come
    from separate processes, which a busy machine slows unevenly)."""
    rows = [row for row in rows if isinstance(row.get("decode_tok_s"), dict)]
    for position, row in enumerate(rows):
        if "decode_vs_raw" in row:
            axis.annotate(f"×{row['decode_vs_raw']['median']:.2f} of raw\n(paired runs)",
                          (position, row["decode_tok_s"]["max"]), textcoords="offset points", xytext=(0, 8),
                          ha="center", fontsize=8)
    axis.margins(y=0.15)


def _plain_bars(axis: Any, rows: list[dict[str, Any]], key: str, title: str, fmt: str = "%.2f") -> None:
    axis.set_title(title, fontsize=10)
    if not rows:
        return _empty(axis)
    bars = axis.bar(_labels(rows), [row[key] for row in rows], color=_colors(rows))
    axis.bar_label(bars, fmt=fmt, fontsize=8, padding=2)
    axis.tick_params(axis="x", labelsize=_tick_size(rows))


def _memory_panel(axis: Any, rows: list[dict[str, Any]]) -> None:
    gpu = [row.get("peak_gpu_mb") for row in rows]
    if not any(value is not None for value in gpu):
        return _plain_bars(axis, rows, "peak_rss_mb", "peak RSS, MB", fmt="%.0f")
    axis.set_title("peak memory, MB: RSS (solid), GPU (hatched)", fontsize=10)
    positions = list(range(len(rows)))
    bars = axis.bar([p - 0.2 for p in positions], [row["peak_rss_mb"] for row in rows], 0.4, color=_colors(rows))
    axis.bar_label(bars, fmt="%.0f", fontsize=8, padding=2)
    shown = [(p, value) for p, value in zip(positions, gpu) if value is not None]
    hatched = axis.bar([p + 0.2 for p, _ in shown], [value for _, value in shown], 0.4, color="white",
                       edgecolor=_DEVICE_COLORS["cuda"], hatch="//")
    axis.bar_label(hatched, fmt="%.0f", fontsize=8, padding=2)
    axis.set_xticks(positions, _labels(rows), fontsize=_tick_size(rows))


def _recall_panel(axis: Any, scales: list[dict[str, Any]]) -> None:
    axis.set_title(f"recall latency (search only), ms; goal p50 ≤ {RECALL_P50_GOAL_MS:g} ms", fontsize=10)
    if not scales:
        return _empty(axis)
    sizes = [scale["memories"] for scale in scales]
    medians = [scale["recall_ms"]["median"] for scale in scales]
    axis.plot(sizes, medians, marker="o", label="median")
    axis.fill_between(sizes, [s["recall_ms"]["min"] for s in scales], [s["recall_ms"]["max"] for s in scales],
                      alpha=0.2, label="min–max")
    axis.axhline(RECALL_P50_GOAL_MS, color="#C44E52", linestyle="--", linewidth=1, label="goal")
    axis.set_xscale("log")
    axis.set_ylim(0, max(RECALL_P50_GOAL_MS, *(s["recall_ms"]["max"] for s in scales)) * 1.15)
    axis.set_xlabel("memories in the store")
    for size, median in zip(sizes, medians):
        axis.annotate(f"{median:.1f}", (size, median), textcoords="offset points", xytext=(0, 6), fontsize=8,
                      ha="center")
    axis.legend(fontsize=8)


def _legend(axis: Any, rows: list[dict[str, Any]]) -> None:
    from matplotlib.patches import Patch

    shown = {("raw llama-cpp-python" if row["baseline"] else row["device"].upper()): color
             for row, color in zip(rows, _colors(rows))}
    axis.legend(handles=[Patch(color=c, label=l) for l, c in shown.items()], fontsize=8)


def _empty(axis: Any) -> None:
    axis.text(0.5, 0.5, "not measured", ha="center", va="center", transform=axis.transAxes, color="#888888")
    axis.set_xticks([])
    axis.set_yticks([])
