"""The everyday tool set (tool_everyday/, issue 42) through the agent, as `ask --tools --db DB
--json --no-memory` runs it, with each answer's outcome: right, unsure (the turn said it was
not sure, asked back, or said it does not know) or confidently wrong (a definite answer that is
wrong). A row whose gold is `unsure` is right only when the turn was unsure; any definite
answer to it is confidently wrong.

A turn result that names its outcome (`outcome`: answer / unsure / not_told) is read as it says;
otherwise the answer's words decide (`UNSURE_WORDS`) and an `ask_user` step counts as unsure."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from local_agent.dates.clock import now as clock_now
from local_agent.turn.agent import Agent
from local_agent.turn.result import TurnResult

from .tool_eval import answer_correct

FOLDER = Path(__file__).parent / "tool_everyday"
FRESH = Path(__file__).parent / "fresh" / "tool_everyday"  # written later by strangers to the code: all held out
FRESH2 = Path(__file__).parent / "fresh2" / "tool_everyday"  # strangers again: dev, and every third row held out
CATEGORIES = ("arithmetic", "dates", "sql")
SPLITS = ("dev", "heldout")
OUTCOMES = ("right", "unsure", "wrong")
DEFAULT_TODAY = "2026-03-11"
UNSURE_WORDS = re.compile(
    r"not sure|unsure|(?:do not|don't|dont) know|can(?:no|')t (?:tell|say|know|answer)|"
    r"(?:do not|don't) remember|haven't told|have not told|not enough information|need (?:more|to know)|"
    r"is that what you meant|did you mean|could you (?:tell|give|say|clarify)|can you (?:tell|give|clarify)|"
    r"please (?:tell|provide|clarify)|which one|could(?: not|n't) (?:work|answer|find|tell)", re.IGNORECASE)

_YES_NO = re.compile(r"\s*(?:(yes|yeah|yep|correct)|(no|nope))\b", re.IGNORECASE)
_NEGATION = re.compile(r"\b(?:not|no|never|neither)\b|n't\b")


@dataclass(frozen=True)
class EverydayOutcome:
    id: str
    category: str
    split: str
    style: str
    kind: str
    message: str
    gold: str
    answer: str
    outcome: str  # right, unsure or wrong (confidently wrong)
    tools_called: tuple[str, ...]
    seconds: float
    made_by: str = ""  # the reply's route and the tools' route ("template:calculation", "tools:direct")


def load(category: str, splits: Iterable[str] = SPLITS, folder: Path = FOLDER) -> list[dict[str, Any]]:
    wanted = set(splits)
    lines = (folder / f"{category}.jsonl").read_text(encoding="utf-8").splitlines()
    return [task for task in map(json.loads, lines) if task["split"] in wanted]


def said_unsure(answer: str, tools_called: Sequence[str], named: object = None) -> bool:
    """Whether the turn said it was unsure or did not know, rather than give an answer: the
    outcome it names, else an `ask_user` step or the answer's words."""
    if named in ("answer", "unsure", "not_told"):  # "": the turn named none
        return named != "answer"
    return "ask_user" in tools_called or bool(UNSURE_WORDS.search(answer))


def judge(task: dict[str, Any], answer: str, tools_called: Sequence[str], named: object = None) -> str:
    unsure = said_unsure(answer, tools_called, named)
    if task["answer"] == "unsure":
        return "right" if unsure else "wrong"
    if unsure:
        return "unsure"
    if task["answer"] in ("yes", "no") and (said := yes_or_no(task["message"], answer)) is not None:
        return "right" if said == task["answer"] else "wrong"
    return "right" if answer_correct(answer, task) else "wrong"


def yes_or_no(question: str, answer: str) -> str | None:
    """What an answer says to a yes/no question: "yes" or "no" when it opens with one, else the
    polarity of its first clause that states the question's last two words ("2028 is a leap
    year" says yes to "is 2028 a leap year", "2027 is not a leap year" says no); None when it
    states neither."""
    if opening := _YES_NO.match(answer):
        return "yes" if opening[1] else "no"
    asked = re.findall(r"[a-z0-9']+", question.lower())[-2:]
    if len(asked) < 2:
        return None
    phrase = re.compile(r"\b" + r"\W+".join(map(re.escape, asked)) + r"\b")
    for clause in re.split(r"[.:;!?\n]", answer.lower()):
        if found := phrase.search(clause):
            return "no" if _NEGATION.search(clause[:found.start()]) else "yes"
    return None


def run_task(agent: Agent, category: str, task: dict[str, Any]) -> EverydayOutcome:
    agent.use_session(task["id"])
    agent.clock = functools.partial(clock_now, str(task.get("today", DEFAULT_TODAY)))
    result = agent.respond(task["message"])
    called = tuple(dict.fromkeys(call.name for call in result.tool_calls))
    verdict = judge(task, result.answer, called, getattr(result, "outcome", None))
    return EverydayOutcome(task["id"], category, task["split"], task["style"], task["kind"], task["message"],
                           task["answer"], result.answer, verdict, called, result.timings.answer_s or 0.0,
                           made_by(result))


def made_by(result: TurnResult) -> str:
    """How the turn's reply was made: its reply route (the model's when none is named) and the
    tools' route, so a report's outcomes can be counted by route without reading a row."""
    tools = f"tools:{result.tools.route}" if result.tools is not None else "tools:off"
    return f"{result.reply_route or 'model'} {tools}"


def rejudged(rows: Iterable[dict[str, Any]]) -> list[EverydayOutcome]:
    """Outcome rows of an earlier report judged again (the judge's words changed, not the answers)."""
    tasks = {task["id"]: task for folder in (FOLDER, FRESH, FRESH2) for category in CATEGORIES
             for task in load(category, folder=folder)}
    done = []
    for row in rows:
        task = tasks[row["id"]]
        verdict = judge(task, row["answer"], row["tools_called"])
        done.append(EverydayOutcome(**{**row, "tools_called": tuple(row["tools_called"]), "outcome": verdict}))
    return done


def rates(outcomes: Sequence[EverydayOutcome]) -> dict[str, Any]:
    """How many rows, and the share of each outcome (confidently wrong is `wrong`)."""
    total = len(outcomes)
    shares = {name: round(sum(o.outcome == name for o in outcomes) / total, 4) if total else None
              for name in OUTCOMES}
    return {"rows": total, **shares}


def category_report(outcomes: Sequence[EverydayOutcome]) -> dict[str, Any]:
    report: dict[str, Any] = {split: rates([o for o in outcomes if o.split == split]) for split in SPLITS}
    report["by_kind"] = {kind: rates([o for o in outcomes if o.kind == kind])
                         for kind in sorted({o.kind for o in outcomes})}
    report["by_route"] = {split: {route: {name: sum(o.outcome == name for o in rows if o.made_by == route)
                                          for name in OUTCOMES}
                                  for route in sorted({o.made_by for o in rows})}
                          for split in SPLITS if (rows := [o for o in outcomes if o.split == split])}
    return report


def outcome_rows(outcomes: Sequence[EverydayOutcome]) -> list[dict[str, Any]]:
    return [asdict(outcome) for outcome in outcomes]
