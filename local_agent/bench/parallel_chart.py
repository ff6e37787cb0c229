"""The sections about several conversations at once as a PNG chart (matplotlib, imported when
a chart is drawn): batched decoding against llama-batched-bench, `batch --parallel`
conversations per minute, and the server's aggregate tokens/s under load."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

ENGINE_COLOR, BASELINE_COLOR = "#4C72B0", "#8C8C8C"


def has_parallel_sections(results: dict[str, Any]) -> bool:
    return bool(results.get("batching") or results.get("batch") or results.get("server"))


def write_parallel_chart(results: dict[str, Any], path: Path) -> None:
    """One panel per measured section."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels: list[tuple[Callable[[Any, dict[str, Any]], None], dict[str, Any]]] = []
    if results.get("batching"):
        panels.append((_batching_panel, results["batching"]))
    if results.get("batch"):
        panels.append((_batch_panel, results["batch"]))
    if results.get("server"):
        panels.append((_server_panel, results["server"]))
    figure, axes = plt.subplots(1, max(len(panels), 1), figsize=(6.5 * max(len(panels), 1), 4.8),
                                constrained_layout=True, squeeze=False)
    for axis, (draw, section) in zip(axes[0], panels):
        draw(axis, section)
    figure.suptitle(f"local-agent: several conversations at once ({results['machine']['processor']}, "
                    f"{results['created']})", fontsize=11)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _batching_panel(axis: Any, batching: dict[str, Any]) -> None:
    """Grouped bars per count: the engine and llama-batched-bench, whiskers min to max, the
    paired ratio above."""
    rows = batching["rows"]
    axis.set_title(f"aggregate decode tokens/s, {batching['threads']} threads (higher is better)", fontsize=10)
    positions = list(range(len(rows)))
    for offset, key, label, color in ((-0.2, "engine_decode_tok_s", "local-agent engine", ENGINE_COLOR),
                                      (0.2, "llama_batched_bench_decode_tok_s", "llama-batched-bench",
                                       BASELINE_COLOR)):
        shown = [(p, row[key]) for p, row in zip(positions, rows) if key in row]
        if not shown:
            continue
        medians = [values["median"] for _, values in shown]
        errors = [[m - v["min"] for m, (_, v) in zip(medians, shown)],
                  [v["max"] - m for m, (_, v) in zip(medians, shown)]]
        bars = axis.bar([p + offset for p, _ in shown], medians, 0.4, yerr=errors, capsize=3, color=color, label=label)
        axis.bar_label(bars, fmt="%.0f", fontsize=8, label_type="center", color="white", fontweight="bold")
    for position, row in zip(positions, rows):
        if "engine_vs_llama_batched_bench" in row:
            top = max(row[k]["max"] for k in ("engine_decode_tok_s", "llama_batched_bench_decode_tok_s"))
            axis.annotate(f"×{row['engine_vs_llama_batched_bench']['median']:.2f}", (position, top),
                          textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    axis.set_xticks(positions, [f"{row['sequences']} seq" for row in rows])
    axis.margins(y=0.15)
    axis.legend(fontsize=8)


def _batch_panel(axis: Any, batch: dict[str, Any]) -> None:
    """Conversations per minute per --parallel, one bar group per input."""
    axis.set_title("batch --parallel N: conversations per minute (higher is better)", fontsize=10)
    cases = list(batch.values())
    width = 0.8 / max(len(cases), 1)
    counts = [row["parallel"] for row in cases[0]["rows"]]
    for number, case in enumerate(cases):
        values = [row["conversations_per_min"] for row in case["rows"]]
        medians = [v["median"] for v in values]
        errors = [[m - v["min"] for m, v in zip(medians, values)], [v["max"] - m for m, v in zip(medians, values)]]
        offset = (number - (len(cases) - 1) / 2) * width
        label = "a namespace each, memory on" if case["memory"] else "--no-memory"
        bars = axis.bar([p + offset for p in range(len(counts))], medians, width, yerr=errors, capsize=3, label=label)
        axis.bar_label(bars, fmt="%.1f", fontsize=8, label_type="center", color="white", fontweight="bold")
    axis.set_xticks(list(range(len(counts))), [f"--parallel {count}" for count in counts])
    axis.legend(fontsize=8)


def _server_panel(axis: Any, server: dict[str, Any]) -> None:
    """Aggregate tokens/s per serve --parallel, memory off and on, p95 latency above each bar."""
    axis.set_title("server, 8 clients x 25 requests: aggregate tokens/s", fontsize=10)
    cases = list(server.values())
    counts = [row["parallel"] for row in cases[0]["rows"]]
    width = 0.8 / max(len(cases), 1)
    for number, case in enumerate(cases):
        offset = (number - (len(cases) - 1) / 2) * width
        values = [row["tokens_per_s"] for row in case["rows"]]
        label = "memory on, a namespace per client" if case["memory"] else "memory off"
        bars = axis.bar([p + offset for p in range(len(counts))], values, width, label=label)
        axis.bar_label(bars, labels=[f"{v:.0f}\np95 {row['latency_s']['p95']:.1f} s"
                                     for v, row in zip(values, case["rows"])], fontsize=7, padding=2)
    axis.set_xticks(list(range(len(counts))), [f"--parallel {count}" for count in counts])
    axis.margins(y=0.2)
    axis.legend(fontsize=8)
