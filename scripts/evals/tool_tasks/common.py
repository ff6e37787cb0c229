"""The shape of one task, shared by every generator."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Task:
    """`answer` is the gold answer as text; `accept` lists other spellings that count as
    correct (a number's other forms, a date's weekday); `tools` the tools a good run calls."""

    id: str
    category: str
    message: str
    answer: str
    tools: tuple[str, ...]
    today: str
    accept: tuple[str, ...] = ()
    memories: tuple[str, ...] = ()
    gold_sql: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["tools"], data["accept"], data["memories"] = list(self.tools), list(self.accept), list(self.memories)
        return {key: value for key, value in data.items() if value not in ("", [], {})}


def number_text(value: float) -> str:
    """A number as a person writes an answer: integers plainly, others to 4 decimals at most."""
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.4f}".rstrip("0").rstrip(".")
