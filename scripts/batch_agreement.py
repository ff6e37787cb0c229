#!/usr/bin/env python
"""How often batched decoding changes a greedy answer: each prompt answered alone by the
single-sequence llama.cpp backend, then by the batched backend with N sequences at once
(backends/llama_parallel.py: N callers, each taking the next prompt as soon as it is done).

    python scripts/batch_agreement.py ../shared/data/distill-dev.jsonl --prompts 100 --slots 1,4,8

The prompts are the `text` of every k-th line of a JSON Lines file (k chosen to spread them
over the file), asked two ways: as a chat answer (the product's system prompt, repeat penalty
1.1, `--max-tokens`) and to the distiller (its few-shot prompt, greedy under its JSON grammar).
With 1 sequence the batched backend must agree on every answer (same kernels, same batches);
with more, llama.cpp computes the logits of several sequences in one matrix product, whose
kernel sums in another order than the one-row kernel (ggml's llamafile sgemm for the Q8_0
output layer), and a near tie can then go the other way. Prints a table and writes JSON with
each differing answer's first differing character.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import threading
import time
from pathlib import Path
from typing import Any

from local_agent.backends.base import Backend
from local_agent.backends.llama_cpp import LlamaCppBackend
from local_agent.backends.llama_parallel import ParallelLlamaBackend
from local_agent.memory.distill.distiller import DEFAULT_MAX_TOKENS, distill_schema, load_prompt
from local_agent.prompt import DEFAULT_SYSTEM, system_text
from local_agent.types import GenerationSettings, Message

DEFAULT_GGUF = Path(__file__).resolve().parents[1] / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
TODAY = "2024-05-01"
Call = tuple[list[Message], GenerationSettings, dict[str, Any] | None]


def read_prompts(path: Path, count: int) -> list[str]:
    texts = [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    step = max(1, len(texts) // count)
    return texts[::step][:count]


def calls(prompts: list[str], max_tokens: int) -> dict[str, list[Call]]:
    system = Message("system", system_text(DEFAULT_SYSTEM, TODAY, ""))
    answer = GenerationSettings(max_tokens=max_tokens, repeat_penalty=1.1)
    distill, schema = load_prompt(), distill_schema()
    return {
        "answer": [([system, Message("user", text)], answer, None) for text in prompts],
        "distill": [(distill.messages(text), GenerationSettings(max_tokens=DEFAULT_MAX_TOKENS), schema)
                    for text in prompts],
    }


def alone(backend: Backend, work: list[Call]) -> list[str]:
    return [backend.generate(messages, settings, schema).text for messages, settings, schema in work]


def batched(backend: Backend, work: list[Call], callers: int) -> list[str]:
    """`callers` threads take the next call as soon as their last is answered."""
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for index in range(len(work)):
        todo.put(index)
    answers = [""] * len(work)

    def caller() -> None:
        while True:
            try:
                index = todo.get_nowait()
            except queue.Empty:
                return
            messages, settings, schema = work[index]
            answers[index] = backend.generate(messages, settings, schema).text

    threads = [threading.Thread(target=caller) for _ in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def first_difference(one: str, two: str) -> int:
    return next((i for i, (a, b) in enumerate(zip(one, two)) if a != b), min(len(one), len(two)))


def compare(reference: list[str], answers: list[str]) -> dict[str, Any]:
    differing = [{"index": i, "first_difference": first_difference(a, b), "alone": a, "batched": b}
                 for i, (a, b) in enumerate(zip(reference, answers)) if a != b]
    return {"prompts": len(reference), "differing": len(differing), "share_differing": len(differing) / len(reference),
            "examples": differing}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="JSON Lines with a `text` field (e.g. shared/data/distill-dev.jsonl)")
    parser.add_argument("--prompts", type=int, default=100)
    parser.add_argument("--slots", default="1,4,8", help="sequences decoded together, comma-separated")
    parser.add_argument("--max-tokens", type=int, default=128)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--gguf", type=Path, default=DEFAULT_GGUF)
    parser.add_argument("--out", type=Path, default=Path("bench-results/batch_agreement.json"))
    args = parser.parse_args()
    work = calls(read_prompts(args.source, args.prompts), args.max_tokens)

    def load() -> LlamaCppBackend:
        return LlamaCppBackend(args.gguf, model_name="default", context_size=2048, threads=args.threads)

    single = load()
    reference = {name: alone(single, items) for name, items in work.items()}
    single.close()
    results: dict[str, Any] = {"prompts": args.prompts, "max_tokens": args.max_tokens, "source": str(args.source),
                               "runs": {}}
    for slots in (int(part) for part in args.slots.split(",")):
        backend = ParallelLlamaBackend(load(), slots)
        for name, items in work.items():
            start = time.perf_counter()
            answers = batched(backend, items, slots)
            result = compare(reference[name], answers) | {"wall_s": round(time.perf_counter() - start, 1)}
            results["runs"][f"{name}/{slots}"] = result
            print(f"{name:8} {slots} sequences: {result['differing']:3d} of {result['prompts']} differ "
                  f"({100 * result['share_differing']:.0f}%)", flush=True)
        backend.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
