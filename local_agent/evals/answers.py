"""End-to-end answer accuracy (scripts/eval_answers.py): each dated LoCoMo history is imported
into a fresh data dir (`import-chats`' own code, digests off), then each sampled question is
asked in a new session through the agent chat uses, with today the day after the history.

Three ways, scored by gold keywords (answers_data.is_correct): with memory; memory off (the
floor); and memory off with the evidence turns pasted above the question (the model's ceiling).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import random
import sys
import tempfile
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

from .answers_data import AnswerQuestion, History, build_answer_set, is_correct

MODES = ("memory", "memory_off", "pasted_evidence")


def _import(history: History, settings: Any) -> None:
    from ..app import open_store
    from ..chat_history import import_history
    from ..chat_import import parse_chats

    chats = parse_chats(history.jsonl(), name=history.sample_id)
    store = open_store(settings)
    try:
        import_history(store, chats.messages, summarizer=None)
    finally:
        store.close()


def _ask(runtime: Any, question: str, number: int) -> str:
    agent = runtime.agent
    agent.use_session(f"eval-{number}")
    agent.set_incognito(True)  # asking leaves nothing behind: every question meets the same memory
    return str(agent.respond(question).answer)


def _fixed(moment: datetime) -> datetime:
    return moment


def _pasted(history: History, question: AnswerQuestion) -> str:
    lines = "\n".join(history.evidence(list(question.evidence)))
    return f"From our past conversations:\n{lines}\n\nQuestion: {question.question}"


def evaluate(path: Path, *, limit: int | None, seed: int, max_tokens: int) -> dict[str, Any]:
    from ..app import build_runtime
    from ..config import load_settings

    answer_set = build_answer_set(path)
    questions = list(answer_set.questions)
    if limit is not None and limit < len(questions):
        questions = random.Random(seed).sample(questions, limit)
    by_history = {h.sample_id: h for h in answer_set.histories}
    scores: dict[str, dict[str, list[bool]]] = {mode: defaultdict(list) for mode in MODES}
    base = load_settings({"max_tokens": max_tokens})
    with tempfile.TemporaryDirectory(prefix="answers-") as root:
        off = dataclasses.replace(base, data_dir=Path(root) / "off")
        with build_runtime(off, memory=False) as runtime:
            for number, question in enumerate(questions):
                history = by_history[question.sample_id]
                runtime.agent.clock = functools.partial(_fixed, history.today)
                for mode, text in (("memory_off", question.question), ("pasted_evidence", _pasted(history, question))):
                    scores[mode][str(question.category)].append(is_correct(_ask(runtime, text, number),
                                                                           question.keywords))
        for sample_id in sorted({q.sample_id for q in questions}):
            history = by_history[sample_id]
            settings = dataclasses.replace(base, data_dir=Path(root) / sample_id,
                                           today=history.today.strftime("%Y-%m-%dT%H:%M"))
            _import(history, settings)
            with build_runtime(settings) as runtime:
                for number, question in enumerate(questions):
                    if question.sample_id == sample_id:
                        answer = _ask(runtime, question.question, number)
                        scores["memory"][str(question.category)].append(is_correct(answer, question.keywords))
    return _report(path, questions, scores, limit, seed)


def _report(path: Path, questions: list[AnswerQuestion], scores: dict[str, dict[str, list[bool]]],
            limit: int | None, seed: int) -> dict[str, Any]:
    def share(values: list[bool]) -> float:
        return round(sum(values) / len(values), 4) if values else 0.0

    report: dict[str, Any] = {"dataset": str(path), "questions": len(questions), "subset_seed": seed if limit else None}
    for mode in MODES:
        every = [value for values in scores[mode].values() for value in values]
        per_category = {f"category {c}": share(v) for c, v in sorted(scores[mode].items())}
        report[mode] = {"accuracy": share(every), **per_category}
    ceiling = report["pasted_evidence"]["accuracy"]
    report["memory_over_ceiling"] = round(report["memory"]["accuracy"] / ceiling, 4) if ceiling else None
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--limit", type=int, default=None, help="a seeded subset of the sample (it is slow on a CPU)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--max-tokens", type=int, default=48)
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args(argv)
    report = evaluate(args.dataset, limit=args.limit, seed=args.seed, max_tokens=args.max_tokens)
    text = json.dumps(report, indent=2)
    if args.output:
        args.output.write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(text + "\n")
    return 0
