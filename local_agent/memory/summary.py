"""The rolling per-session summary: older turns folded into a few bullet points.

A bullet is kept only when it is grounded in what it summarizes (`grounded_bullet`): it has at
least three words and content words, and almost all of its content words (stemmed, beyond the
words every summary uses: "user", "assistant", "talked", "asked" ...) were said in the
conversation or its earlier summary. A placeholder copied from the prompt ("...") or a topic
nobody raised is dropped; when no bullet is left, the user's own turns are summarized by rule
(`extractive_bullets`). A session digest is this summary, so the same holds for digests."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from importlib import resources
from string import Template

from ..backends.base import Backend
from ..prompt import truncate_to_tokens
from ..reading.clauses import split_clauses
from ..reading.courtesy import is_small_talk
from ..reading.words import compounds, words
from ..types import GenerationSettings, Message
from .distill.person import third_person
from .distill.validation import content_stems

MAX_BULLETS = 6  # bullets stored
MODEL_BULLETS = 4  # bullets the model may write (it repeats itself when allowed more)
BULLET_CHARS = 160
MIN_BULLET_WORDS = 3
GROUNDED_SHARE = 0.8  # at least this share of a bullet's content words were said
# Words any summary of a conversation may use without anyone having said them.
SUMMARY_WORDS = frozenset(content_stems(
    "user assistant talked talk asked ask said say told tell mentioned mention discussed discuss shared share "
    "wants want wanted conversation topic topics question questions suggested suggest recommended recommend "
    "plans plan planned planning decided decide agreed agree noted note explained explain thinks think "
    "thought feels feel felt described describe"))


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


_SECTION = re.compile(r"^\[(system|user|assistant)\]\s*$", re.M)


def _prompt(max_bullets: int, previous: str, dialogue: str) -> list[Message]:
    """prompts/summary.txt: `[role]` lines start messages (two worked examples, then the
    conversation); $max_bullets, $previous and $dialogue filled in."""
    text = resources.files("local_agent.prompts").joinpath("summary.txt").read_text("utf-8")
    parts = _SECTION.split(text)[1:]
    values = {"max_bullets": max_bullets, "previous": previous, "dialogue": dialogue}
    return [Message(role, Template(body.strip()).substitute(values))  # type: ignore[arg-type]
            for role, body in zip(parts[::2], parts[1::2])]


def _dialogue(turns: Sequence[Message], per_turn_chars: int = 600) -> str:
    lines = []
    for turn in turns:
        speaker = "User" if turn.role == "user" else "Assistant"
        lines.append(f"{speaker}: {' '.join(turn.content.split())[:per_turn_chars]}")
    return "\n".join(lines)


def _first_sentence(text: str) -> str:
    sentence = re.split(r"(?<=[.!?])\s", " ".join(text.split()), maxsplit=1)[0]
    return sentence[:BULLET_CHARS]


def _rule_bullet(text: str) -> str:
    """A user's turn in one line about the user: its statements about themself in the third
    person, or what it asked, or its first sentence."""
    clauses = split_clauses(" ".join(text.split()))
    stated = [third_person(c.text).rstrip(".") for c in clauses if c.first_person_statement]
    if stated:
        return ("; ".join([stated[0], *(s[:1].lower() + s[1:] for s in stated[1:3])]) + ".")[:BULLET_CHARS]
    if clauses and clauses[0].act in ("question", "request"):
        return f"The user asked: {clauses[0].text}"[:BULLET_CHARS]
    return f"The user said: {_first_sentence(text)}"


def extractive_bullets(turns: Sequence[Message]) -> list[str]:
    """What the user said, a line a turn (small talk left out): used when the model's bullets
    are unusable."""
    return [_rule_bullet(t.content) for t in turns
            if t.role == "user" and t.content.strip() and not is_small_talk(words(t.content))]


def _covered(message: str, bullets: Sequence[str]) -> bool:
    """Whether the bullets say at least half of what the message's statements do."""
    said = content_stems(message) - SUMMARY_WORDS
    return not said or len(said & content_stems(" ".join(bullets))) * 2 >= len(said)


def grounded_bullet(bullet: str, said: set[str]) -> bool:
    """Whether `bullet` carries content words of the conversation whose content stems are
    `said`, and little else (the module's definition)."""
    stems = content_stems(bullet) - SUMMARY_WORDS
    if sum(1 for _ in compounds(bullet)) < MIN_BULLET_WORDS or not stems:
        return False
    return len(stems & said) >= GROUNDED_SHARE * len(stems)


_ABOUT_ASSISTANT = re.compile(r"^\W*(?:the )?assistant\b", re.IGNORECASE)
_ABOUT_USER = re.compile(r"^\W*(?:the )?user(?:'s)?\b", re.IGNORECASE)


def grounded_bullets(bullets: Sequence[str], turns: Sequence[Message], previous: str = "") -> list[str]:
    """The grounded bullets, each once. A bullet about the user is grounded in what the user
    said, one about the assistant in what it said, any other in the whole conversation (and
    each in the earlier summary): "The user welcomed Keiko" after the assistant's "Welcome,
    Keiko!" is not."""
    said = {role: content_stems(" ".join([previous, *(t.content for t in turns if t.role == role)]))
            for role in ("user", "assistant")}
    everything = said["user"] | said["assistant"]
    kept: list[str] = []
    for bullet in bullets:
        source = (said["user"] if _ABOUT_USER.match(bullet) else said["assistant"] if _ABOUT_ASSISTANT.match(bullet)
                  else everything)
        if grounded_bullet(bullet, source) and bullet.lower() not in (b.lower() for b in kept):
            kept.append(bullet)
    return kept


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
        """The previous summary and `turns` as at most `max_bullets` bullets (`bullets`)."""
        return self._cap("\n".join(f"- {b}" for b in self.bullets(previous, turns)[1]))

    def bullets(self, previous: str, turns: Sequence[Message]) -> tuple[list[str], list[str]]:
        """The model's bullets as written, and the bullets kept: its grounded ones, then the
        rule's for each user turn they leave out (the previous summary's when nothing is left)."""
        proposed = self.propose(previous, turns)
        kept = grounded_bullets(proposed, turns, previous)
        kept += [_rule_bullet(turn.content) for turn in turns
                 if turn.role == "user" and turn.content.strip() and not is_small_talk(words(turn.content))
                 and not _covered(turn.content, kept)]
        kept = kept or [b.lstrip("-• ") for b in previous.splitlines() if b.strip()]
        return proposed, kept[: self.max_bullets]

    def propose(self, previous: str, turns: Sequence[Message]) -> list[str]:
        """The model's bullets, as it wrote them (unchecked)."""
        fixed = _prompt(min(self.max_bullets, MODEL_BULLETS), "", "")
        room = self.backend.context_size - self._max_tokens() - 64 - self.backend.count_prompt_tokens(fixed)
        previous_text = f"Earlier summary:\n{previous.strip()}\n\n" if previous.strip() else ""
        text = truncate_to_tokens(f"{previous_text}Conversation:\n{_dialogue(turns)}", room, self.backend.count_tokens)
        messages = [*fixed[:-1], Message("user", text)]
        completion = self.backend.generate(
            messages, GenerationSettings(max_tokens=self._max_tokens(), temperature=0.0),
            json_schema=summary_schema(min(self.max_bullets, MODEL_BULLETS)),
        )
        return _parse_bullets(completion.text)

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
