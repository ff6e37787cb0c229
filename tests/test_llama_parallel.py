"""Batched decoding (backends/llama_parallel.py, llama_engine.py, llama_sequence.py) on the real
model: one request alone decodes as the single backend does, several at once each keep their
own settings, slots are freed, prefixes copied, prompts read in chunks, saved states reused."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from local_agent.backends.llama_cpp import LlamaCppBackend
from local_agent.backends.llama_parallel import ParallelLlamaBackend, parallel_backend
from local_agent.backends.llama_sequence import TextOut
from local_agent.memory.distill.distiller import DEFAULT_MAX_TOKENS, distill_schema, load_prompt
from local_agent.types import Completion, GenerationSettings, Message
from tests.fakes import ScriptedBackend

SYSTEM = Message("system", "You are a helpful assistant who answers in one or two sentences. "
                           "Today is Wednesday, 1 May 2024.")
QUESTIONS = ["What is the capital of France?", "Name three fruits.", "Write a haiku about rain.",
             "What is two plus two?", "Say hello in Spanish.", "Why is the sky blue?"]
SCHEMA = {"type": "object", "properties": {"fruit": {"type": "string"}, "count": {"type": "integer"}},
          "required": ["fruit", "count"]}


def chat(question: str) -> list[Message]:
    return [SYSTEM, Message("user", question)]


@pytest.fixture(scope="module")
def single(default_gguf: Path) -> Iterator[LlamaCppBackend]:
    backend = LlamaCppBackend(default_gguf, model_name="smollm2", context_size=2048, threads=2)
    yield backend
    backend.close()


@pytest.fixture(scope="module")
def parallel(default_gguf: Path) -> Iterator[ParallelLlamaBackend]:
    backend = ParallelLlamaBackend(
        LlamaCppBackend(default_gguf, model_name="smollm2", context_size=2048, threads=2), 4, chunk=32)
    yield backend
    backend.close()


def at_once(backend: ParallelLlamaBackend, calls: list[tuple[list[Message], GenerationSettings]]) -> list[Completion]:
    """Each call on a thread of its own, all started together."""
    results: list[Completion | None] = [None] * len(calls)

    def run(index: int) -> None:
        messages, settings = calls[index]
        results[index] = backend.generate(messages, settings)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert all(result is not None for result in results)
    return [result for result in results if result is not None]


@pytest.mark.model
@pytest.mark.parametrize("settings", [
    GenerationSettings(max_tokens=24, repeat_penalty=1.1),
    GenerationSettings(max_tokens=24, repeat_penalty=1.0, stop=("\n", ".")),
    GenerationSettings(max_tokens=24, temperature=0.8, seed=7),
], ids=["greedy-penalty", "stops", "sampled"])
def test_one_request_at_a_time_decodes_as_the_single_backend(single: LlamaCppBackend, parallel: ParallelLlamaBackend,
                                                             settings: GenerationSettings) -> None:
    for question in QUESTIONS[:3]:
        alone = single.generate(chat(question), settings)
        batched = parallel.generate(chat(question), settings)
        assert (batched.text, batched.finish_reason, batched.completion_tokens, batched.prompt_tokens) == \
            (alone.text, alone.finish_reason, alone.completion_tokens, alone.prompt_tokens)


@pytest.mark.model
def test_constrained_json_decodes_as_the_single_backend(single: LlamaCppBackend,
                                                       parallel: ParallelLlamaBackend) -> None:
    messages = load_prompt().messages("I keep bees on the roof of my flat in Oslo.")
    settings = GenerationSettings(max_tokens=DEFAULT_MAX_TOKENS)
    alone = single.generate(messages, settings, json_schema=distill_schema())
    batched = parallel.generate(messages, settings, json_schema=distill_schema())
    assert (batched.text, batched.completion_tokens, batched.finish_reason) == \
        (alone.text, alone.completion_tokens, alone.finish_reason)
    json.loads(batched.text)


@pytest.mark.model
def test_greedy_answers_at_once_are_the_answers_alone(single: LlamaCppBackend, parallel: ParallelLlamaBackend) -> None:
    """Six prompts (one over the 32-token chunk, so read while others answer) on 4 slots: each
    answer is the single backend's, token for token (llama_engine.py: lone tokens and chunks
    are decoded apart, so every token meets the kernels it meets alone)."""
    settings = GenerationSettings(max_tokens=40, repeat_penalty=1.1)
    calls = [(chat(question), settings) for question in QUESTIONS]
    calls[2] = ([Message("system", "Read this. " + "The keeper climbs the stairs. " * 12), *chat(QUESTIONS[2])[1:]],
                settings)
    alone = [single.generate(messages, settings) for messages, settings in calls]
    together = at_once(parallel, calls)
    assert [(c.text, c.completion_tokens) for c in together] == [(c.text, c.completion_tokens) for c in alone]


@pytest.mark.model
def test_requests_at_once_each_keep_their_own_settings(parallel: ParallelLlamaBackend) -> None:
    calls = [(chat(question), GenerationSettings(max_tokens=4 + 3 * index, repeat_penalty=1.1))
             for index, question in enumerate(QUESTIONS)]
    calls.append((chat("List three colours, one per line."), GenerationSettings(max_tokens=40, stop=("\n",))))
    steps = parallel.engine.stats.steps
    results = at_once(parallel, calls)
    for (_, settings), result in zip(calls, results):
        assert result.text.strip()
        assert result.completion_tokens <= settings.max_tokens + 1
        assert result.finish_reason in ("stop", "length")
    assert "\n" not in results[-1].text and results[-1].finish_reason == "stop"
    # 7 requests of up to 40 tokens on 4 slots took far fewer decode steps than one by one
    assert parallel.engine.stats.steps - steps < sum(result.completion_tokens for result in results)
    assert parallel.engine.busy == 0


@pytest.mark.model
def test_json_under_a_grammar_at_once_with_free_answers(parallel: ParallelLlamaBackend) -> None:
    messages = [SYSTEM, Message("user", "Give me a fruit and a count as JSON.")]
    answers: list[Completion] = []
    threads = [threading.Thread(target=lambda: answers.append(parallel.generate(
        messages, GenerationSettings(max_tokens=60), json_schema=SCHEMA))) for _ in range(2)]
    for thread in threads:
        thread.start()
    free = at_once(parallel, [(chat(question), GenerationSettings(max_tokens=20)) for question in QUESTIONS[:2]])
    for thread in threads:
        thread.join(timeout=300)
    assert len(answers) == 2 and all(result.text for result in free)
    for answer in answers:
        jsonschema.validate(json.loads(answer.text), SCHEMA)


@pytest.mark.model
def test_a_caller_that_leaves_frees_its_slot(parallel: ParallelLlamaBackend) -> None:
    stream = parallel.stream(chat("Tell me a long story about a lighthouse keeper."),
                             GenerationSettings(max_tokens=1000))
    next(stream)
    stream.close()
    deadline = time.monotonic() + 30
    while parallel.engine.busy and time.monotonic() < deadline:
        time.sleep(0.05)
    assert parallel.engine.busy == 0
    results = at_once(parallel, [(chat(question), GenerationSettings(max_tokens=8)) for question in QUESTIONS[:4]])
    assert all(result.text for result in results)


@pytest.mark.model
def test_the_shared_system_prompt_is_copied_not_read_again(parallel: ParallelLlamaBackend) -> None:
    """A request whose slot's cache holds another prompt gets the system prompt from the slot
    that holds it, while that slot is still answering."""
    long_system = Message("system", "You are a careful assistant. " * 40)
    stream = parallel.stream([long_system, Message("user", "Tell me a long story.")],
                             GenerationSettings(max_tokens=200))
    next(stream)  # its prompt is read: its slot holds the system prompt
    stats = parallel.engine.stats
    copied, evaluated = stats.copied_tokens, stats.prompt_tokens
    answer = parallel.generate([long_system, Message("user", "Name a colour.")], GenerationSettings(max_tokens=4))
    stream.close()
    assert stats.copied_tokens - copied > 200
    assert stats.prompt_tokens - evaluated < 40
    assert answer.text


@pytest.mark.model
def test_a_long_prompt_is_read_in_chunks_while_others_answer(parallel: ParallelLlamaBackend) -> None:
    """With chunk=32, a 1,000-token prompt joins a running answer 32 tokens a step (33 where 32
    would leave one token alone): the answer goes on between them."""
    stream = parallel.stream(chat("Tell me a long story about a lighthouse keeper."),
                             GenerationSettings(max_tokens=300))
    next(stream)
    long_prompt = [Message("system", "Read this. " + "The keeper climbs the stairs. " * 160),
                   Message("user", "Summarize.")]
    steps = parallel.engine.stats.steps
    parallel.generate(long_prompt, GenerationSettings(max_tokens=2))
    chunks = sum(1 for _ in zip(range(5), stream))
    stream.close()
    assert parallel.engine.stats.most_prompt_tokens_in_a_step <= 33  # a chunk takes one more rather than leave one
    assert parallel.engine.stats.steps - steps >= 1000 // 32
    assert chunks == 5


@pytest.mark.model
def test_a_saved_system_prompt_state_is_loaded_by_the_next_engine(default_gguf: Path, tmp_path: Path) -> None:
    messages = [Message("system", "You are a careful assistant. " * 10), Message("user", "Name a colour.")]
    settings = GenerationSettings(max_tokens=6)
    answers, loaded = [], []
    for _ in range(2):
        base = LlamaCppBackend(default_gguf, model_name="smollm2", context_size=2048, threads=2, state_dir=tmp_path)
        backend = ParallelLlamaBackend(base, 2)
        try:
            answers.append(backend.generate(messages, settings).text)
            loaded.append(backend.engine.stats.loaded_tokens)
        finally:
            backend.close()
    assert len(list(tmp_path.glob("*.state"))) == 1
    assert loaded[0] == 0 and loaded[1] > 50
    assert answers[0] == answers[1]


@pytest.mark.model
def test_parallel_backend_only_wraps_llama_cpp(default_gguf: Path, scripted: ScriptedBackend) -> None:
    assert parallel_backend(scripted, 4) is scripted
    base = LlamaCppBackend(default_gguf, model_name="smollm2", context_size=2048, threads=2)
    assert parallel_backend(base, 1) is base
    with parallel_backend(base, 2) as wrapped:
        assert wrapped.concurrent and isinstance(wrapped, ParallelLlamaBackend)


# -- the text of a sequence, without a model -------------------------------------------------
def _out(stops: tuple[str, ...]) -> tuple[TextOut, list[str]]:
    sent: list[str] = []
    return TextOut(stops, sent.append), sent


def test_text_is_held_back_while_it_may_start_a_stop_string() -> None:
    out, sent = _out(("</end>",))
    assert not out.add(b"Hello </")
    assert "".join(sent) == "Hello "
    assert not out.add(b"b> world")
    assert "".join(sent) == "Hello </b> world"
    assert out.add(b" </en") is False and out.add(b"d> more")
    out.finish()
    assert "".join(sent) == "Hello </b> world "


def test_a_stop_string_within_one_piece_ends_the_text_before_it() -> None:
    out, sent = _out(("\n",))
    assert out.add(b"one line:\nanother")
    out.finish()
    assert sent == ["one line:"]


def test_a_character_split_between_pieces_leaves_whole() -> None:
    out, sent = _out(())
    snowman = "☃".encode()
    out.add(snowman[:1])
    out.add(snowman[1:])
    out.finish()
    assert sent == ["☃"]


def test_chunks_keep_a_token_alone_only_where_the_single_backend_does():
    from local_agent.backends.llama_sequence import chunk_size

    def chunks(pending: int, budget: int) -> list[int]:
        lone, sizes = pending % 512 == 1, []
        while pending:
            sizes.append(chunk_size(pending, budget, lone_last=lone))
            pending -= sizes[-1]
        return sizes

    assert chunks(300, 128) == [128, 128, 44]
    assert chunks(129, 128) == [129]  # not 128 then one alone
    assert chunks(130, 128) == [128, 2]
    assert chunks(513, 128) == [128, 128, 128, 128, 1]  # the single backend: 512, then 1 alone
    assert chunks(1, 128) == [1]
    assert all(size >= 2 for size in chunks(1000, 32))
