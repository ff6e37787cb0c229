"""The baseline: raw llama-cpp-python, alone and in paired runs with the llama-cpp backend."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from ..config import Settings
from ..types import GenerationSettings
from .generation import answer_settings, backend_run, bench_messages, repeat_runs, summarize_runs
from .measure import GpuMemory, peak_rss_mb, timed_stream
from .stats import spread


def measure_raw_llama(settings: Settings, gguf: Path, device: str, reps: int, max_tokens: int,
                      prompts: list[str]) -> dict[str, Any]:
    """llama-cpp-python called directly, with the backend's threads, batch size and GPU
    offload, and no hooks of ours: the baseline the agent's llama-cpp backend is compared
    with. Its own numbers come first (peak RSS included); then it takes turns with the
    product's backend in this same process (see `_paired_runs`)."""
    gpu = GpuMemory(device)
    start = time.perf_counter()
    llm = _load_raw_llama(settings, gguf, device)
    load_s = time.perf_counter() - start
    generation = answer_settings(settings, max_tokens)
    runs = repeat_runs(lambda index: _raw_run(llm, prompts[index], generation), reps)
    row = {"backend": "raw llama-cpp-python", "device": device, "load_s": load_s, **summarize_runs(runs),
           "peak_rss_mb": peak_rss_mb(), "peak_gpu_mb": gpu.peak_mb()}
    try:
        row["paired"] = _paired_runs(settings, llm, device, max(reps, 3), generation)
    finally:
        llm.close()
    return row


def _load_raw_llama(settings: Settings, gguf: Path, device: str) -> Any:
    import llama_cpp  # imported here so that the load time includes it, as the backend's does

    from ..backends.llama_cpp import batch_size_for
    from ..backends.probe import physical_cores

    threads = settings.threads or physical_cores()
    batch = batch_size_for(llama_cpp, device)
    return llama_cpp.Llama(model_path=str(gguf), n_ctx=settings.ctx_size, n_batch=batch, n_ubatch=batch,
                           n_threads=threads, n_threads_batch=threads, n_gpu_layers=-1 if device == "cuda" else 0,
                           seed=0, verbose=False)


def _raw_run(llm: Any, prompt: str, generation: GenerationSettings) -> dict[str, float]:
    completion = _RawCompletion(llm, prompt, generation)
    return {**timed_stream(completion.stream(), completion.generated), "prompt_tokens": len(completion.tokens)}


PAIRED_RUNS_FROM = 1000  # run numbers of the paired runs: prompts that no earlier run processed


def _paired_runs(settings: Settings, llm: Any, device: str, pairs: int,
                 generation: GenerationSettings) -> dict[str, Any]:
    """The product's llama-cpp backend and raw llama-cpp-python loaded side by side, taking
    turns (in alternating order) on the same prompts. On a shared machine the load changes
    between two processes run one after the other; the two halves of a pair see about the
    same load, so their ratio is what the target is checked on. Pair 0 warms up."""
    from ..backends import create_backend

    model, _ = create_backend(replace(settings, backend="llama-cpp", device=device))
    decode, ttft = [], []
    try:
        for index in range(pairs + 1):
            messages = bench_messages(PAIRED_RUNS_FROM + index)
            turns = [("agent", partial(backend_run, model, messages, generation)),
                     ("raw", partial(_raw_run, llm, model.format_prompt(messages), generation))]
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
