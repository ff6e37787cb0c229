"""The one protocol every runtime implements, and the shared code around it."""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from ..errors import BackendError, ContextOverflowError
from ..types import Completion, GenerationSettings, Message
from .generation import Generation, Usage

T = TypeVar("T")
# Marker-like strings in a chat template, e.g. <|im_start|>, that user text must not forge.
TEMPLATE_MARKER = re.compile(r"<\|[^|\s<>]+\|>")


def check_context(prompt_tokens: int, max_tokens: int, context_size: int) -> None:
    """Raise ContextOverflowError (before generating) when prompt + answer cannot fit."""
    if prompt_tokens + max_tokens > context_size:
        raise ContextOverflowError(
            f"prompt of {prompt_tokens} tokens + max_tokens {max_tokens} exceeds the context window of "
            f"{context_size} tokens; shorten the input, lower --max-tokens or raise --ctx-size"
        )


class Backend(ABC):
    """A loaded chat model. Subclasses own one runtime each and implement `_stream`,
    `count_tokens`, `format_prompt` and `close`; everything else is shared here."""

    name: str = "backend"
    # Whether calls may come from several threads at once (they are then decoded together);
    # otherwise one call at a time, which the caller sees to.
    concurrent: bool = False

    def __init__(self, model_name: str, context_size: int) -> None:
        self.model_name = model_name
        self.context_size = context_size

    # -- what a subclass provides -------------------------------------------------
    @abstractmethod
    def _stream(
        self,
        messages: Sequence[Message],
        settings: GenerationSettings,
        json_schema: dict[str, Any] | None,
        usage: Usage,
    ) -> Iterator[str]:
        """Yield text chunks; set usage.prompt_tokens/completion_tokens/finish_reason.
        Runs only as far as it is consumed: a consumer that stops early closes it."""

    @abstractmethod
    def count_tokens(self, text: str) -> int:
        """Tokens of plain text (no template, no BOS)."""

    @abstractmethod
    def format_prompt(self, messages: Sequence[Message]) -> str:
        """The exact text the model sees: messages through the model's own chat template,
        ending with the assistant turn's opening."""

    @property
    @abstractmethod
    def special_tokens(self) -> list[str]:
        """Control-token strings (e.g. '<|im_start|>') that user text must never contain."""

    def close(self) -> None:
        """Free the runtime's memory. Safe to call twice."""

    def score(self, messages: Sequence[Message], continuations: Sequence[str]) -> list[float]:
        """For each continuation, the mean log-probability per token the model gives it as the
        start of the assistant's answer to `messages` (the templated prompt with the assistant
        turn opened), from the model's own logits: no sampling, no repeat penalty. Higher means
        likelier. A backend without logits raises BackendError."""
        raise BackendError(f"the {self.name} backend cannot score continuations")

    def prepare(self, dialogue: Sequence[Message], cancelled: Callable[[], bool] = lambda: False) -> None:
        """Read ahead the prompt that `dialogue` (system message and turns so far) opens, so that
        the next call evaluates only what it adds; stop early when `cancelled()` turns true.
        Backends that keep no cache between calls have nothing to do."""

    def call(self, job: Callable[[], T]) -> T:
        """Run `job` where this model computes (a backend with a thread of its own runs it
        there, between two steps); here, on the calling thread."""
        return job()

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "model": self.model_name, "context_size": self.context_size}

    # -- shared -------------------------------------------------------------------
    def count_prompt_tokens(self, messages: Sequence[Message]) -> int:
        return self.count_tokens(self.format_prompt(messages))

    def stream(
        self,
        messages: Sequence[Message],
        settings: GenerationSettings,
        json_schema: dict[str, Any] | None = None,
    ) -> Generation:
        """One call, streamed: iterate the Generation for the answer's chunks, then read its
        `result()` for the counts and timings. With `json_schema`, decoding is constrained to
        that schema. Nothing runs until the first chunk is asked for."""
        usage = Usage()
        return Generation(self._stream(messages, settings, json_schema, usage), usage)

    def generate(
        self,
        messages: Sequence[Message],
        settings: GenerationSettings,
        json_schema: dict[str, Any] | None = None,
    ) -> Completion:
        """One call, run to the end."""
        return self.stream(messages, settings, json_schema).result()

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
