"""Everyday replies, introductions and corrections (scripts/eval_replies.py), judged by checkable
properties.

Every message of `sets/everyday.jsonl`, `sets/introductions.jsonl` and `sets/corrections.jsonl`
goes through the agent chat uses (memory on, incognito so nothing is kept), in a session of its
own that holds the item's earlier exchange, with the item's facts in memory. A setup names the
directive, the few-shot exchanges and the sampling; the product's own is `product`.

The properties (definitions in local_agent/grounding/reply_checks.py, language.py, names.py and
values.py, and below):
- everyday: `language` (the reply is in the user's language), `supported` (no proper name or
  number that none of the message, the memories, the earlier exchange or the system message
  holds; for a request, only sentences that state something about the user or the
  conversation count, `_ABOUT_US`: what a request asks for, a joke or a name for a puppy, is
  new by nature), `no_apology` (no apology or
  refusal, except for a request), `you` (never "the user"), `length` (under 60 words unless the
  message asks for more). A reply passes when it passes every property.
- introductions: `own_name` (the reply never gives the user's name, or one of their statements,
  as its own), `attributes` (no clause pairs a person's attribute with other people only: see
  `moved_attribute`), `acknowledged` (the reply names the user).
- corrections: `acknowledged` (the reply holds the corrected value, and the old one only after
  "not", "instead of", "no longer" or "rather than"), `no_apology`.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from local_agent.grounding.names import unsupported_names
from local_agent.grounding.numbers import numbers, unsupported_numbers
from local_agent.reading.clauses import split_clauses
from local_agent.reading.language import language_of, same_language
from local_agent.turn.reply_checks import (
    apologizes_or_refuses,
    claims_name,
    speaks_of_the_user,
    takes_statement,
    too_long,
)
from local_agent.types import Message, Provenance

SETS = Path(__file__).resolve().parent / "sets"
TODAY = "2024-05-20T10:00"
NOTED = "2024-05-19T18:00"
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
# A sentence that states something about the user or the conversation: "you are/have/live ...",
# "your dog is ...", "you said ...", "we talked ...".
_ABOUT_US = re.compile(
    r"\b(?:you|we)\s+(?:\w+\s+)?(?:are|were|have|had|live|lived|work|worked|said|told|mentioned|like|love|own|keep|"
    r"kept|went|did|do|talked|discussed|asked)\b|\b(?:you're|you've|we're|we've)\b"
    r"|\byour\s+(?:\w+\s+){0,2}(?:is|are|was|were)\b|\btold me\b", re.IGNORECASE)
_NEGATED = r"\b(?:not|instead of|no longer|rather than|isn't|wasn't|aren't)\s+(?:\w+\s+){{0,2}}{old}\b"
_CLAUSE_BREAK = re.compile(
    r"(?<=[.!?;])\s+|,?\s+\b(?:and|but|while|whereas)\b\s+|,\s+(?=(?:you|your|he|she|they|i|my)\b)", re.IGNORECASE)
_YOU = re.compile(r"\b(?:you|your|you're|yours|yourself)\b", re.IGNORECASE)
_ME = re.compile(r"\b(?:i|i'm|i've|my|me|mine)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Item:
    """One message to answer, from one of the sets."""

    set: str
    id: str
    split: str
    message: str
    kind: str = ""
    language: str = "en"
    memories: tuple[str, ...] = ()
    history: tuple[str, str] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def load(split: str) -> list[Item]:
    """The items of `split` ("dev", "held-out" or "all") of the three sets, in file order."""
    items = []
    for name in ("everyday", "introductions", "corrections"):
        for line in (SETS / f"{name}.jsonl").read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if split not in ("all", row["split"]):
                continue
            history = tuple(row["history"]) if row.get("history") else None
            items.append(Item(name, row["id"], row["split"], row["message"], row.get("kind", name[:-1]),
                              row.get("lang", "en"), tuple(row.get("memories", ())), history,
                              {k: row[k] for k in ("user", "people", "new", "old") if k in row}))
    return items


# -- the properties ---------------------------------------------------------------------------
def sources_of(item: Item, system: str = "") -> list[str]:
    return [item.message, *item.memories, *(item.history or ()), system]


def unsupported_claims(item: Item, reply: str, system: str = "") -> list[str]:
    """Names and numbers of the reply that its sources do not hold (for a request, only in
    sentences about the user or the conversation)."""
    sources = sources_of(item, system)
    text = reply
    if item.kind == "request":
        text = " ".join(s for s in _SENTENCES.split(reply) if _ABOUT_US.search(s))
    return unsupported_names(text, sources) + [m.text for m in unsupported_numbers(text, sources)]


def judge_everyday(item: Item, reply: str, system: str = "") -> dict[str, bool]:
    checks = {
        "language": same_language(reply, language_of(item.message) or item.language),
        "supported": not unsupported_claims(item, reply, system),
        "you": not speaks_of_the_user(reply),
        "length": not too_long(reply, item.message),
    }
    if item.kind != "request":
        checks["no_apology"] = not apologizes_or_refuses(reply, item.message)
    return checks


def _name_words(name: str) -> set[str]:
    return {word.lower() for word in name.split() if word.lower() not in ("mr", "mrs", "ms", "dr")}


def _has(text: str, phrase: str) -> bool:
    """Whether every word of `phrase` is a word of `text` (numbers by value)."""
    words = {w.lower() for w in re.findall(r"[\w'-]+", text)}
    values = {m.value for m in numbers(text)}
    for word in re.findall(r"[\w'-]+", phrase):
        wanted = {m.value for m in numbers(word)}
        if not (word.lower() in words or word.lower() + "s" in words or (wanted and wanted <= values)):
            return False
    return True


def moved_attribute(reply: str, user: str, people: dict[str, list[str]]) -> str | None:
    """A clause of the reply that states a person's attribute while naming only other people
    (the user as "you", the assistant as "I"), or None. A person counts as named by their name
    or by their role (the first attribute of anyone but the user: "daughter")."""
    for clause in _CLAUSE_BREAK.split(reply):
        if not clause or not clause.strip():
            continue
        named = {p for p in people if _name_words(p) & {w.lower() for w in re.findall(r"[\w'-]+", clause)}}
        named |= {p for p, attributes in people.items() if p != user and attributes and _has(clause, attributes[0])}
        if _YOU.search(clause):
            named.add(user)
        if _ME.search(clause):
            named.add("(assistant)")
        for person, attributes in people.items():
            for attribute in attributes:
                if named and person not in named and _has(clause, attribute) and not any(
                        attribute in people.get(other, ()) for other in named):
                    return f"{attribute!r} of {person} in {clause.strip()!r}"
    return None


def _reply_words(reply: str) -> set[str]:
    return {re.sub(r"'s$", "", word.lower()) for word in re.findall(r"[\w'-]+", reply)}


def judge_introduction(item: Item, reply: str) -> dict[str, bool]:
    user, people = item.extra["user"], item.extra["people"]
    first = user.split()[0]
    return {
        "own_name": not claims_name(reply, [user, first]) and not takes_statement(reply, split_clauses(item.message)),
        "attributes": moved_attribute(reply, user, people) is None,
        "acknowledged": bool(_name_words(user) & _reply_words(reply)),
    }


def judge_correction(item: Item, reply: str) -> dict[str, bool]:
    new, old = item.extra["new"], item.extra.get("old")
    stale = False
    if old and _has(reply, old):
        old_pattern = re.escape(old)
        said = len(re.findall(rf"\b{old_pattern}\b", reply, re.IGNORECASE))
        negated = len(re.findall(_NEGATED.format(old=old_pattern), reply, re.IGNORECASE))
        stale = said > negated
    return {"acknowledged": _has(reply, new) and not stale,
            "no_apology": not apologizes_or_refuses(reply, item.message)}


def judge(item: Item, reply: str, system: str = "") -> dict[str, bool]:
    if item.set == "introductions":
        return judge_introduction(item, reply)
    if item.set == "corrections":
        return judge_correction(item, reply)
    return judge_everyday(item, reply, system)


# -- running ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Setup:
    """What a comparison varies: the directive (None: the product's), few-shot exchanges (None:
    the product's), sampling overrides (temperature, top_p, repeat_penalty, seed), and whether
    the program may build replies (templates and checks) or the model says everything."""

    name: str
    directive: str | None = None
    examples: tuple[Message, ...] | None = None
    sampling: dict[str, float] = field(default_factory=dict)
    program: bool = True


@contextmanager
def _memories(store: Any, texts: Sequence[str]) -> Iterator[None]:
    """The item's facts in memory while it is answered, forgotten after."""
    records = [store.add(text, "fact", provenance=Provenance(session="earlier", role="user", date=NOTED))
               for text in texts]
    try:
        yield
    finally:
        for record in records:
            store.forget(record.id)


def run(setup: Setup, items: Sequence[Item], *, max_tokens: int = 128,
        progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Each item answered under `setup`: its reply, how it was made, its checks and seconds."""
    from local_agent.app import build_runtime
    from local_agent.config import load_settings
    from local_agent.memory.sessions import Turn

    rows = []
    with tempfile.TemporaryDirectory(prefix="replies-") as root:
        settings = dataclasses.replace(load_settings({"max_tokens": max_tokens}), data_dir=Path(root), today=TODAY,
                                       **setup.sampling)  # type: ignore[arg-type]
        with build_runtime(settings, system=setup.directive) as runtime:
            agent = runtime.agent
            if setup.examples is not None:
                agent.examples = setup.examples
            agent.replies_by_program = setup.program
            for number, item in enumerate(items):
                agent.use_session(f"{setup.name}-{item.id}")
                agent.set_incognito(True)
                if item.history:
                    agent.session.turns[:] = [Turn("user", item.history[0]), Turn("assistant", item.history[1])]
                assert agent.memory is not None  # built with memory
                with _memories(agent.memory.store, item.memories):
                    start = time.perf_counter()
                    result = agent.respond(item.message)
                    seconds = time.perf_counter() - start
                system = result.prompt.messages[0].content if result.prompt else ""
                reply = str(result.answer)
                checks = judge(item, reply, system)
                rows.append({"set": item.set, "id": item.id, "split": item.split, "kind": item.kind,
                             "message": item.message, "reply": reply, "made_by": result.reply_route or "model",
                             "checks": checks, "passed": all(checks.values()), "seconds": round(seconds, 3)})
                if progress and (number + 1) % 10 == 0:
                    progress(f"{setup.name}: {number + 1}/{len(items)}")
    return rows


def _templated(made_by: str) -> bool:
    """Whether the program built the reply (a template, a recap, "I don't remember that.")."""
    return made_by.startswith("template") or made_by in ("recap", "dont-remember")


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per set and split: the share of replies passing every property, each property's share,
    and the share of replies the program built (templates) rather than the model."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["set"], row["split"])].append(row)
    report: dict[str, Any] = {}
    for (name, split), group in sorted(groups.items()):
        properties = sorted({key for row in group for key in row["checks"]})
        report[f"{name}/{split}"] = {
            "n": len(group),
            "passed": round(sum(row["passed"] for row in group) / len(group), 3),
            **{key: round(sum(row["checks"][key] for row in group if key in row["checks"])
                          / max(1, sum(key in row["checks"] for row in group)), 3) for key in properties},
            "templated": round(sum(_templated(row["made_by"]) for row in group) / len(group), 3),
            "seconds_p50": sorted(row["seconds"] for row in group)[len(group) // 2],
        }
    return report


def write_rows(rows: Sequence[dict[str, Any]], path: Path) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


def print_report(report: dict[str, Any], output: Path | None) -> None:
    """The report as JSON on stdout, and in `output` when given."""
    text = json.dumps(report, indent=2, ensure_ascii=False)
    if output:
        output.write_text(text + "\n", encoding="utf-8")
    sys.stdout.write(text + "\n")


def say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
