"""The report of the sections about several conversations at once: batched decoding against
llama-batched-bench (batching.py), `batch --parallel` (batch_rate.py) and the server under
load (server_load.py)."""

from __future__ import annotations

from typing import Any

from .cells import cell, table


def batching_tables(batching: dict[str, Any]) -> list[str]:
    """Aggregate decode tokens/s per count of sequences, the engine beside llama-batched-bench."""
    header = ["sequences", "engine decode tok/s", "llama-batched-bench decode tok/s", "engine / batched-bench (paired)",
              "engine prompt + decode tok/s", "batched-bench prompt + decode tok/s"]
    body = [[str(row["sequences"]), cell(row, "engine_decode_tok_s"), cell(row, "llama_batched_bench_decode_tok_s"),
             cell(row, "engine_vs_llama_batched_bench", digits=3), cell(row, "engine_total_tok_s"),
             cell(row, "llama_batched_bench_total_tok_s")]
            for row in batching["rows"]]
    skipped = f" llama-batched-bench not measured: {batching['skipped']}." if batching.get("skipped") else ""
    note = (f"Batched decoding, {batching['build']} build, {batching['threads']} threads: each count reads that many "
            f"prompts of {batching['prompt_tokens']} random tokens, then writes {batching['written_tokens']} tokens "
            f"for each (`llama-batched-bench -npp {batching['prompt_tokens']} -ntg {batching['written_tokens']} "
            f"-npl {','.join(map(str, batching['counts']))} -t {batching['threads']} -c "
            f"{batching['window'] * max(batching['counts'])} -fa off`, taking turns with the engine).{skipped} "
            f"Load average {batching.get('load_average_start')} → {batching.get('load_average_end')}.")
    return [table(header, body), note]


def batching_ratio(batching: dict[str, Any], sequences: int) -> float | None:
    """The engine's paired decode ratio to llama-batched-bench at `sequences` (None: not measured)."""
    row = next((r for r in batching.get("rows", []) if r["sequences"] == sequences), None)
    ratio = row.get("engine_vs_llama_batched_bench") if row else None
    return ratio["median"] if ratio else None



def batch_rate_tables(batch: dict[str, Any]) -> list[str]:
    """Conversations per minute of `batch --parallel N`, memory off and a namespace each."""
    header = ["input", "--parallel", "wall s", "conversations/min", "× --parallel 1 (paired)",
              "share of records that differ from --parallel 1"]
    body = []
    for case in batch.values():
        label = "a namespace each, memory on" if case["memory"] else "--no-memory"
        body += [[label, str(row["parallel"]), cell(row, "wall_s"), cell(row, "conversations_per_min"),
                  cell(row, "vs_parallel_1", digits=2), cell(row, "share_differing", digits=2)]
                 for row in case["rows"]]
    first = next(iter(batch.values()))
    note = (f"`local-agent batch --parallel N --max-tokens {first['max_tokens']}` on {first['sessions']} "
            f"conversations of {first['turns']} turns, each run a fresh process and data dir (model load "
            f"included). Load average {first.get('load_average_start')} → {first.get('load_average_end')}.")
    return [table(header, body), note]


def batch_rate_ratio(batch: dict[str, Any], case: str, parallel: int) -> float | None:
    """Conversations per minute at `parallel` over --parallel 1, paired (None: not measured)."""
    rows = batch.get(case, {}).get("rows", [])
    row = next((r for r in rows if r["parallel"] == parallel), None)
    return row["vs_parallel_1"]["median"] if row else None


def server_tables(server: dict[str, Any]) -> list[str]:
    """The server under load per `serve --parallel`, memory off and a namespace per client."""
    header = ["memory", "serve --parallel", "errors", "latency p50 s", "latency p95 s", "aggregate tokens/s",
              "peak RSS MB"]
    body = [["a namespace per client" if case["memory"] else "off", str(row["parallel"]), str(row["errors"]),
             f"{row['latency_s']['median']:.2f}", f"{row['latency_s']['p95']:.2f}", f"{row['tokens_per_s']:.1f}",
             f"{row['peak_rss_mb']:.0f}"] for case in server.values() for row in case["rows"]]
    first = next(iter(server.values()))
    note = (f"{first['clients']} clients × {first['requests']} requests of `max_tokens` {first['max_tokens']} "
            "(scripts/bench_server.py's load test), each `serve` a fresh process and data dir. Load average "
            f"{first.get('load_average_start')} → {first.get('load_average_end')}.")
    return [table(header, body), note]


def server_row(server: dict[str, Any], case: str) -> dict[str, Any] | None:
    """The row of the server's default --parallel (the largest measured) for `case`."""
    rows = server.get(case, {}).get("rows", [])
    return max(rows, key=lambda row: row["parallel"], default=None)
