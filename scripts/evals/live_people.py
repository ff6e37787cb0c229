"""People talking over several days (scripts/eval_live_people.py, issue 43): each person's days
are told to the chat agent with memory on, each day in a session of its own and dated with that
day; days later each question is asked in a new session, so the answer must come from memory.

An answer is judged by what a person would hold against it:
- `right`: it holds every part of `gold` (each part one of its `a|b` alternatives, at the start
  of a word: "swim" holds in "swimming", "8 nov" not in "18 nov"); a `when` question's gold is
  the day itself in any common spelling ("12 October 2026", "Oct 12"), never the relative
  words it was told with ("last Sunday"); for a
  question never told (`gold` null), it says it was not told or does not know;
- `unsure`: an answerable question met with "I don't know" / "you haven't told me";
- `wrong`: anything else, a definite answer that is wrong: the confidently-wrong rate.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

SETS = Path(__file__).resolve().parent / "sets"
_UNSURE = re.compile(
    r"\b(?:(?:do not|don't|dont) (?:know|remember|have (?:that|any|a record))|not sure|unsure|"
    r"(?:haven't|have not|didn't|did not|never) (?:told|tell|mentioned|mention|said|say)|not told|"
    r"no (?:record|memory|information)|(?:can't|cannot|couldn't) (?:find|recall|remember))\b",
    re.IGNORECASE)


FRESH = SETS.parent / "fresh" / "live-people-fresh.jsonl"  # written later by a stranger to the code: all held out


def load(split: str, path: Path = SETS / "live-people.jsonl") -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [row for row in rows if split in ("all", row["split"])]


def _holds(answer: str, part: str) -> bool:
    """One of the part's alternatives starts a word of the answer ("8 nov" is not in "18 nov");
    a day written ISO-wise is held in any of its common spellings ("2026-10-12": "12 October
    2026", "October 12")."""
    options = [spelled for option in part.split("|") for spelled in _day_spellings(option)]
    return any(re.search(r"(?<!\w)" + re.escape(option) + r"(?!\d)", answer, re.IGNORECASE) for option in options)


def _day_spellings(option: str) -> list[str]:
    """The option, and when it is an ISO day, that day as people write it."""
    try:
        day = dt.date.fromisoformat(option.strip())
    except ValueError:
        return [option]
    month = day.strftime("%B")
    return [option, f"{day.day} {month}", f"{month} {day.day}", f"{day.day} {month[:3]}", f"{month[:3]} {day.day}"]


def sounds_unsure(answer: str) -> bool:
    """Whether the answer says it does not know or was not told."""
    return bool(_UNSURE.search(answer))


def judge(gold: list[str] | None, answer: str) -> str:
    """`right`, `unsure` or `wrong` (see the module's definitions)."""
    unsure = sounds_unsure(answer)
    if gold is None:
        return "right" if unsure else "wrong"
    if all(_holds(answer, part) for part in gold):
        return "right"
    return "unsure" if unsure else "wrong"


def run(items: Sequence[dict[str, Any]], *, max_tokens: int = 128,
        progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Each person in a data dir of their own: every question's answer, its judgement and seconds."""
    from local_agent.app import build_runtime
    from local_agent.config import load_settings

    rows = []
    for item in items:
        with tempfile.TemporaryDirectory(prefix="live-") as root:
            settings = dataclasses.replace(load_settings({"max_tokens": max_tokens}), data_dir=Path(root))
            with build_runtime(settings) as runtime:
                agent = runtime.agent
                for day in item["days"]:
                    agent.use_session(f"{item['id']}-{day['date']}")
                    for message in day["messages"]:
                        agent.respond(message, today=f"{day['date']}T19:00")
                    agent.wait()
                for number, question in enumerate(item["questions"]):
                    agent.use_session(f"{item['id']}-q{number}")
                    start = time.perf_counter()
                    result = agent.respond(question["ask"], today=f"{question['date']}T20:00")
                    answer = str(result.answer)
                    rows.append({"id": item["id"], "split": item["split"], "style": item["style"],
                                 "kind": question["kind"], "question": question["ask"], "gold": question["gold"],
                                 "answer": answer, "made_by": result.reply_route or "model", "outcome": result.outcome,
                                 "judged": judge(question["gold"], answer),
                                 "seconds": round(time.perf_counter() - start, 3)})
                agent.wait()
        if progress:
            mine = [row for row in rows if row["id"] == item["id"]]
            progress(f"{item['id']}: {sum(row['judged'] == 'right' for row in mine)}/{len(mine)} right")
    return rows


def _rates(group: Sequence[dict[str, Any]]) -> dict[str, Any]:
    count = len(group)
    return {"questions": count, **{name: round(sum(row["judged"] == name for row in group) / count, 3)
                                   for name in ("right", "unsure", "wrong")}}


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per split: right / unsure / confidently wrong over all questions, over the answerable ones,
    over the never-told ones, and per kind."""
    by_split: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_split[row["split"]].append(row)
    report: dict[str, Any] = {}
    for split, group in sorted(by_split.items()):
        answerable = [row for row in group if row["gold"] is not None]
        never = [row for row in group if row["gold"] is None]
        kinds = sorted({row["kind"] for row in group})
        report[split] = {"all": _rates(group), "answerable": _rates(answerable), "never_told": _rates(never),
                         "by_kind": {kind: _rates([row for row in group if row["kind"] == kind]) for kind in kinds},
                         "named_outcomes": named_outcomes(group)}
    return report


def named_outcomes(group: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """How many answers the turn itself named `answer`, `unsure` or `not_told` (TurnResult.outcome),
    each split by how it was judged: an `answer` judged wrong is the program standing behind a
    wrong answer."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: {"right": 0, "unsure": 0, "wrong": 0})
    for row in group:
        counts[str(row.get("outcome"))][row["judged"]] += 1
    return dict(sorted(counts.items()))
