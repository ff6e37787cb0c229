"""One model call, one result: the generation object on a scripted model, and the one list of
backend names that config, the CLI, the probe and the registry share."""

from __future__ import annotations

import click
import pytest

from local_agent.backends.probe import HardwareInfo, choose_backend
from local_agent.backends.registry import LOADERS
from local_agent.cli.options import COMMON_OPTIONS
from local_agent.config import Settings, _validate
from local_agent.errors import BackendError, ConfigError
from local_agent.models import ModelSpec
from local_agent.types import BACKEND_NAMES, GenerationSettings, Message
from tests.fakes import ScriptedBackend

HI = [Message("user", "Hi")]
SETTINGS = GenerationSettings(max_tokens=32)


class ReleasingBackend(ScriptedBackend):
    """Notes when its stream lets go of what it holds (as llama.cpp's stream does on close)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.released = 0

    def _stream(self, messages, settings, json_schema, usage):
        try:
            yield from super()._stream(messages, settings, json_schema, usage)
        finally:
            self.released += 1


def test_iterating_streams_the_chunks_and_the_result_carries_the_usage() -> None:
    backend = ScriptedBackend(["one two three"])
    stream = backend.stream(HI, SETTINGS)
    assert not backend.prompts  # nothing runs before the first chunk is asked for
    assert list(stream) == ["one", " two", " three"] and stream.done
    result = stream.result()
    assert result.text == "one two three" and stream.text() == result.text
    assert result.prompt_tokens == backend.count_prompt_tokens(HI) and result.completion_tokens == 3
    assert result.finish_reason == "stop" and 0 < result.first_token_s <= result.total_s


def test_result_finishes_a_stream_not_yet_read() -> None:
    backend = ScriptedBackend(["all of it"])
    assert backend.stream(HI, SETTINGS).result().text == "all of it"
    assert backend.generate(HI, SETTINGS).text == "OK."


def test_two_calls_on_one_backend_keep_their_own_numbers() -> None:
    backend = ScriptedBackend(["a b c d", "e"])
    first, second = backend.stream(HI, SETTINGS), backend.stream(HI * 3, SETTINGS)
    next(first)
    assert second.result().completion_tokens == 1
    assert first.result().completion_tokens == 4 and first.result().text == "a b c d"
    assert first.result().prompt_tokens < second.result().prompt_tokens


def test_closing_mid_stream_releases_the_runtime_and_keeps_what_was_written() -> None:
    backend = ReleasingBackend(["one two three four"])
    stream = backend.stream(HI, SETTINGS)
    assert next(stream) == "one" and next(stream) == " two"
    stream.close()
    assert backend.released == 1 and stream.done
    assert list(stream) == [] and stream.result().text == "one two"
    stream.close()  # twice is fine
    assert backend.released == 1


class FailingBackend(ScriptedBackend):
    """Writes one word, then its runtime fails."""

    def _stream(self, messages, settings, json_schema, usage):
        usage.prompt_tokens = 7
        yield "partial"
        raise BackendError("generation failed")


def test_a_runtime_error_reaches_the_reader_and_ends_the_generation() -> None:
    stream = FailingBackend().stream(HI, SETTINGS)
    assert next(stream) == "partial"
    with pytest.raises(BackendError, match="generation failed"):
        next(stream)
    assert stream.done and list(stream) == []
    assert (stream.result().text, stream.result().prompt_tokens) == ("partial", 7)


def test_every_backend_name_has_a_loader_and_is_accepted_everywhere() -> None:
    assert tuple(LOADERS) == BACKEND_NAMES
    choice = next(kw["type"] for decls, kw in COMMON_OPTIONS if decls == ("--backend",))
    assert isinstance(choice, click.Choice) and list(choice.choices) == ["auto", *BACKEND_NAMES]
    for name in BACKEND_NAMES:
        _validate(Settings(backend=name))
    with pytest.raises(ConfigError, match="choose auto, llama-cpp, transformers, transformers-4bit"):
        _validate(Settings(backend="vllm"))
    with pytest.raises(BackendError, match="choose auto, llama-cpp, transformers, transformers-4bit"):
        choose_backend(HardwareInfo(cpu_cores=2, ram_gb=8.0), ModelSpec("x", None, None, 1024), "vllm")
