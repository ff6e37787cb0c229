"""Raw llama-cpp-python as a benchmark worker: run as a script, never imported by the package.

    python raw_worker.py MODEL.gguf THREADS CONTEXT [GPU_LAYERS]

It imports only the standard library and llama_cpp, not local_agent (whose import would set
the product's thread-wait variables), so what it measures is the library with its own
defaults in whatever environment its parent gives it. It loads the model, prints one JSON line
(`{"ready": ..., "load_s": ...}`), then answers one JSON line per request line on stdin (see
`handle`) until stdin closes. Requests:

    {"op": "decode", "prompt": TEXT, "max_tokens": N}    its default sampler (create_completion)
    {"op": "decode", ..., "greedy": true, "repeat_penalty": R}   greedy, for a like-for-like run
    {"op": "prompt", "tokens": N}                        evaluate N tokens on an empty context
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

FILLER = (b"The lighthouse keeper climbed the stairs at dusk, trimmed the wick, wound the clockwork "
          b"and wrote the wind, the sea and the passing ships into the log before the night watch. ")


def decode(llm: Any, request: dict[str, Any]) -> dict[str, Any]:
    """One streamed completion: time to the first chunk, then tokens/s over the rest (the
    first token's time is prompt evaluation, as `bench.measure.timed_stream` counts it)."""
    tokens = llm.tokenize(request["prompt"].encode("utf-8"), add_bos=False, special=True)
    options: dict[str, Any] = {}
    if request.get("greedy"):
        options = {"temperature": 0.0, "repeat_penalty": request.get("repeat_penalty", 1.0), "seed": 0}
    parts, finish = [], None
    start = time.perf_counter()
    first = None
    for chunk in llm.create_completion(tokens, max_tokens=request["max_tokens"], stream=True, **options):
        first = first if first is not None else time.perf_counter() - start
        choice = chunk["choices"][0]
        parts.append(choice["text"])
        finish = choice.get("finish_reason") or finish
    total = time.perf_counter() - start
    first = total if first is None else first
    text = "".join(parts)
    # Cut at max_tokens: exactly that many; else the answer's tokens plus the end of text.
    count = request["max_tokens"] if finish == "length" else len(
        llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)) + 1
    return {"ttft_s": first, "total_s": total, "completion_tokens": count, "prompt_tokens": len(tokens),
            "decode_tok_s": max(count - 1, 0) / max(total - first, 1e-9), "text": text}


def prompt(llm: Any, request: dict[str, Any]) -> dict[str, Any]:
    """Evaluate `tokens` tokens of filler text on an emptied context (no prefix reuse)."""
    wanted = int(request["tokens"])
    tokens: list[int] = []
    while len(tokens) < wanted:
        tokens += llm.tokenize(FILLER, add_bos=False)
    llm.n_tokens = 0  # eval() drops the KV cache from here on
    start = time.perf_counter()
    llm.eval(tokens[:wanted])
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "prompt_tok_s": wanted / seconds}


def handle(llm: Any, request: dict[str, Any]) -> dict[str, Any]:
    operations = {"decode": decode, "prompt": prompt}
    result = operations[request["op"]](llm, request)
    return {**result, "peak_rss_mb": _peak_rss_mb()}


def _peak_rss_mb() -> float:
    """Linux's VmHWM (ru_maxrss outlives exec, so it can be the parent's); bench.measure has the
    same, which this script may not import."""
    status = Path("/proc/self/status")
    lines = status.read_text(encoding="ascii").splitlines() if status.is_file() else []
    peak = [int(line.split()[1]) for line in lines if line.startswith("VmHWM:")]
    return peak[0] / 1024 if peak else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str]) -> int:
    start = time.perf_counter()
    import llama_cpp

    path, threads, context = argv[0], int(argv[1]), int(argv[2])
    gpu_layers = int(argv[3]) if len(argv) > 3 else 0
    # The library's defaults except what the comparison must share: threads, context size and
    # GPU offload.
    llm = llama_cpp.Llama(model_path=path, n_ctx=context, n_threads=threads, n_threads_batch=threads,
                          n_gpu_layers=gpu_layers, verbose=False)
    ready = {"ready": True, "load_s": time.perf_counter() - start, "n_batch": llm.n_batch,
             "system_info": llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip()}
    print(json.dumps(ready), flush=True)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps(handle(llm, json.loads(line))), flush=True)
    llm.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
