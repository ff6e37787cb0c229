"""The report as a PNG chart (matplotlib, imported when a chart is drawn)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .targets import RECALL_P50_GOAL_MS

_DEVICE_COLORS = {"cpu": "#4C72B0", "cuda": "#55A868"}
_BASELINE_COLOR = "#8C8C8C"


def write_chart(results: dict[str, Any], path: Path) -> None:
    """A PNG comparing the backends (CPU and GPU bars in their own colours, the raw
    llama-cpp-python baseline in grey, whiskers from min to max) and recall latency by
    store size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = results.get("backends", [])
    figure, axes = plt.subplots(2, 3, figsize=(15, 8.5), constrained_layout=True)
    panels = [("decode_tok_s", 1, "decode tokens/s (higher is better)"),
              ("prompt_tok_s", 1, "prompt tokens/s (higher is better)"),
              ("ttft_s", 1000, "time to first token, ms (lower is better)")]
    for axis, (key, factor, title) in zip(axes[0], panels):
        _bar_panel(axis, rows, key, factor, title)
    _ratio_notes(axes[0][0], rows)
    _plain_bars(axes[1][0], rows, "load_s", "model load, s (lower is better)")
    _memory_panel(axes[1][1], rows)
    _recall_panel(axes[1][2], results.get("memory", {}).get("recall", []))
    plan = results["settings"]
    weights = " (random weights)" if plan["random_weights"] else ""
    figure.suptitle(f"local-agent benchmark: {plan['model']}{weights}, {results['machine']['processor']}, "
                    f"{plan['threads']} threads, {plan['tokens']} tokens/run "
                    f"({'quick' if plan['quick'] else 'full'}, {results['created']})", fontsize=11)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


def _colors(rows: list[dict[str, Any]]) -> list[str]:
    return [_BASELINE_COLOR if row["baseline"] else _DEVICE_COLORS.get(row["device"], "#C44E52") for row in rows]


def _labels(rows: list[dict[str, Any]]) -> list[str]:
    return [row["name"].replace("-4bit", "\n4-bit").replace("/", "\n") for row in rows]


def _tick_size(rows: list[dict[str, Any]]) -> float:
    return 8 if len(rows) <= 5 else 6.5


def _bar_panel(axis: Any, rows: list[dict[str, Any]], key: str, factor: float, title: str) -> None:
    axis.set_title(title, fontsize=10)
    rows = [row for row in rows if isinstance(row.get(key), dict)]
    if not rows:
        return _empty(axis)
    medians = [row[key]["median"] * factor for row in rows]
    low = [m - row[key]["min"] * factor for m, row in zip(medians, rows)]
    high = [row[key]["max"] * factor - m for m, row in zip(medians, rows)]
    bars = axis.bar(_labels(rows), medians, color=_colors(rows), yerr=[low, high], capsize=4)
    axis.bar_label(bars, fmt="%.0f" if max(medians) >= 100 else "%.1f", fontsize=8, label_type="center",
                   color="white", fontweight="bold")
    axis.tick_params(axis="x", labelsize=_tick_size(rows))
    _legend(axis, rows)


def _ratio_notes(axis: Any, rows: list[dict[str, Any]]) -> None:
    """Above each bar compared with raw llama-cpp-python: the paired-run ratio (the bars come
    from separate processes, which a busy machine slows unevenly)."""
    rows = [row for row in rows if isinstance(row.get("decode_tok_s"), dict)]
    for position, row in enumerate(rows):
        if "decode_vs_raw" in row:
            axis.annotate(f"×{row['decode_vs_raw']['median']:.2f} of raw\n(paired runs)",
                          (position, row["decode_tok_s"]["max"]), textcoords="offset points", xytext=(0, 8),
                          ha="center", fontsize=8)
    axis.margins(y=0.15)


def _plain_bars(axis: Any, rows: list[dict[str, Any]], key: str, title: str, fmt: str = "%.2f") -> None:
    axis.set_title(title, fontsize=10)
    if not rows:
        return _empty(axis)
    bars = axis.bar(_labels(rows), [row[key] for row in rows], color=_colors(rows))
    axis.bar_label(bars, fmt=fmt, fontsize=8, padding=2)
    axis.tick_params(axis="x", labelsize=_tick_size(rows))


def _memory_panel(axis: Any, rows: list[dict[str, Any]]) -> None:
    gpu = [row.get("peak_gpu_mb") for row in rows]
    if not any(value is not None for value in gpu):
        return _plain_bars(axis, rows, "peak_rss_mb", "peak RSS, MB", fmt="%.0f")
    axis.set_title("peak memory, MB: RSS (solid), GPU (hatched)", fontsize=10)
    positions = list(range(len(rows)))
    bars = axis.bar([p - 0.2 for p in positions], [row["peak_rss_mb"] for row in rows], 0.4, color=_colors(rows))
    axis.bar_label(bars, fmt="%.0f", fontsize=8, padding=2)
    shown = [(p, value) for p, value in zip(positions, gpu) if value is not None]
    hatched = axis.bar([p + 0.2 for p, _ in shown], [value for _, value in shown], 0.4, color="white",
                       edgecolor=_DEVICE_COLORS["cuda"], hatch="//")
    axis.bar_label(hatched, fmt="%.0f", fontsize=8, padding=2)
    axis.set_xticks(positions, _labels(rows), fontsize=_tick_size(rows))


def _recall_panel(axis: Any, scales: list[dict[str, Any]]) -> None:
    axis.set_title(f"recall latency (search only), ms; goal p50 ≤ {RECALL_P50_GOAL_MS:g} ms", fontsize=10)
    if not scales:
        return _empty(axis)
    sizes = [scale["memories"] for scale in scales]
    medians = [scale["recall_ms"]["median"] for scale in scales]
    axis.plot(sizes, medians, marker="o", label="median")
    axis.fill_between(sizes, [s["recall_ms"]["min"] for s in scales], [s["recall_ms"]["max"] for s in scales],
                      alpha=0.2, label="min–max")
    axis.axhline(RECALL_P50_GOAL_MS, color="#C44E52", linestyle="--", linewidth=1, label="goal")
    axis.set_xscale("log")
    axis.set_ylim(0, max(RECALL_P50_GOAL_MS, *(s["recall_ms"]["max"] for s in scales)) * 1.15)
    axis.set_xlabel("memories in the store")
    for size, median in zip(sizes, medians):
        axis.annotate(f"{median:.1f}", (size, median), textcoords="offset points", xytext=(0, 6), fontsize=8,
                      ha="center")
    axis.legend(fontsize=8)


def _legend(axis: Any, rows: list[dict[str, Any]]) -> None:
    from matplotlib.patches import Patch

    shown = {("raw llama-cpp-python" if row["baseline"] else row["device"].upper()): color
             for row, color in zip(rows, _colors(rows))}
    axis.legend(handles=[Patch(color=color, label=label) for label, color in shown.items()], fontsize=8)


def _empty(axis: Any) -> None:
    axis.text(0.5, 0.5, "not measured", ha="center", va="center", transform=axis.transAxes, color="#888888")
    axis.set_xticks([])
    axis.set_yticks([])
