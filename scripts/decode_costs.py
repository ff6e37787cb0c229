"""What constrained decoding and thread waiting cost on this machine, with the default model.

    python scripts/decode_costs.py [--sections constrained,wait-policy,enforcer]

constrained  distill prompts answered by llama-cpp-python's own sampler chain (the grammar over
             the whole vocabulary at every step) and by the product's decoder (llama_grammar.py),
             both starting from the cached few-shot prefix: median ms per answer, answer tokens,
             and the share of identical answers.
wait-policy  greedy decode tokens/s of raw llama-cpp-python with its threads waiting as the
             library does by default, PASSIVE, with the package's short spin, with a longer
             spin, and with one thread; idle and with one competing CPU-bound process.
enforcer     distill answers through transformers and lm-format-enforcer, with the memory
             pattern and with only its length bound (what the product sends): median s.
Prints one JSON document.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import os
import statistics
import time

from local_agent.backends import create_backend
from local_agent.backends.hf import without_patterns
from local_agent.backends.llama_cpp import LlamaCppBackend
from local_agent.bench.workers import Competitor, raw_worker, with_env
from local_agent.config import CHECKOUT_MODELS_DIR, DEFAULT_CTX_SIZE, Settings
from local_agent.memory.distill.distiller import DEFAULT_MAX_TOKENS, distill_schema, load_prompt
from local_agent.models import resolve_model
from local_agent.process.omp_env import SHORT_SPIN
from local_agent.types import GenerationSettings

MESSAGES = [
    "I keep bees on the roof of my flat in Oslo.", "I work night shifts at a hospital in Leeds.",
    "My sister and I run a small bakery together.", "I have been learning the cello for two years.",
    "We adopted a rescue greyhound last spring.", "I can't eat gluten, it makes me really ill.",
    "I'm training for my first marathon in October.", "Honestly I hate flying, I always take the train.",
    "I grew up on a farm near Cork.", "I collect old film cameras, mostly from the seventies.",
]
WAIT_SETUPS = {  # name: (OpenMP variables, threads)
    "library default": ({}, 2), "PASSIVE": ({"OMP_WAIT_POLICY": "PASSIVE"}, 2),
    f"GOMP_SPINCOUNT={SHORT_SPIN} (the package's)": ({"GOMP_SPINCOUNT": SHORT_SPIN}, 2),
    "GOMP_SPINCOUNT=1000": ({"GOMP_SPINCOUNT": "1000"}, 2), "GOMP_SPINCOUNT=30000": ({"GOMP_SPINCOUNT": "30000"}, 2),
    "one thread": ({}, 1),
}
WAIT_PROMPT = ("<|im_start|>system\nRun {run}. You are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
               "Write a long, detailed story about a lighthouse keeper.<|im_end|>\n<|im_start|>assistant\n")


def cpu_settings(backend: str) -> Settings:
    # incognito: the measurement saves no prompt state into the user's data dir
    return Settings(backend=backend, device="cpu", models_dir=CHECKOUT_MODELS_DIR, ctx_size=DEFAULT_CTX_SIZE,
                    incognito=True)


def common_prefix(sequences: list[list[int]]) -> list[int]:
    """The longest list every sequence starts with."""
    shortest = min(sequences, key=len)
    for index, item in enumerate(shortest):
        if any(sequence[index] != item for sequence in sequences):
            return shortest[:index]
    return shortest


def constrained() -> dict:
    """The library's sampler chain against the product's decoder, on the same grammar."""
    backend, _ = create_backend(cpu_settings("llama-cpp"))
    if not isinstance(backend, LlamaCppBackend):  # reaches into its runtime below
        raise SystemExit(f"expected the llama-cpp backend, got {backend.name}")
    schema, generation = distill_schema(), GenerationSettings(max_tokens=DEFAULT_MAX_TOKENS)
    prompts = [load_prompt().messages(message) for message in MESSAGES]
    tokens = [backend._prompt_tokens(backend.format_prompt(p)) for p in prompts]
    prefix = common_prefix(tokens)
    library_s, ours_s, library_tokens, ours_tokens, same = [], [], [], [], 0
    try:
        for messages, prompt in zip(prompts, tokens):
            backend._evaluate(prefix)  # both start from the cached few-shot prefix
            start = time.perf_counter()
            library = backend._llm.create_completion(prompt, max_tokens=DEFAULT_MAX_TOKENS, temperature=0.0,
                                                     grammar=backend._grammar(schema))
            library_s.append(time.perf_counter() - start)
            backend._evaluate(prefix)
            ours = backend.generate(messages, generation, json_schema=schema)
            ours_s.append(ours.total_s)
            library_tokens.append(library["usage"]["completion_tokens"])
            ours_tokens.append(ours.completion_tokens)
            same += library["choices"][0]["text"] == ours.text
    finally:
        backend.close()
    return {"answers": len(prompts), "identical_share": same / len(prompts),
            "library_ms_p50": 1000 * statistics.median(library_s), "ours_ms_p50": 1000 * statistics.median(ours_s),
            "library_tokens_p50": statistics.median(library_tokens), "ours_tokens_p50": statistics.median(ours_tokens)}


def wait_policy(rounds: int = 3, tokens: int = 128) -> dict:
    """Greedy decode tokens/s of raw llama-cpp-python under each wait setup, one process each
    taking turns in rotating order, idle and with one competing busy loop: medians over
    `rounds` rounds after a warm-up round, and the load average."""
    gguf = resolve_model(cpu_settings("llama-cpp").model, CHECKOUT_MODELS_DIR).gguf_path
    if gguf is None:
        raise SystemExit("the default model has no GGUF file")
    out: dict = {"load_average_start": os.getloadavg()}
    with contextlib.ExitStack() as stack:
        workers = {name: stack.enter_context(raw_worker(gguf, threads, DEFAULT_CTX_SIZE, with_env(env), name))
                   for name, (env, threads) in WAIT_SETUPS.items()}
        for case in ("idle", "competing"):
            speeds: dict[str, list[float]] = {name: [] for name in workers}
            for index in range(rounds + 1):
                names = list(workers)[index % len(workers):] + list(workers)[: index % len(workers)]
                for name in names:
                    with Competitor() if case == "competing" else contextlib.nullcontext():
                        measured = workers[name].ask(op="decode", prompt=WAIT_PROMPT.format(run=index),
                                                     max_tokens=tokens, greedy=True)
                    if index:
                        speeds[name].append(measured["decode_tok_s"])
            out[case] = {name: round(statistics.median(values), 1) for name, values in speeds.items()}
    out["load_average_end"] = os.getloadavg()
    return out


def enforcer() -> dict:
    backend, _ = create_backend(cpu_settings("transformers"))
    schema, generation = distill_schema(), GenerationSettings(max_tokens=DEFAULT_MAX_TOKENS)
    with_pattern = copy.deepcopy(schema)
    del with_pattern["properties"]["memories"]["items"]["maxLength"]  # the enforcer takes one or the other
    out = {}
    try:
        for label, sent in (("pattern", with_pattern), ("length_only", without_patterns(schema))):
            seconds = [backend.generate(load_prompt().messages(m), generation, json_schema=sent).total_s
                       for m in MESSAGES[:3]]
            out[f"{label}_s_p50"] = statistics.median(seconds)
    finally:
        backend.close()
    return out


SECTIONS = {"constrained": constrained, "wait-policy": wait_policy, "enforcer": enforcer}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default=",".join(SECTIONS), help="comma-separated: " + ", ".join(SECTIONS))
    args = parser.parse_args()
    chosen = [s.strip() for s in args.sections.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown:
        parser.exit(1, f"error: unknown section {unknown[0]!r}; choose from {', '.join(SECTIONS)}\n")
    print(json.dumps({name: SECTIONS[name]() for name in chosen}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
