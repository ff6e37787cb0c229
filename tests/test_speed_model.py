"""The speed levers on the REAL default model leave greedy answers as they were: a saved system
prompt state loaded in a new backend, and the thread count the backend picks."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from local_agent.backends.base import Backend
from local_agent.backends.llama_cpp import LlamaCppBackend
from local_agent.types import GenerationSettings, Message

pytestmark = pytest.mark.model

SYSTEM = ("You are a concise, helpful assistant running privately on the user's computer. Answer briefly. "
          "Today is 2026-11-30.")
QUESTIONS = ("What should I cook for dinner tonight?", "Write a haiku about a rainy Monday.")
GREEDY = GenerationSettings(max_tokens=24, temperature=0.0)


def answers(backend: Backend) -> list[str]:
    return [backend.generate([Message("system", SYSTEM), Message("user", q)], GREEDY).text for q in QUESTIONS]


def backend(gguf: Path, *, threads: int, state_dir: Path | None = None, context_size: int = 2048) -> LlamaCppBackend:
    return LlamaCppBackend(gguf, model_name="default", context_size=context_size, threads=threads,
                           state_dir=state_dir)


def test_a_saved_system_prompt_state_gives_the_same_answers(default_gguf: Path, tmp_path: Path):
    folder = tmp_path / "cache" / "llama-state"
    with backend(default_gguf, threads=2) as plain:
        expected = answers(plain)
    with backend(default_gguf, threads=2, state_dir=folder) as first:
        assert answers(first) == expected  # evaluated, then saved
    saved = list(folder.glob("*.state"))
    assert len(saved) == 1 and saved[0].stat().st_mode & 0o777 == 0o600
    os.utime(saved[0], ns=(10**9, 10**9))
    with backend(default_gguf, threads=2, state_dir=folder) as second:
        assert answers(second) == expected
    assert list(folder.glob("*.state")) == saved
    assert saved[0].stat().st_mtime_ns > 10**9  # loaded (a load marks it used)


def test_a_damaged_state_is_evaluated_again(default_gguf: Path, tmp_path: Path):
    folder = tmp_path / "states"
    with backend(default_gguf, threads=2, state_dir=folder) as first:
        expected = answers(first)
    path = next(folder.glob("*.state"))
    path.write_bytes(path.read_bytes()[:-100])
    with backend(default_gguf, threads=2, state_dir=folder) as second:
        assert answers(second) == expected
    assert path.stat().st_size > 100_000  # saved again, whole


@pytest.mark.parametrize("state", [b"", b"\0" * 4096, bytes(range(256)) * 64, "half"])
def test_a_state_llama_cpp_refuses_is_evaluated_again(default_gguf: Path, tmp_path: Path, state: bytes | str):
    """A file whose checksum holds but whose state llama.cpp cannot read (garbage, or a real
    state cut short): refused, and the prompt is evaluated as if there were none."""
    folder = tmp_path / "states"
    with backend(default_gguf, threads=2, state_dir=folder) as first:
        expected = answers(first)
    path = next(folder.glob("*.state"))
    magic, key, _, saved = path.read_bytes().split(b"\n", 3)
    payload = saved[: len(saved) // 2] if state == "half" else state
    assert isinstance(payload, bytes)
    path.write_bytes(b"\n".join([magic, key, hashlib.sha256(payload).hexdigest().encode(), payload]))
    with backend(default_gguf, threads=2, state_dir=folder) as second:
        assert answers(second) == expected


def test_greedy_answers_do_not_depend_on_the_thread_count(default_gguf: Path):
    with backend(default_gguf, threads=1) as one:
        expected = answers(one)
    with backend(default_gguf, threads=2) as two:
        assert answers(two) == expected
    with backend(default_gguf, threads=0) as auto:  # follows the free cores, switching mid-answer
        assert auto.describe()["threads_follow_load"] is True
        assert answers(auto) == expected


def test_reading_the_dialogue_ahead_leaves_only_the_new_message_and_the_same_answer(default_gguf: Path):
    """After `prepare`, the KV cache holds the opening every next prompt of the dialogue shares
    (up to the new user message), and the answer is the one a fresh backend gives."""
    dialogue = [Message("system", SYSTEM), Message("user", QUESTIONS[0]), Message("assistant", "Try a lentil soup.")]
    following = [*dialogue, Message("user", "And for dessert?")]
    with backend(default_gguf, threads=2) as fresh:
        expected = fresh.generate(following, GREEDY).text
    ahead = backend(default_gguf, threads=2)
    with ahead:
        ahead.generate([Message("system", SYSTEM), Message("user", "Something else entirely")], GREEDY)
        ahead.prepare(dialogue)
        tokens = ahead._prompt_tokens(ahead.format_prompt(following))
        cached = ahead._llm.n_tokens
        assert cached > len(ahead._prompt_tokens(ahead.format_prompt(dialogue[:1])))  # the dialogue is in
        assert list(ahead._llm.input_ids[:cached]) == tokens[:cached]
        assert len(tokens) - cached <= ahead.count_tokens("And for dessert?") + 8  # the message and markup
        assert ahead.generate(following, GREEDY).text == expected


def test_reading_ahead_stops_when_cancelled(default_gguf: Path):
    long_dialogue = [Message("system", SYSTEM), Message("user", "word " * 600), Message("assistant", "OK.")]
    ahead = backend(default_gguf, threads=2)
    with ahead:
        ahead.prepare(long_dialogue, cancelled=lambda: True)
        assert ahead._llm.n_tokens == 0
