"""The rolling per-session summary: older turns folded into a few bullet points."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from importlib import resources
from string import Template

from ..backends.base import Backend
from ..prompt import truncate_to_tokens
from ..types import GenerationSettings, Message

MAX_BULLETS = 6
BULLET_CHARS = 160


def summary_schema(max_bullets: int = MAX_BULLETS) -> dict:
    """Bounded so that a complete object always fits in the token limit."""
    return {
        "type": "object",
        "properties": {
            "bullets": {
                "type": "array",
                "items": {"type": "string", "minLength": 3, "maxLength": BULLET_CHARS},
                "minItems": 1,
                "maxItems": max_bullets,
            }
        },
        "required": ["bullets"],
    }


def _template() -> Template:
    return Template(resources.files("local_agent.prompts").joinpath("summary.txt").read_text("utf-8"))


def _dialogue(turns: Sequence[Message], per_turn_chars: int = 600) -> str:
    lines = []
    for turn in turns:
        speaker = "User" if turn.role == "user" else "Assistant"
        lines.append(f"{speaker}: {' '.join(turn.content.split())[:per_turn_chars]}")
    return "\n".join(lines)


def _first_sentence(text: str) -> str:
    sentence = re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0]
    return sentence[:BULLET_CHARS]


def extractive_bullets(turns: Sequence[Message]) -> list[str]:
    """What the user said, one sentence a turn: used when the model's bullets are unusable."""
    return [f"The user said: {_first_sentence(t.content)}" for t in turns if t.role == "user" and t.content.strip()]


def _parse_bullets(raw: str) -> list[str]:
    try:
        bullets = json.loads(raw).get("bullets", [])
    except (json.JSONDecodeError, AttributeError):
        return []
    return [" ".join(str(b).split()).lstrip("-• ") for b in bullets if str(b).strip()]


class Summarizer:
    """Folds the previous summary and the turns leaving the window into 4-6 bullets."""

    def __init__(self, backend: Backend, *, token_cap: int = 200, max_bullets: int = MAX_BULLETS) -> None:
        self.backend = backend
        self.token_cap = token_cap
        self.max_bullets = max_bullets

    def fold(self, previous: str, turns: Sequence[Message]) -> str:
        prompt = _template().substitute(
            max_bullets=self.max_bullets,
            previous=f"Earlier summary:\n{previous}\n" if previous.strip() else "",
            dialogue=_dialogue(turns),
        )
        room = self.backend.context_size - self._max_tokens() - 64
        prompt = truncate_to_tokens(prompt, room, self.backend.count_tokens)
        completion = self.backend.generate(
            [Message("user", prompt)],
            GenerationSettings(max_tokens=self._max_tokens(), temperature=0.0),
            json_schema=summary_schema(self.max_bullets),
        )
        bullets = _parse_bullets(completion.text) or extractive_bullets(turns)
        return self._cap("\n".join(f"- {b}" for b in bullets[: self.max_bullets]))

    def _max_tokens(self) -> int:
        # Worst case: every bullet at full length (~4 chars a token) plus JSON punctuation.
        return self.max_bullets * (BULLET_CHARS // 3 + 6) + 16

    def _cap(self, text: str) -> str:
        if self.backend.count_tokens(text) <= self.token_cap:
            return text
        lines = text.splitlines()
        while len(lines) > 1 and self.backend.count_tokens("\n".join(lines)) > self.token_cap:
            lines.pop(0)  # the oldest bullet goes first
        return truncate_to_tokens("\n".join(lines), self.token_cap, self.backend.count_tokens)
