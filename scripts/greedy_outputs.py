#!/usr/bin/env python
"""Greedy answers of the default model to a fixed set of prompts, to check that a speed lever
(another build, batch size, flash attention, thread count) leaves the output as it was.

    python scripts/greedy_outputs.py --out avx2.json
    python scripts/greedy_outputs.py --out fa.json --flash-attn --batch 256
    python scripts/greedy_outputs.py --compare avx2.json fa.json

Each answer is 64 tokens of argmax decoding (no repeat penalty, so the logits alone decide)
after evaluating the prompt in batches; two prompts are over 512 tokens, so prompt evaluation
takes the batched matrix kernels. The JSON holds the token ids, the text and the llama.cpp
build's system info. --compare exits 1 when any answer differs, and names the first token
where it does. Only llama_cpp and the standard library are imported: run it with any
environment's Python that has llama-cpp-python.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_GGUF = Path(__file__).resolve().parents[1] / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf"
CONTEXT = 2048  # local_agent.config.DEFAULT_CTX_SIZE: this script imports nothing of the package (see above)
FILLER = ("The lighthouse keeper climbed the stairs at dusk, trimmed the wick, wound the clockwork and wrote "
          "the wind, the sea and the passing ships into the log before the night watch. ")
QUESTIONS = (
    "Write a long, detailed story about a lighthouse keeper who finds a message in a bottle.",
    "What should I cook for dinner tonight? I have rice, eggs, spinach and some leftover chicken.",
    "Explain how a refrigerator keeps food cold, step by step.",
    "My sister Aiko and I are going to Kyoto in April. Any tips?",
    "List five ways to stay focused while working from home.",
    "What is the capital of Australia, and why is it not Sydney?",
    "Translate 'good morning, how did you sleep?' into French and Spanish.",
    "Write a haiku about a rainy Monday.",
    "How do I keep a sourdough starter alive while I am away for two weeks?",
    "Summarize the plot of Romeo and Juliet in three sentences.",
)
LONG = (FILLER * 30 + "Summarize the log above in one sentence.", FILLER * 45 + "What did the keeper do first?")


def chatml(system: str, user: str) -> str:
    """The default model's chat template (ChatML), rendered."""
    return (f"<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}<|im_end|>\n"
            "<|im_start|>assistant\n")


def prompts() -> list[str]:
    system = "You are a concise, helpful assistant running privately on the user's computer."
    return [chatml(system, question) for question in QUESTIONS + LONG]


def greedy(llm: Any, prompt: str, tokens: int) -> list[int]:
    import llama_cpp
    import numpy as np

    ids = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
    llm.n_tokens = 0  # eval() drops the KV cache from here: nothing is reused
    llm.eval(ids)
    out: list[int] = []
    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    for _ in range(tokens):
        logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(llm.n_vocab(),))
        token = int(logits.argmax())
        if llama_cpp.llama_vocab_is_eog(vocab, token):
            break
        out.append(token)
        llm.eval([token])
    return out


def record(args: argparse.Namespace) -> dict:
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(args.model), n_ctx=CONTEXT, n_batch=args.batch,
                          n_ubatch=args.ubatch or args.batch, n_threads=args.threads, n_threads_batch=args.threads,
                          flash_attn=args.flash_attn, verbose=False)
    start = time.perf_counter()
    answers = []
    for prompt in prompts():
        ids = greedy(llm, prompt, args.tokens)
        answers.append({"prompt_chars": len(prompt), "tokens": ids,
                        "text": llm.detokenize(ids).decode("utf-8", "replace")})
    return {"system_info": llama_cpp.llama_print_system_info().decode().strip(), "batch": args.batch,
            "ubatch": args.ubatch or args.batch, "threads": args.threads, "flash_attn": args.flash_attn,
            "seconds": time.perf_counter() - start, "answers": answers}


def compare(first: Path, second: Path) -> int:
    a, b = (json.loads(path.read_text()) for path in (first, second))
    differ = 0
    for index, (x, y) in enumerate(zip(a["answers"], b["answers"])):
        if x["tokens"] != y["tokens"]:
            at = next((i for i, (s, t) in enumerate(zip(x["tokens"], y["tokens"])) if s != t),
                      min(len(x["tokens"]), len(y["tokens"])))
            print(f"prompt {index}: differs from token {at}: {x['text'][:60]!r} vs {y['text'][:60]!r}")
            differ += 1
    print(f"{len(a['answers']) - differ} of {len(a['answers'])} answers identical "
          f"({a['system_info']} / {b['system_info']})")
    return 1 if differ else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the answers here")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="compare two answer files")
    parser.add_argument("--model", type=Path, default=DEFAULT_GGUF)
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--ubatch", type=int, default=0, help="micro-batch [the batch]")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--flash-attn", action="store_true")
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    if not args.out:
        parser.error("give --out FILE or --compare A B")
    args.out.write_text(json.dumps(record(args), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
