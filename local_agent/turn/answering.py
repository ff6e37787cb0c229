"""Streaming the model's answer to the user, kept from echoing an earlier answer and from
repeating the prompt's markup.

A 135M model, shown a dialogue, sometimes answers a new question with an earlier answer word
for word ("where do I live?" -> the answer it gave to "I work as a nurse"). While an answer's
opening repeats one of the dialogue's earlier answers it is held back, not shown; once it has
repeated ECHO_CHARS characters, generation stops and the answer is asked again with the dialogue
left out (system message and the final message with its memories), which it then cannot copy.
An answer that departs from them is shown at once, and a short one (a second "Hello!") is let be.
The "(noted DATE)" the prompt puts after a recalled fact, copied by the model, is left out too.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..backends.base import Backend
from ..types import GenerationSettings, Message
from .result import TokenCounts

if TYPE_CHECKING:
    from .tool_turn import ToolOutcome

ECHO_CHARS = 40  # this much of the previous answer, repeated from its start, is an echo
# The date the prompt puts after a recalled fact ("You like sushi. (noted 2 May 2024)"), which
# the model sometimes copies into its answer: it is the prompt's markup, never the answer's.
NOTED = re.compile(r"\s*\(noted \d{1,2} [A-Z][a-z]+ \d{4}\)")
_NOTED_OPENING = "(noted "
_NOTED_LONGEST = len("(noted 30 September 2024)")


class Answer(NamedTuple):
    text: str
    interrupted: bool
    tokens: TokenCounts
    first_token_at: float  # when the user saw the first of it (perf_counter clock)
    tools: ToolOutcome | None = None


def _plain(text: str) -> str:
    return " ".join(text.split()).lower()


class EchoGuard:
    """Passes an answer's chunks on to `show`, holding them back while the answer so far
    repeats the start of one of the `earlier` answers."""

    def __init__(self, earlier: Sequence[str], show: Callable[[str], None]) -> None:
        self.earlier = [plain for plain in map(_plain, earlier) if plain]
        self.show = show
        self.text = ""
        self.held: list[str] = []
        self.holding = bool(self.earlier)

    def feed(self, chunk: str) -> bool:
        """Take the next chunk; False once the answer is an echo (then nothing held is shown)."""
        self.text += chunk
        if self.holding:
            so_far = _plain(self.text)
            if any(answer.startswith(so_far) for answer in self.earlier):
                self.held.append(chunk)
                return len(so_far) < ECHO_CHARS
            self.holding = False
            chunk, self.held = "".join(self.held) + chunk, []
        self.show(chunk)
        return True

    def finish(self) -> None:
        """The answer ended: show what is still held (it repeated too little to matter)."""
        if self.held:
            self.show("".join(self.held))
            self.held = []


class NotedFilter:
    """Passes text on to `show` without the prompt's "(noted DATE)" markup: from an opening
    parenthesis on, text is held while it may still become one."""

    def __init__(self, show: Callable[[str], None]) -> None:
        self.show = show
        self.held = ""

    def feed(self, chunk: str) -> None:
        text = self.held + chunk
        self.held = ""
        while text:
            start = text.find("(")
            if start < 0:
                break
            blank = len(text[:start]) - len(text[:start].rstrip())
            opening, rest = text[: start - blank], text[start - blank:]
            match = NOTED.match(rest)
            if match:
                self._pass(opening)
                text = rest[match.end():]
                continue
            tail = rest.lstrip()
            if len(tail) < _NOTED_LONGEST and ")" not in tail and (
                    _NOTED_OPENING.startswith(tail) or tail.startswith(_NOTED_OPENING)):
                self._pass(opening)
                self.held = rest  # it may still become the markup
                return
            self._pass(text[: start + 1])
            text = text[start + 1:]
        self._pass(text)

    def finish(self) -> None:
        """The answer ended: what is held was not the markup after all."""
        self._pass(self.held)
        self.held = ""

    def _pass(self, text: str) -> None:
        if text:
            self.show(text)


def stream_answer(backend: Backend, messages: Sequence[Message], settings: GenerationSettings,
                  on_token: Callable[[str], None] | None, timings: dict[str, float], start: float,
                  *, earlier: Sequence[str] = ()) -> Answer:
    """Stream the answer to `messages` to `on_token`; Ctrl-C stops it and keeps what was said.
    With `earlier` (the dialogue's answers to other messages), an echo of one is asked again
    without the dialogue; the prompt's "(noted DATE)" markup is left out of what is shown and
    kept. `timings` gets first_token_s (when the user saw it), model_first_token_s (when the
    model gave its first text, which a held echo shows later), generation_s and answer_s."""
    generation_start = time.perf_counter()
    shown: list[float] = []
    said: list[str] = []  # what the user saw: the answer as kept

    def show(chunk: str) -> None:
        if not shown:
            shown.append(time.perf_counter())
            timings["first_token_s"] = shown[0] - start
        said.append(chunk)
        if on_token:
            on_token(chunk)

    unnoted = NotedFilter(show)
    guard = EchoGuard(earlier, unnoted.feed)
    interrupted = echoed = False
    stream = backend.stream(messages, settings)
    try:
        for chunk in stream:
            timings.setdefault("model_first_token_s", time.perf_counter() - start)
            if not guard.feed(chunk):
                echoed = True
                break
    except KeyboardInterrupt:
        interrupted = True
    stream.close()
    if echoed and len(messages) > 2:
        timings["echo_retry_s"] = time.perf_counter() - generation_start  # the attempt thrown away
        return stream_answer(backend, [messages[0], messages[-1]], settings, on_token, timings, start)
    guard.finish()
    unnoted.finish()
    timings["generation_s"] = time.perf_counter() - generation_start
    completion = stream.result()  # finished or closed by now: reads no further
    timings["answer_s"] = time.perf_counter() - start
    tokens = TokenCounts(completion.prompt_tokens, completion.completion_tokens)
    return Answer("".join(said).strip(), interrupted, tokens, shown[0] if shown else 0.0)
