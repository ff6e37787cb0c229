"""A scripted model for unit tests: replays queued answers and records every prompt."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

from local_agent.backends.base import Backend
from local_agent.backends.generation import Usage
from local_agent.backends.probe import BackendChoice
from local_agent.config import Settings
from local_agent.types import Message


class ScriptedBackend(Backend):
    """Answers from a queue (a default when empty); `prompts` keeps each call's messages and
    `schemas` the JSON schema it was constrained to (None when free text)."""

    name = "scripted"

    def __init__(self, replies: Sequence[str] = (), default: str = "OK.", context_size: int = 2048):
        super().__init__(model_name="scripted", context_size=context_size)
        self.replies = list(replies)
        self.default = default
        self.prompts: list[list[Message]] = []
        self.schemas: list[dict[str, Any] | None] = []

    def queue(self, *replies: str) -> None:
        self.replies.extend(replies)

    def _stream(self, messages, settings, json_schema, usage: Usage) -> Iterator[str]:
        self.prompts.append(list(messages))
        self.schemas.append(json_schema)
        reply = self.replies.pop(0) if self.replies else self.default
        usage.prompt_tokens = self.count_prompt_tokens(messages)
        words = reply.split(" ")
        for index, word in enumerate(words):
            yield word if index == 0 else " " + word
        usage.completion_tokens = len(words)

    def count_tokens(self, text: str) -> int:
        # Roughly a token per 4 characters, like real BPE vocabularies on English.
        return (len(text) + 3) // 4

    def format_prompt(self, messages: Sequence[Message]) -> str:
        body = "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages)
        return body + "<|im_start|>assistant\n"

    @property
    def special_tokens(self) -> list[str]:
        return ["<|im_start|>", "<|im_end|>", "<|endoftext|>"]


class ScriptedFactory:
    """A backend factory (app.BackendFactory) that hands out one scripted backend for every
    model asked for."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def __call__(self, settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]:
        return self.backend, BackendChoice(backend="scripted", device="cpu", reason="test")


def scripted_cli_obj(backend: Backend | None) -> dict[str, Any] | None:
    """The context object that makes the command line load `backend` (None: the real loader)."""
    return None if backend is None else {"backend_factory": ScriptedFactory(backend)}


class ConcurrentEcho(ScriptedBackend):
    """A scripted model that takes calls from several threads at once (as the batched llama.cpp
    backend does) and answers each with its last message, quoted; `most_at_once` is the largest
    number of calls it had under way together. Each word takes `word_s` seconds."""

    concurrent = True

    def __init__(self, word_s: float = 0.002) -> None:
        super().__init__()
        self.word_s = word_s
        self.most_at_once = 0
        self._under_way = 0
        self._lock = threading.Lock()

    def _stream(self, messages, settings, json_schema, usage: Usage) -> Iterator[str]:
        with self._lock:
            self.prompts.append(list(messages))
            self.schemas.append(json_schema)
            self._under_way += 1
            self.most_at_once = max(self.most_at_once, self._under_way)
        try:
            usage.prompt_tokens = self.count_prompt_tokens(messages)
            words = f"You said: {messages[-1].content.splitlines()[-1]}".split(" ")
            for index, word in enumerate(words):
                time.sleep(self.word_s)
                yield word if index == 0 else " " + word
            usage.completion_tokens = len(words)
        finally:
            with self._lock:
                self._under_way -= 1
