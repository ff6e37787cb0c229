"""A scripted model step for the tool loop: replays queued actions, records what it saw."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from local_agent.types import Message


class ScriptedDecide:
    """`decide(messages, schema)` answering from a queue; `default` when the queue is empty.
    `seen` keeps a copy of every call's messages, `schemas` every schema."""

    def __init__(self, *actions: dict[str, Any], default: dict[str, Any] | None = None) -> None:
        self.actions = list(actions)
        self.default = default if default is not None else {"action": "final", "answer": "done"}
        self.seen: list[list[Message]] = []
        self.schemas: list[dict[str, Any]] = []

    def __call__(self, messages: Sequence[Message], schema: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(list(messages))
        self.schemas.append(copy.deepcopy(schema))
        return self.actions.pop(0) if self.actions else self.default


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"action": "tool", "name": name, "arguments": arguments}


def final(answer: str) -> dict[str, Any]:
    return {"action": "final", "answer": answer}


def ask(question: str) -> dict[str, Any]:
    return {"action": "ask_user", "question": question}
