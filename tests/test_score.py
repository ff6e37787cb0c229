"""Backend.score: the mean log-probability per token of a continuation, from the model's logits
(llama.cpp, transformers, the parallel backend), and the llama.cpp grammar cache's bound."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from local_agent.backends.grammar_cache import GrammarCache
from local_agent.backends.llama_cpp import LlamaCppBackend
from local_agent.backends.llama_parallel import ParallelLlamaBackend
from local_agent.errors import BackendError
from local_agent.types import Message
from tests.fakes import ScriptedBackend

NOTES = [Message("system", "Notes from memory: You are a bus driver in Leeds. Your son Yaw turned 9 today."),
         Message("user", "What do I do for work?")]


@pytest.fixture(scope="module")
def single(default_gguf: Path) -> Iterator[LlamaCppBackend]:
    backend = LlamaCppBackend(default_gguf, model_name="smollm2", context_size=2048, threads=2)
    yield backend
    backend.close()


@pytest.mark.model
def test_the_real_model_ranks_the_right_continuation_first(single: LlamaCppBackend) -> None:
    right, wrong = single.score(NOTES, ["You are a bus driver.", "You are a pineapple."])
    assert right > wrong
    capital = [Message("user", "What is the capital of France?")]
    paris, banana = single.score(capital, ["The capital of France is Paris.", "The capital of France is banana."])
    assert paris > banana


@pytest.mark.model
def test_scores_do_not_depend_on_what_was_scored_before(single: LlamaCppBackend) -> None:
    alone = single.score(NOTES, ["You are a bus driver."])
    single.score([Message("user", "Something else entirely, a long way off.")], ["Yes."])
    again = single.score(NOTES, ["You are a pineapple.", "You are a bus driver."])
    assert again[1] == pytest.approx(alone[0], abs=1e-4)
    assert all(value < 0 for value in again)


@pytest.mark.model
def test_an_empty_continuation_is_a_clear_error(single: LlamaCppBackend) -> None:
    with pytest.raises(BackendError, match="empty continuation"):
        single.score(NOTES, [""])


@pytest.mark.model
def test_the_parallel_backend_gives_the_wrapped_backends_scores(default_gguf: Path, single: LlamaCppBackend) -> None:
    continuations = ["You are a bus driver.", "You are a pineapple."]
    parallel = ParallelLlamaBackend(LlamaCppBackend(default_gguf, model_name="smollm2", context_size=2048,
                                                    threads=2), 2)
    try:
        assert parallel.score(NOTES, continuations) == pytest.approx(single.score(NOTES, continuations), abs=1e-4)
    finally:
        parallel.close()


def test_a_tiny_transformers_model_scores_every_continuation(tmp_path: Path) -> None:
    from local_agent.backends.hf import TransformersBackend
    from local_agent.bench.model_shapes import random_weight_folder
    from tests.tiny_models import SHAPES, TOKENIZER_SOURCE

    folder = random_weight_folder(SHAPES["llama"], TOKENIZER_SOURCE, tmp_path / "tiny")
    backend = TransformersBackend(folder, model_name="tiny", context_size=512)
    try:
        scores = backend.score(NOTES, ["You are a bus driver.", "No.", "Yaw is 9 years old."])
        assert len(scores) == 3 and all(math.isfinite(value) and value < 0 for value in scores)
        with pytest.raises(BackendError, match="empty continuation"):
            backend.score(NOTES, [""])
    finally:
        backend.close()


def test_a_backend_without_logits_says_it_cannot_score() -> None:
    with pytest.raises(BackendError, match="cannot score"):
        ScriptedBackend().score(NOTES, ["Yes."])


def schema(number: int) -> dict[str, object]:
    return {"type": "object", "properties": {f"field{number}": {"type": "string"}}, "required": [f"field{number}"]}


def test_the_grammar_cache_keeps_only_the_most_recently_used() -> None:
    import llama_cpp

    cache = GrammarCache(llama_cpp, size=3)
    first = cache.get(schema(0))
    for number in range(1, 10):
        cache.get(schema(number))
        assert cache.get(schema(0)) is first  # used each turn: kept
    assert len(cache) == 3
    oldest = cache.get(schema(1))  # dropped long ago: compiled again
    assert oldest is not None and len(cache) == 3


def test_a_schema_llama_cpp_refuses_is_a_backend_error() -> None:
    import llama_cpp

    with pytest.raises(BackendError, match="grammar"):
        GrammarCache(llama_cpp).get({"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}})
