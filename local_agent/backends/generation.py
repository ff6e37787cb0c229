"""One model call as an object: stream it, stop it, or read what it came to.

Like `llm`'s Response: iterate a `Generation` to get the answer's text chunks as the model
writes them; `result()` finishes it and returns the `Completion` with its text, token counts,
finish reason and timings. Everything a call produced lives on its own object, so two calls
on one backend (the answer and the distiller, say) never read each other's numbers.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass

from ..types import Completion


@dataclass
class Usage:
    """What a runtime reports about one call while it streams: it sets the prompt's tokens
    before the first chunk and the answer's tokens and finish reason when it ends."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"


class Generation(Iterator[str]):
    """A model call, started on the first chunk asked for. Iterate it once; `close()` stops it
    mid-stream (the runtime stops generating and releases what it holds), after which
    `result()` describes what was written so far."""

    def __init__(self, chunks: Iterator[str], usage: Usage) -> None:
        self._chunks = chunks  # the runtime's generator, filling `usage` as it goes
        self._usage = usage
        self._parts: list[str] = []
        self._start: float | None = None
        self._first_token_s = 0.0
        self._completion: Completion | None = None

    @property
    def done(self) -> bool:
        return self._completion is not None

    def __iter__(self) -> Generation:
        return self

    def __next__(self) -> str:
        if self._completion is not None:
            raise StopIteration
        if self._start is None:
            self._start = time.perf_counter()
        try:
            chunk = next(self._chunks)
        except BaseException:  # the end (StopIteration), a runtime error or Ctrl-C
            self._finish()
            raise
        if not self._parts:
            self._first_token_s = time.perf_counter() - self._start
        self._parts.append(chunk)
        return chunk

    def close(self) -> None:
        """Stop generating now. Safe to call at any point, and twice."""
        close = getattr(self._chunks, "close", None)  # a generator stops and releases what it holds
        if close is not None:
            close()
        self._finish()

    def result(self) -> Completion:
        """The finished call, streaming whatever is left first."""
        for _ in self:
            pass
        return self._finish()

    def text(self) -> str:
        """The whole answer, streaming whatever is left first."""
        return self.result().text

    def _finish(self) -> Completion:
        """Seal the call's record, once."""
        if self._completion is None:
            usage = self._usage
            total = time.perf_counter() - self._start if self._start is not None else 0.0
            self._completion = Completion(
                text="".join(self._parts), prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens, finish_reason=usage.finish_reason,
                first_token_s=self._first_token_s, total_s=total,
            )
        return self._completion
