#!/usr/bin/env python
"""What the counting sandbox costs (docs/reliability.md, issue 44): one format_prompt of a
22-message conversation through the default model's chat template, rendered by llama-cpp-python's
Jinja2ChatFormatter (as before) and by backends/chat_template.py (now), with the same text;
building a ChatTemplate; and the GGUF metadata check beside llama.cpp's vocabulary-only load.

    python scripts/bench_chat_template.py
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from pathlib import Path

from local_agent.backends.chat_template import ChatTemplate
from local_agent.backends.gguf_check import checked_overrides
from local_agent.backends.llama_import import import_llama_cpp
from local_agent.config import CHECKOUT_MODELS_DIR
from local_agent.types import Message

DEFAULT_GGUF = CHECKOUT_MODELS_DIR / "SmolLM2-135M-Instruct.Q4_1.gguf"
SPECIAL = {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>"}


def per_call_us(job: Callable[[], object], calls: int = 300, rounds: int = 5) -> float:
    """Median over `rounds` of the mean time of one call, in microseconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            job()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def conversation() -> list[Message]:
    messages = [Message("system", "You are a helpful assistant. " * 40)]
    for index in range(10):
        messages += [Message("user", f"Question number {index} about something I said before " * 3),
                     Message("assistant", "An answer. " * 20)]
    return [*messages, Message("user", "And now?")]


def vocabulary_load_ms(lib: object, path: Path) -> float:
    from llama_cpp import _logger

    _logger.set_verbose(False)
    params = lib.llama_model_default_params()  # type: ignore[attr-defined]
    params.vocab_only = True
    start = time.perf_counter()
    lib.llama_model_free(lib.llama_model_load_from_file(str(path).encode(), params))  # type: ignore[attr-defined]
    return (time.perf_counter() - start) * 1000


def main() -> None:
    lib = import_llama_cpp()
    llm = lib.Llama(str(DEFAULT_GGUF), n_ctx=256, verbose=False, vocab_only=True)
    source = llm.metadata["tokenizer.chat_template"]
    messages, dicts = conversation(), [m.to_dict() for m in conversation()]
    before = lib.llama_chat_format.Jinja2ChatFormatter(template=source, add_generation_prompt=True, **SPECIAL)
    now = ChatTemplate(source, DEFAULT_GGUF, {**SPECIAL, "functions": None, "function_call": None,
                                              "tools": None, "tool_choice": None})
    text = now.render(messages)
    assert before(messages=dicts).prompt == text
    old_us, new_us = per_call_us(lambda: before(messages=dicts)), per_call_us(lambda: now.render(messages))
    print(f"format_prompt, {len(messages)} messages, {len(text):,} characters: before {old_us:.0f} us, "
          f"now {new_us:.0f} us (median of 5 x 300 calls)")
    start = time.perf_counter()
    ChatTemplate(source, DEFAULT_GGUF, SPECIAL)
    print(f"a ChatTemplate (compile and the sample conversation): {(time.perf_counter() - start) * 1000:.1f} ms")
    checks = [per_call_us(lambda: checked_overrides(DEFAULT_GGUF), calls=1, rounds=1) / 1000 for _ in range(5)]
    loads = [vocabulary_load_ms(lib, DEFAULT_GGUF) for _ in range(5)]
    print(f"the GGUF metadata check: {statistics.median(checks):.0f} ms; llama.cpp's vocabulary-only load "
          f"{statistics.median(loads):.0f} ms (medians of 5)")


if __name__ == "__main__":
    main()
