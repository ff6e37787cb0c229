"""Companion conversations (scripts/eval_companion.py): whole chats of the kind people have with
an assistant that remembers them, run turn by turn through the agent chat uses, with memory on
and a data dir of their own, and judged by checkable properties.

Every turn of `sets/companion.jsonl` is checked for:
- `markup`: the reply copies none of the prompt's markup ("(2 May 2024) I told you: ...",
  "You said:", "(noted ...)", "Conversation of ..., in short");
- `own_name`: the reply never gives itself a name ("I'm Karen", "my name is Dana");
- `you`: the reply never speaks of "the user".
Some turns also carry:
- `expect`: keywords the reply must all hold (a question about what was said earlier in the
  chat; "six|6" accepts either);
- `check: identity` (a question about the assistant itself): the reply says it is an assistant,
  an AI or a program, and does not claim to be a person;
- `check: farewell` (goodnight, bye): the reply takes leave and does not offer help as a
  greeting would.
A turn passes when it passes every check it has; a conversation, when every turn does.
"""

from __future__ import annotations

import dataclasses
import json
import re
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from local_agent.turn.reply_checks import speaks_of_the_user

SETS = Path(__file__).resolve().parent / "sets"
TODAY = "2024-05-20T19:30"
_MARKUP = re.compile(r"\bI told you:|\bYou said:|\(noted |From our past conversations"
                     r"|\bConversation of [^.]{0,60}in short")
_OWN_NAME = re.compile(r"\b(?:I'm|I am|my name is|my name's|call me)\s+([A-Z][a-z]+)\b")
# Words that follow "I'm" with a capital without being a name.
_NOT_NAMES = frozenset("i a an the so sorry glad happy here not just always your an ai sure".split())
_ASSISTANT = re.compile(r"\b(?:assistant|AI|artificial|program|language model|chatbot|bot|computer|software)\b",
                        re.IGNORECASE)
_PERSON = re.compile(r"\bI(?:'m| am) (?:a |an )?(?:real )?(?:person|human|man|woman|girl|boy|guy)\b", re.IGNORECASE)
_FAREWELL = re.compile(
    r"\b(?:good ?night|night|bye|goodbye|see you|take care|talk (?:to you )?(?:soon|later|tomorrow)|sleep well|"
    r"later|rest well|sweet dreams|until next time|buenas noches|adiós|hasta|bonne nuit|au revoir|à bientôt)\b",
    re.IGNORECASE)
_OFFERS_HELP = re.compile(r"\bhow can I (?:help|assist)|what can I do for you", re.IGNORECASE)


def load(split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in (SETS / "companion.jsonl").read_text(encoding="utf-8").splitlines()]
    return [row for row in rows if split in ("all", row["split"])]


def claimed_name(reply: str) -> str | None:
    """The name the reply gives itself, if any ("I'm Karen" -> "Karen")."""
    for match in _OWN_NAME.finditer(reply):
        if match.group(1).lower() not in _NOT_NAMES:
            return match.group(1)
    return None


def _holds(reply: str, keyword: str) -> bool:
    return any(option.lower() in reply.lower() for option in keyword.split("|"))


def judge(turn: dict[str, Any], reply: str) -> dict[str, bool]:
    """The checks of one turn's reply (see the module's definitions)."""
    checks = {"markup": not _MARKUP.search(reply), "own_name": claimed_name(reply) is None,
              "you": not speaks_of_the_user(reply)}
    if turn.get("expect"):
        checks["expect"] = all(_holds(reply, keyword) for keyword in turn["expect"])
    if turn.get("check") == "identity":
        checks["identity"] = bool(_ASSISTANT.search(reply)) and not _PERSON.search(reply)
    if turn.get("check") == "farewell":
        checks["farewell"] = bool(_FAREWELL.search(reply)) and not _OFFERS_HELP.search(reply)
    return checks


def run(items: Sequence[dict[str, Any]], *, max_tokens: int = 128,
        progress: Callable[[str], None] | None = None) -> list[dict[str, Any]]:
    """Each conversation in a data dir of its own (memory on, as chat has it): every turn's
    reply, how it was made, its checks and seconds."""
    from local_agent.app import build_runtime
    from local_agent.config import load_settings

    rows = []
    for item in items:
        with tempfile.TemporaryDirectory(prefix="companion-") as root:
            settings = dataclasses.replace(load_settings({"max_tokens": max_tokens}), data_dir=Path(root), today=TODAY)
            with build_runtime(settings) as runtime:
                agent = runtime.agent
                agent.use_session(item["id"])
                for number, turn in enumerate(item["turns"]):
                    start = time.perf_counter()
                    result = agent.respond(turn["user"])
                    seconds = time.perf_counter() - start
                    reply = str(result.answer)
                    checks = judge(turn, reply)
                    rows.append({"id": item["id"], "turn": number, "split": item["split"], "style": item["style"],
                                 "user": turn["user"], "reply": reply, "made_by": result.reply_route or "model",
                                 "checks": checks, "passed": all(checks.values()), "seconds": round(seconds, 3)})
                agent.wait()
        if progress:
            progress(f"{item['id']}: {sum(row['passed'] for row in rows if row['id'] == item['id'])}"
                     f"/{len(item['turns'])} turns passed")
    return rows


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per split: turns passing every check, each check's share, conversations passing whole."""
    by_split: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_split[row["split"]].append(row)
    report: dict[str, Any] = {}
    for split, group in sorted(by_split.items()):
        names = sorted({key for row in group for key in row["checks"]})
        conversations = sorted({row["id"] for row in group})
        report[split] = {
            "turns": len(group),
            "passed": round(sum(row["passed"] for row in group) / len(group), 3),
            **{name: round(sum(row["checks"][name] for row in group if name in row["checks"])
                           / sum(name in row["checks"] for row in group), 3) for name in names},
            "conversations": len(conversations),
            "conversations_passed": sum(all(row["passed"] for row in group if row["id"] == ident)
                                        for ident in conversations),
        }
    return report
