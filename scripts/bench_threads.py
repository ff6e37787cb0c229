#!/usr/bin/env python
"""Decode speed when model work moves between threads (local_agent/process/background.py), and the
first answer of a resumed chat with and without reading it ahead.

    python scripts/bench_threads.py [--tokens 64] [--reps 3]

Decode (greedy, llama-cpp-python, the product's OpenMP settings), median of --reps runs:
- on the main thread, alone;
- on the main thread while a pooled thread that ran the model is still alive (the old worker);
- on a fresh thread while the main thread's OpenMP team is alive;
- on a fresh thread after the main thread let its team go (omp_env.release_thread_team).
Then a resumed 10-exchange chat (scripted dialogue in a temporary data dir, the default model):
time to the first token of its first new answer, the message arriving 3 s after the chat
opened, without and with Agent.prepare_next_turn at the start (as the REPL now does).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

# (importing the package sets the OpenMP variables)
from local_agent.config import CHECKOUT_MODELS_DIR, DEFAULT_CTX_SIZE, Settings
from local_agent.process.omp_env import release_thread_team
from local_agent.turn.result import measured

GGUF = CHECKOUT_MODELS_DIR / "SmolLM2-135M-Instruct.Q4_1.gguf"
PROMPT = b"Write a long story about the sea and a lighthouse keeper who"
DIALOGUE = ("I just moved to Porto for a new job at the hospital.", "My sister Aiko is visiting next month.",
            "She loves seafood and old bookshops.", "I also want to take her to a concert.",
            "What is a good day trip from Porto?", "I play the cello in a small orchestra on Thursdays.",
            "Can you suggest a practice routine for the cello?", "I have been feeling tired after night shifts.",
            "Any tips for sleeping during the day?", "I want to learn Portuguese faster.")


def decode_speed(llm: Any, tokens: int) -> float:
    llm.reset()
    llm.eval(llm.tokenize(PROMPT))
    start = time.perf_counter()
    for _ in range(tokens):
        llm.eval([llm.sample(top_k=1)])
    return tokens / (time.perf_counter() - start)


def on_fresh_thread(llm: Any, tokens: int) -> float:
    speeds: list[float] = []
    thread = threading.Thread(target=lambda: speeds.append(decode_speed(llm, tokens)))
    thread.start()
    thread.join()
    return speeds[0]


def decode_cases(tokens: int, reps: int) -> dict[str, float]:
    import llama_cpp

    llm = llama_cpp.Llama(str(GGUF), n_ctx=DEFAULT_CTX_SIZE, n_threads=2, n_threads_batch=2, verbose=False)
    median = lambda run: statistics.median(run() for _ in range(reps))  # noqa: E731
    results = {"main thread alone": median(lambda: decode_speed(llm, tokens))}
    with ThreadPoolExecutor(1) as pool:  # a pooled thread that ran the model stays alive
        pool.submit(decode_speed, llm, 8).result()
        results["main thread, a pooled thread alive"] = median(lambda: decode_speed(llm, tokens))
    decode_speed(llm, 8)  # the main thread has its team again
    results["fresh thread, main team alive"] = median(lambda: on_fresh_thread(llm, tokens))

    def after_release() -> float:
        decode_speed(llm, 8)
        release_thread_team()
        return on_fresh_thread(llm, tokens)

    results["fresh thread, main team let go"] = median(after_release)
    llm.close()
    return results


def resumed_first_token(read_ahead: bool, data_dir: Path) -> float:
    from local_agent.app import build_runtime

    settings = replace(Settings(), data_dir=data_dir, max_tokens=16, incognito=True)
    runtime = build_runtime(settings, session="long", memory=False)  # a new process's chat
    try:
        if read_ahead:
            runtime.agent.prepare_next_turn()
        time.sleep(3)  # the user types
        return measured(runtime.agent.respond("What should we eat tonight?").timings.first_token_s)
    finally:
        runtime.close()


def resumed_cases(reps: int) -> dict[str, float]:
    from local_agent.app import build_runtime

    with tempfile.TemporaryDirectory(prefix="local-agent-bench-") as tmp:
        data_dir = Path(tmp)
        runtime = build_runtime(replace(Settings(), data_dir=data_dir, max_tokens=48), session="long", memory=False)
        for message in DIALOGUE:
            runtime.agent.respond(message)
        runtime.close()
        return {f"resumed chat, first token{' (read ahead)' if ahead else ''} s":
                statistics.median(resumed_first_token(ahead, data_dir) for _ in range(reps))
                for ahead in (False, True)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=64)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    results = {**{f"decode tok/s, {k}": v for k, v in decode_cases(args.tokens, args.reps).items()},
               **resumed_cases(args.reps)}
    print("| measure | value |\n|---|---|")
    for name, value in results.items():
        print(f"| {name} | {value:.2f} |")


if __name__ == "__main__":
    main()
