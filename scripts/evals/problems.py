"""Word problems for the ranker of local_agent/reading/problems: ASDiv's one-operator problems
(ASDiv-A, five folds; Miao et al., ACL 2020, CC BY-NC 4.0, read from ../shared/data, never
copied here), the project's contrast rows (evals/problem_contrasts.jsonl, and
evals/problem_contrasts_generated.jsonl from scripts/make_problem_contrasts.py: one problem,
what is asked swapped) and the everyday arithmetic set (evals/tool_everyday/arithmetic.jsonl).

A problem is right when the value given equals the gold answer (to the gold's own decimals, or
within 0.005), confidently wrong when another value is given, unsure when no value is given;
a row whose gold is `unsure` is right only when unsure."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from local_agent.reading.problems import Solved, Unsure

HERE = Path(__file__).parent
CONTRASTS = HERE / "problem_contrasts.jsonl"
GENERATED = HERE / "problem_contrasts_generated.jsonl"
EVERYDAY = HERE / "tool_everyday" / "arithmetic.jsonl"
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class Problem:
    id: str
    source: str  # asdiv, contrast, everyday
    fold: int  # ASDiv's fold; contrast and everyday rows get index % 4 (the everyday held-out split: -1)
    text: str
    gold: float | None  # None: the right outcome is unsure
    decimals: int


def _gold(answer: str) -> tuple[float, int] | None:
    match = _NUMBER.search(answer)
    if match is None:
        return None
    number = match.group(0)
    return float(number), len(number.split(".")[1]) if "." in number else 0


def asdiv(path: Path) -> list[Problem]:
    problems = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        gold = _gold(row["answer"])
        if row.get("asdiv_a_fold") is None or gold is None:
            continue
        text = f"{row['body'].strip()} {row['question'].strip()}"
        problems.append(Problem(row["id"], "asdiv", int(row["asdiv_a_fold"]), text, gold[0], gold[1]))
    return problems


def contrasts() -> list[Problem]:
    """The hand-written contrast rows and the generated ones (scripts/make_problem_contrasts.py)."""
    lines = [line for path in (CONTRASTS, GENERATED) for line in path.read_text(encoding="utf-8").splitlines()]
    rows = [json.loads(line) for line in lines]
    return [Problem(f"contrast-{i:03d}", "contrast", i % 4, row["text"], float(row["answer"]), 0)
            for i, row in enumerate(rows)]


def everyday(split: str) -> list[Problem]:
    """The everyday arithmetic rows of one split whose gold is a number or `unsure` (the clock
    times and durations are for the time tools, not for this solver)."""
    problems = []
    for i, line in enumerate(EVERYDAY.read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        if row["split"] != split:
            continue
        gold = None if row["answer"] == "unsure" else _gold(row["answer"])
        if row["answer"] != "unsure" and (gold is None or not re.fullmatch(r"-?[\d.]+", row["answer"])):
            continue
        fold = i % 4 if split == "dev" else -1
        problems.append(Problem(row["id"], "everyday", fold, row["message"], gold[0] if gold else None,
                                min(gold[1], 2) if gold else 0))
    return problems


def matches(value: float, problem: Problem) -> bool:
    if problem.gold is None:
        return False
    return abs(value - problem.gold) <= 0.005 or round(value, problem.decimals) == problem.gold


def outcome(result: Solved | Unsure, problem: Problem) -> str:
    if isinstance(result, Unsure):
        return "right" if problem.gold is None else "unsure"
    return "right" if matches(result.value, problem) else "wrong"


def rates(outcomes: Iterable[str]) -> dict[str, Any]:
    values = list(outcomes)
    total = len(values)
    return {"rows": total, **{name: round(values.count(name) / total, 4) if total else None
                              for name in ("right", "unsure", "wrong")}}


def report(problems: list[Problem], solver: Callable[[str], Solved | Unsure]) -> dict[str, Any]:
    return rates(outcome(solver(problem.text), problem) for problem in problems)
