"""How often the tool router sends plain chat to a tool: the share of messages it routes
`direct` or `model` when every tool is enabled. Plain chat should almost never need one."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from local_agent.errors import InputError
from local_agent.tools.registry import TOOL_NAMES
from local_agent.tools.router import Router


def locomo_turns(path: Path) -> list[str]:
    """The text of every dialogue turn in a LoCoMo JSON file, in order."""
    try:
        samples = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read LoCoMo file {path}: {exc}") from None
    turns: list[str] = []
    for sample in samples:
        conversation = sample["conversation"]
        sessions = sorted((key for key in conversation if key.startswith("session_") and key[8:].isdigit()),
                          key=lambda key: int(key[8:]))
        turns += [turn["text"] for key in sessions for turn in conversation[key] if turn.get("text")]
    return turns


def tool_call_rate(messages: Iterable[str], enabled: Iterable[str] = TOOL_NAMES, examples: int = 20) -> dict[str, Any]:
    """The share of `messages` routed to a tool, by route and by tool, with some examples."""
    router = Router(tuple(enabled))
    kinds: Counter[str] = Counter()
    tools: Counter[str] = Counter()
    routed: list[dict[str, Any]] = []
    total = 0
    for message in messages:
        total += 1
        route = router.route(message)
        kinds[route.kind] += 1
        if route.kind != "none":
            tools.update(route.tools)
            routed.append({"message": message, "kind": route.kind, "tools": list(route.tools)})
    calls = kinds["direct"] + kinds["model"]
    return {"messages": total, "routed": calls, "rate": calls / total if total else 0.0,
            "by_kind": dict(kinds), "by_tool": dict(tools), "examples": routed[:examples]}
