"""The report as markdown tables, and the results as a JSON file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .cells import cell as _cell
from .cells import num as _num
from .cells import table as _table
from .parallel_report import batch_rate_tables, batching_tables, server_tables


def _backend_table(rows: list[dict[str, Any]]) -> str:
    header = ["backend", "load s", "prompt tok/s", "decode tok/s", "TTFT ms", "decode vs raw (paired)",
              "peak RSS MB", "peak GPU MB"]
    body = [[row["name"] + (" (baseline)" if row["baseline"] else ""), _num(row["load_s"], 2),
             _cell(row, "prompt_tok_s"), _cell(row, "decode_tok_s"), _cell(row, "ttft_s", 1000, 0),
             _cell(row, "decode_vs_raw", digits=3), _num(row["peak_rss_mb"], 0), _num(row["peak_gpu_mb"], 0)]
            for row in rows]
    return _table(header, body)


def _speed_tables(speed: dict[str, Any]) -> list[str]:
    """llama-bench, raw llama-cpp-python and the backend on one build; then thread waiting."""
    bench = speed["llama_bench"]
    ceiling = [[(f"llama-bench ({'flash attention' if t['flash_attn'] else 'no flash attention'}, "
                 f"batch {t['n_batch']}/{t['n_ubatch']})"), t["test"], f"{_num(t['tok_s'])} ± {_num(t['stddev'])}"]
               for t in bench.get("tests", [])]
    if "skipped" in bench:
        ceiling.append(["llama-bench", "–", f"not measured: {bench['skipped']}"])
    prompt, idle = speed["prompt"], speed["idle"]
    rows = [
        *ceiling,
        ["raw llama-cpp-python (its defaults)", f"prompt {prompt['tokens']}", _cell(prompt, "raw_tok_s")],
        ["local-agent backend (time to first token)", f"prompt {prompt['tokens']}", _cell(prompt, "ours_tok_s")],
        ["llama-bench pp512, no flash attention, taking turns with the two above", f"prompt {prompt['tokens']}",
         _cell(prompt, "llama_bench_tok_s")],
        ["raw llama-cpp-python (its defaults)", f"decode {speed['tokens']}", _cell(idle, "raw_tok_s")],
        ["local-agent backend", f"decode {speed['tokens']}", _cell(idle, "ours_tok_s")],
    ]
    first = _table([f"{speed['build']} build, {speed['threads']} threads", "test", "tokens/s"], rows)
    waits = [[case, _cell(speed[case], "raw_tok_s") if "raw_tok_s" in speed[case] else "not run",
              _cell(speed[case], "passive_tok_s"),
              _cell(speed[case], "ours_tok_s"), _cell(speed[case], "ours_vs_raw", digits=3),
              _cell(speed[case], "ours_vs_passive", digits=3)]
             for case in ("idle", "competing")]
    second = _table(["decode tok/s", "raw (no OpenMP variables)", "backend, PASSIVE (before)", "backend (now)",
                     "now / raw", "now / PASSIVE"], waits)
    openmp = bench.get("openmp_env")
    note = (f"Competing: one CPU-bound process runs during each run (raw llama-cpp-python is not run "
            f"then: its default spin stalls for minutes). llama-bench ran with {openmp or 'no OpenMP variables'}. "
            f"Load average {speed.get('load_average_start')} → {speed.get('load_average_end')}.")
    return [first, second, note]


def _cold_table(cold: dict[str, Any]) -> str:
    body = [[f'`ask "hi"` {"with memory" if entry["memory"] else "--no-memory"}',
             _cell(entry, "to_answer_s", 1, 2), _cell(entry, "exit_s", 1, 2)]
            for entry in cold.values()]
    return _table(["cold start (fresh data dir)", "to first answer text s", "to exit s"], body)


def _saved_state_table(saved: dict[str, Any]) -> str:
    body = [['`ask --no-memory "hi"`, saved system prompt state loaded', _cell(saved, "exit_s_saved", 1, 2)],
            ['`ask --no-memory "hi"`, system prompt evaluated (and saved)', _cell(saved, "exit_s_evaluated", 1, 2)],
            ["difference within each pair", _cell(saved, "saved_minus_evaluated_s", 1, 2)]]
    return _table(["repeated ask, one data dir", "to exit s"], body)


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
        *_dialogue_rows(turn.get("dialogue")),
    ]


def _dialogue_rows(dialogue: dict[str, Any] | None) -> list[list[str]]:
    if not dialogue:
        return []
    rows = [["TTFT in an ongoing chat with memory, turns 2-6", _cell(dialogue["no_read_ahead"], "ttft_ms", 1, 0)],
            ["the same, dialogue read ahead while the user types", _cell(dialogue["read_ahead"], "ttft_ms", 1, 0)]]
    if "model_ttft_ms" in dialogue["no_read_ahead"]:
        rows += [["model's first token (before an echo is held), turns 2-6",
                  _cell(dialogue["no_read_ahead"], "model_ttft_ms", 1, 0)],
                 ["the same, dialogue read ahead", _cell(dialogue["read_ahead"], "model_ttft_ms", 1, 0)]]
    if "decode_tok_s" in dialogue["no_read_ahead"]:
        rows += [["decode tokens/s in those turns", _cell(dialogue["no_read_ahead"], "decode_tok_s", 1, 1)],
                 ["the same, dialogue read ahead", _cell(dialogue["read_ahead"], "decode_tok_s", 1, 1)]]
    return rows


def stores_table(stores: list[dict[str, Any]]) -> str:
    """Large stores (bench/stores.py): each opened in a fresh process; searches p50 in ms."""
    rows = [[f"{row['memories']:,}", f"{row['open_s']:.3f}", f"{row['dense']['p50_ms']:.2f}",
             f"{row['recall_at_10_agreement']:.3f}", f"{row['hybrid_recall']['p50_ms']:.2f}",
             f"{row['dated_recall']['p50_ms']:.2f}", f"{row['peak_rss_mib']:.0f}", f"{row['disk_mib']:.1f}"]
            for row in stores]
    return _table(["memories", "open s", "dense p50 ms", "agreement@10", "recall p50 ms", "dated recall p50 ms",
                   "peak RSS MiB", "disk MiB"], rows)


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
    if results.get("speed"):
        parts += _speed_tables(results["speed"])
    if results.get("cold_start"):
        parts.append(_cold_table(results["cold_start"]))
    if results.get("saved_state"):
        parts.append(_saved_state_table(results["saved_state"]))
    memory_rows = _memory_rows(results.get("memory", {}))
    if memory_rows:
        parts.append(_table(["memory pipeline", "ms"], memory_rows))
    if results.get("batching"):
        parts += batching_tables(results["batching"])
    if results.get("batch"):
        parts += batch_rate_tables(results["batch"])
    if results.get("server"):
        parts += server_tables(results["server"])
    if results.get("stores"):
        parts.append(stores_table(results["stores"]))
    parts.append(_targets_table(results.get("targets", [])))
    parts += _notes(results)
    return "\n\n".join(parts) + "\n"


def _heading(results: dict[str, Any]) -> list[str]:
    machine, plan = results["machine"], results["settings"]
    gpu = f", {machine['cuda_device_name']}" if machine.get("cuda_device_name") else ""
    weights = " (random weights)" if plan["random_weights"] else ""
    load = f"load average {machine.get('load_average_at_start')} → {machine.get('load_average_at_end')}"
    return [f"## local-agent benchmark ({'quick' if plan['quick'] else 'full'}, {results['created']})",
            (f"{machine['processor']}, {machine['cpu_cores']} cores, {machine['ram_gb']} GB RAM{gpu}; {load}. "
             f"Model {plan['model']}{weights}, {plan['threads']} threads, {plan['tokens']} tokens per run, "
             f"greedy (repeat penalty {plan.get('repeat_penalty', 1.0):g}), {plan['reps']} runs after a warm-up; "
             "cells are median (min–max).")]


def _notes(results: dict[str, Any]) -> list[str]:
    notes = [f"- skipped {name}: {reason}" for name, reason in results.get("backends_skipped", {}).items()]
    notes += [f"- **failed** {name}: {error}" for name, error in results.get("errors", {}).items()]
    if "wall_s" in results:
        notes.append(f"- wall time {results['wall_s']:.0f} s")
    return ["\n".join(notes)] if notes else []


def write_json(results: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")
