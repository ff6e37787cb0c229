"""End-to-end answer accuracy (scripts/eval_answers.py): each dated LoCoMo history is imported
into a fresh data dir (`import-chats`' own code, digests off), then each sampled question is
asked in a new session through the agent chat uses, with today the day after the history.

Three ways, scored by gold keywords (answers_data.is_correct): with memory; memory off (the
floor); and memory off with the evidence turns pasted above the question (the model's ceiling).
With memory, it also reports how often the gold keywords were anywhere in the recalled memories
the prompt showed (`gold_in_memories`), and the accuracy when they were and when not: what recall
gave the model, apart from what it made of it.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import random
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from local_agent.grounding.support import unsupported

from .answers_data import AnswerQuestion, History, build_answer_set, is_correct
from .live_people import sounds_unsure

MODES = ("memory", "memory_off", "pasted_evidence")


def _import(history: History, settings: Any) -> None:
    from local_agent.app import open_store
    from local_agent.conversations.chat_history import import_history
    from local_agent.conversations.chat_import import parse_chats

    chats = parse_chats(history.jsonl(), name=history.sample_id)
    store = open_store(settings)
    try:
        import_history(store, chats.messages, summarizer=None)
    finally:
        store.close()


def _ask(runtime: Any, question: str, session: str) -> tuple[str, list[str], str, float]:
    """`question` alone in a session of its own (another mode's answer to the same question
    in the dialogue would be copied): the answer, the memories the prompt showed, how the
    reply was made (TurnResult.reply_route) and the seconds the grounding check and its retry took."""
    agent = runtime.agent
    agent.use_session(session)
    agent.set_incognito(True)  # asking leaves nothing behind: every question meets the same memory
    result = agent.respond(question)
    memories = list(result.prompt.memories_used) if result.prompt else []
    added = (result.timings.grounding_check_s or 0.0) + (result.timings.grounding_retry_s or 0.0)
    return str(result.answer), memories, result.reply_route or "model", added


def _fixed(moment: datetime) -> datetime:
    return moment


def _pasted(history: History, question: AnswerQuestion) -> str:
    lines = "\n".join(history.evidence(list(question.evidence)))
    return f"From our past conversations:\n{lines}\n\nQuestion: {question.question}"


class _Log:
    """Scores per mode and category, each answer as a JSON line (`--answers`), progress on stderr."""

    def __init__(self, answers: IO[str] | None, total: int) -> None:
        self.scores: dict[str, dict[str, list[bool]]] = {mode: defaultdict(list) for mode in MODES}
        self.wrong: dict[str, list[bool]] = defaultdict(list)  # confidently wrong: not right, not unsure
        self.gold_in_memories: list[tuple[bool, bool]] = []  # (shown, answered right), with memory
        self.grounding: list[tuple[str, bool, float]] = []  # (route, unsupported, seconds), with memory
        self.answers, self.total, self.done, self.start = answers, total, 0, time.monotonic()

    def add(self, mode: str, number: int, question: AnswerQuestion, asked: tuple[str, list[str], str, float]) -> None:
        answer, memories, route, added = asked
        correct = is_correct(answer, question.keywords)
        self.scores[mode][str(question.category)].append(correct)
        wrong = not correct and not sounds_unsure(answer)
        self.wrong[mode].append(wrong)
        row: dict[str, Any] = {"mode": mode, "number": number, "category": question.category,
                               "question": question.question, "gold": question.answer, "answer": answer,
                               "correct": correct, "confidently_wrong": wrong}
        if mode == "memory":
            found = is_correct("\n".join(memories), question.keywords)
            row["gold_in_memories"] = found
            row["memories"] = memories
            row["route"], row["grounding_s"] = route, round(added, 4)
            row["unsupported"] = unsupported(answer, [*memories, question.question]).describe()
            self.gold_in_memories.append((found, correct))
            self.grounding.append((route, bool(row["unsupported"]), added))
        if self.answers:
            self.answers.write(json.dumps(row, ensure_ascii=False) + "\n")
            self.answers.flush()
        self.done += 1
        if self.done % 10 == 0 or self.done == self.total:
            right = {m: sum(sum(v) for v in c.values()) for m, c in self.scores.items()}
            sys.stderr.write(f"{self.done}/{self.total} answers, {time.monotonic() - self.start:.0f} s, "
                             f"correct so far {right}\n")
            sys.stderr.flush()


def _without_memory(log: _Log, questions: list[AnswerQuestion], histories: dict[str, History],
                    settings: Any, modes: tuple[str, ...]) -> None:
    from local_agent.app import build_runtime

    with build_runtime(settings, memory=False) as runtime:
        for number, question in enumerate(questions):
            history = histories[question.sample_id]
            runtime.agent.clock = functools.partial(_fixed, history.today)
            asked = {"memory_off": question.question, "pasted_evidence": _pasted(history, question)}
            for mode in modes:
                if mode in asked:
                    log.add(mode, number, question, _ask(runtime, asked[mode], f"eval-{mode}-{number}"))


def _with_memory(log: _Log, questions: list[AnswerQuestion], history: History, settings: Any) -> None:
    from local_agent.app import build_runtime

    _import(history, settings)
    with build_runtime(settings) as runtime:
        for number, question in enumerate(questions):
            if question.sample_id == history.sample_id:
                log.add("memory", number, question, _ask(runtime, question.question, f"eval-memory-{number}"))


def evaluate(path: Path, *, limit: int | None, seed: int, max_tokens: int, modes: tuple[str, ...] = MODES,
             answers: IO[str] | None = None) -> dict[str, Any]:
    from local_agent.config import load_settings

    answer_set = build_answer_set(path)
    questions = list(answer_set.questions)
    if limit is not None and limit < len(questions):
        questions = random.Random(seed).sample(questions, limit)
    by_history = {h.sample_id: h for h in answer_set.histories}
    log = _Log(answers, len(questions) * len(modes))
    base = load_settings({"max_tokens": max_tokens})
    with tempfile.TemporaryDirectory(prefix="answers-") as root:
        if set(modes) - {"memory"}:
            _without_memory(log, questions, by_history, dataclasses.replace(base, data_dir=Path(root) / "off"), modes)
        for sample_id in sorted({q.sample_id for q in questions}) if "memory" in modes else ():
            history = by_history[sample_id]
            settings = dataclasses.replace(base, data_dir=Path(root) / sample_id,
                                           today=history.today.strftime("%Y-%m-%dT%H:%M"))
            _with_memory(log, questions, history, settings)
    report = _report(path, questions, log.scores, limit, seed, modes, log.wrong)
    if log.gold_in_memories:
        report["memory"].update(_recall_split(log.gold_in_memories))
        report["memory"].update(grounding_report(log.grounding))
    return report


def grounding_report(rows: list[tuple[str, bool, float]]) -> dict[str, Any]:
    """How memory answers were made (turn/replies.py routes), the share whose shown answer still
    holds a name or number that neither the memories shown nor the question hold, and the
    seconds the check and its retry added (mean, and over the answers retried)."""
    routes: dict[str, int] = defaultdict(int)
    for route, _, _ in rows:
        routes[route] += 1
    retried = [seconds for route, _, seconds in rows if route in ("retried", "dont-remember")]
    return {"unsupported_name_or_number": round(sum(bad for _, bad, _ in rows) / len(rows), 4),
            "routes": dict(sorted(routes.items())),
            "grounding_s_mean": round(sum(seconds for _, _, seconds in rows) / len(rows), 4),
            "grounding_s_mean_retried": round(sum(retried) / len(retried), 4) if retried else None}


def _recall_split(pairs: list[tuple[bool, bool]]) -> dict[str, float | None]:
    """How often recall showed the model the gold words, and its accuracy with and without them."""
    def share(values: list[bool]) -> float | None:
        return round(sum(values) / len(values), 4) if values else None

    return {"gold_in_memories": share([shown for shown, _ in pairs]),
            "accuracy_gold_shown": share([right for shown, right in pairs if shown]),
            "accuracy_gold_not_shown": share([right for shown, right in pairs if not shown])}


def _report(path: Path, questions: list[AnswerQuestion], scores: dict[str, dict[str, list[bool]]],
            limit: int | None, seed: int, modes: tuple[str, ...],
            wrong: dict[str, list[bool]] | None = None) -> dict[str, Any]:
    wrong = wrong or {}

    def share(values: list[bool]) -> float:
        return round(sum(values) / len(values), 4) if values else 0.0

    report: dict[str, Any] = {"dataset": str(path), "questions": len(questions), "subset_seed": seed if limit else None}
    for mode in modes:
        every = [value for values in scores[mode].values() for value in values]
        per_category = {f"category {c}": share(v) for c, v in sorted(scores[mode].items())}
        report[mode] = {"accuracy": share(every), "confidently_wrong": share(wrong.get(mode, [])), **per_category}
    if "memory" in modes and "pasted_evidence" in modes:
        ceiling = report["pasted_evidence"]["accuracy"]
        report["memory_over_ceiling"] = round(report["memory"]["accuracy"] / ceiling, 4) if ceiling else None
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--limit", type=int, default=None, help="a seeded subset of the sample (it is slow on a CPU)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--max-tokens", type=int, default=96,
                        help="answer budget (48 cut list answers after the model's preamble)")
    parser.add_argument("--modes", default=",".join(MODES), help="which of " + ", ".join(MODES))
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--answers", type=Path, default=None, help="write every answer here, one JSON line each")
    args = parser.parse_args(argv)
    modes = tuple(mode for mode in MODES if mode in args.modes.split(","))
    with contextlib.ExitStack() as stack:
        answers = stack.enter_context(args.answers.open("w", encoding="utf-8")) if args.answers else None
        report = evaluate(args.dataset, limit=args.limit, seed=args.seed, max_tokens=args.max_tokens, modes=modes,
                          answers=answers)
    text = json.dumps(report, indent=2)
    if args.output:
        args.output.write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(text + "\n")
    return 0
