"""A backend loaded the first time it is asked for text.

The distiller has a llama.cpp instance of its own (app.py), but most turns never call it: its
rules and gate decide without the model (a "hi", a question). Loading that second instance up
front cost every one-shot `ask` with memory a model load.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..types import GenerationSettings, Message
from .base import Backend
from .generation import Usage


class LazyBackend(Backend):
    """`load()` run once, on first use; every call then goes to what it returned. `model_name`
    and `context_size` are known before (the chat model's, for the same model)."""

    def __init__(self, load: Callable[[], Backend], *, model_name: str, context_size: int) -> None:
        super().__init__(model_name, context_size)
        self.name = "lazy"
        self._load = load
        self._loaded: Backend | None = None
        self._lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._loaded is not None

    def get(self) -> Backend:
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    self._loaded = self._load()
                    self.name = self._loaded.name
        return self._loaded

    def _stream(self, messages: Sequence[Message], settings: GenerationSettings, json_schema: dict[str, Any] | None,
                usage: Usage) -> Iterator[str]:
        return self.get()._stream(messages, settings, json_schema, usage)

    def count_tokens(self, text: str) -> int:
        return self.get().count_tokens(text)

    def format_prompt(self, messages: Sequence[Message]) -> str:
        return self.get().format_prompt(messages)

    @property
    def special_tokens(self) -> list[str]:
        return self.get().special_tokens

    def score(self, messages: Sequence[Message], continuations: Sequence[str]) -> list[float]:
        return self.get().score(messages, continuations)

    def prepare(self, dialogue: Sequence[Message], cancelled: Callable[[], bool] = lambda: False) -> None:
        self.get().prepare(dialogue, cancelled)

    def describe(self) -> dict[str, Any]:
        return self.get().describe()

    def close(self) -> None:
        with self._lock:
            loaded, self._loaded = self._loaded, None
        if loaded is not None:
            loaded.close()
