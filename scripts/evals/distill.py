"""Measure the product's distiller on a labelled JSONL of user messages.

Each line: {"text": ..., "save": bool, "tail"?: str, "source"?: str}. A message counts as saved
when the distiller accepts at least one candidate. Reported, as fractions 0..1:
- precision and recall of that save decision;
- tail_rate: of the positives that were saved and carry a `tail`, the share where a saved fact
  mentions every content word of the tail (stemmed, case-insensitive);
- valid_json_rate: of the messages that reached the model, the share whose answer was valid
  JSON for the distill schema;
- unsaid_rate: of the saved facts, the share with a word the message does not have (stemmed;
  function words, "user" and the rules' own phrasing "name", "named", "called", "prefers",
  "years", "old" aside; attitude words such as "loves" count): a strict reading of "a saved
  fact states only what the message says", which also counts paraphrases ("enjoys" for "like");
- per-source counts and rates, and latency p50/p95 over all messages and over those that
  reached the model (after one warm-up call, which is not counted).
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import Stemmer
from tqdm import tqdm

from local_agent.errors import InputError
from local_agent.memory.distill import Distiller
from local_agent.memory.distill.validation import mentions
from local_agent.types import DistillResult

from .settings import dev_settings

WARMUP_MESSAGE = "I'm a teacher and I live near the sea."


@dataclass
class Example:
    text: str
    save: bool
    tail: str | None = None
    source: str = "unknown"
    split: str = ""  # "dev" or "held-out" in the hand-written sets, empty otherwise


@dataclass
class Outcome:
    example: Example
    result: DistillResult

    @property
    def saved(self) -> bool:
        return bool(self.result.candidates)

    @property
    def tail_hit(self) -> bool | None:
        """None when the tail does not apply (a negative, not saved, or no tail given)."""
        if not (self.example.save and self.saved and self.example.tail):
            return None
        return any(mentions(c.text, self.example.tail) for c in self.result.candidates)


_FUNCTION = frozenset("""a an the and or but of to in on at for with from by as is are was were be been it its this
    that these those so very really just too also then than there here my your our their his her i me we you they them
    he she one some any all more most much many lot lots user users is has have had does do did not no will would can
    could should which who whom what when where why how if because about into over after before while during since
    until up down out off again once own same such only s t themselves themself""".split())
_HOUSE = frozenset("name named called prefers prefer years old".split())
_WORDS = re.compile(r"[a-z0-9']+")
_SAME = {"can't": "cannot", "cant": "cannot", "won't": "will not", "don't": "do not", "doesn't": "does not"}


_STEMMER = Stemmer.Stemmer("english")


def _stems(words: list[str]) -> set[str]:
    words = [_SAME.get(w, w) for w in words]
    return set(_STEMMER.stemWords(words))


def _words(text: str) -> list[str]:
    words = [w.strip("'") for w in _WORDS.findall(text.lower().replace("\u2019", "'"))]
    return [w[:-2] if w.endswith("'s") else w for w in words]


def unsaid_words(fact: str, message: str) -> set[str]:
    """The stems of the fact's words (see unsaid_rate) that the message does not have."""
    return _stems([w for w in _words(fact) if w and w not in _FUNCTION and w not in _HOUSE]) - _stems(_words(message))


def load_examples(path: Path, limit: int | None = None) -> list[Example]:
    examples = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                examples.append(Example(str(row["text"]), bool(row["save"]), row.get("tail"),
                                        str(row.get("source") or "unknown"), str(row.get("split") or "")))
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise InputError(f"{path}:{number}: not a distill example ({exc})") from None
            if limit is not None and len(examples) >= limit:
                break
    return examples


def run(distiller: Distiller, examples: Sequence[Example], *, progress: bool = True) -> list[Outcome]:
    distiller.distill(WARMUP_MESSAGE)
    return [Outcome(example, distiller.distill(example.text))
            for example in tqdm(examples, desc="distill", unit="msg", disable=not progress, file=sys.stderr)]


def _fraction(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator else None


def _percentiles_ms(seconds: list[float]) -> dict[str, float | None]:
    if not seconds:
        return {"p50_ms": None, "p95_ms": None, "n": 0}
    values = np.asarray(seconds) * 1000.0
    return {"p50_ms": round(float(np.percentile(values, 50)), 1),
            "p95_ms": round(float(np.percentile(values, 95)), 1), "n": len(seconds)}


def decision_metrics(outcomes: Iterable[Outcome]) -> dict[str, Any]:
    outcomes = list(outcomes)
    tp = sum(o.saved and o.example.save for o in outcomes)
    fp = sum(o.saved and not o.example.save for o in outcomes)
    fn = sum(not o.saved and o.example.save for o in outcomes)
    tails = [o.tail_hit for o in outcomes if o.tail_hit is not None]
    facts = [(o.example.text, c.text) for o in outcomes for c in o.result.candidates]
    asked = [o for o in outcomes if o.result.model_called]
    return {
        "n": len(outcomes),
        "positives": sum(o.example.save for o in outcomes),
        "saved": tp + fp,
        "tp": tp, "fp": fp, "fn": fn,
        "precision": _fraction(tp, tp + fp),
        "recall": _fraction(tp, tp + fn),
        "tail_rate": _fraction(sum(tails), len(tails)),
        "unsaid_rate": _fraction(sum(bool(unsaid_words(fact, text)) for text, fact in facts), len(facts)),
        "model_calls": len(asked),
        "valid_json_rate": _fraction(sum(bool(o.result.valid_json) for o in asked), len(asked)),
        "rule_saves": sum(any(c.route == "rule" for c in o.result.candidates) for o in outcomes),
        "model_saves": sum(any(c.route == "model" for c in o.result.candidates) for o in outcomes),
    }


def summarize(outcomes: Sequence[Outcome], config: dict[str, Any]) -> dict[str, Any]:
    by_source: dict[str, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        by_source[outcome.example.source].append(outcome)
    report = decision_metrics(outcomes)
    report["latency"] = {
        "all": _percentiles_ms([o.result.seconds for o in outcomes]),
        "model": _percentiles_ms([o.result.seconds for o in outcomes if o.result.model_called]),
    }
    report["by_source"] = {source: decision_metrics(group) for source, group in sorted(by_source.items())}
    splits = sorted({o.example.split for o in outcomes if o.example.split})
    if splits:
        report["by_split"] = {split: decision_metrics([o for o in outcomes if o.example.split == split])
                              for split in splits}
    report["config"] = config
    return report


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def print_table(report: dict[str, Any], out: TextIO) -> None:
    columns = ["n", "positives", "saved", "precision", "recall", "tail_rate", "unsaid_rate", "model_calls",
               "valid_json_rate"]
    rows = [("ALL", report), *report["by_source"].items()]
    width = max(len(name) for name, _ in rows)
    print(f"{'source':<{width}}  " + "  ".join(f"{c:>15}" for c in columns), file=out)
    for name, metrics in rows:
        print(f"{name:<{width}}  " + "  ".join(f"{_cell(metrics[c]):>15}" for c in columns), file=out)
    for scope, stats in report["latency"].items():
        print(f"latency ({scope}): p50 {_cell(stats['p50_ms'])} ms, p95 {_cell(stats['p95_ms'])} ms "
              f"over {stats['n']} messages", file=out)


def product_distiller(model: str | None = None) -> tuple[Distiller, dict[str, Any]]:
    """The distiller the product builds, with the product's default settings (its own backend
    instance, the memory store's embedder). Returns it and a description of the run."""
    from local_agent.backends import create_backend
    from local_agent.memory.index.embedder import Embedder

    settings = dev_settings({"model": model})
    backend, choice = create_backend(settings)
    distiller = Distiller(backend, Embedder())
    config = {**backend.describe(), "backend_choice": getattr(choice, "backend", None),
              "gate_threshold": distiller.gate.threshold, "max_tokens": distiller.settings.max_tokens}
    return distiller, config


def outcome_rows(outcomes: Sequence[Outcome]) -> str:
    """Every message with its label and what was saved (or rejected), one JSON line each."""
    return "".join(json.dumps({
        "text": o.example.text, "save": o.example.save, "saved": o.saved, "source": o.example.source,
        "tail": o.example.tail, "facts": [c.text for c in o.result.candidates],
        "rejected": [list(r) for r in o.result.rejected]}, ensure_ascii=False) + "\n" for o in outcomes)


def evaluate_file(path: Path, *, limit: int | None = None, model: str | None = None,
                  output: Path | None = None, progress: bool = True,
                  distiller: Distiller | None = None, rows: Path | None = None) -> dict[str, Any]:
    """Run the product's distiller (or the one given) over a JSONL file; print the table to
    stderr, write the JSON report to `output` (and each message's outcome to `rows`) when
    given, and return it."""
    examples = load_examples(path, limit)
    if distiller is None:
        distiller, config = product_distiller(model)
    else:
        described = distiller.backend.describe() if distiller.backend else {}
        config = {**described, "gate_threshold": distiller.gate.threshold}
    try:
        outcomes = run(distiller, examples, progress=progress)
    finally:
        if distiller.backend is not None:
            distiller.backend.close()
    report = summarize(outcomes, {**config, "data": str(path), "limit": limit})
    if rows is not None:
        rows.write_text(outcome_rows(outcomes), encoding="utf-8")
    print_table(report, sys.stderr)
    if output is not None:
        output.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return report
