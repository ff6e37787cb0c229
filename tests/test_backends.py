"""One suite over every runtime, on the real default model (SmolLM2-135M-Instruct).

Each backend is loaded once per module. The transformers backends read the safetensors folder
that `make install` (scripts/fetch_models.py) derives from the GGUF; it is derived here on
first use otherwise (about a minute).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from local_agent.backends import Backend, create_backend
from local_agent.backends.hf import without_patterns
from local_agent.backends.llama_parallel import parallel_backend
from local_agent.backends.probe import probe_hardware
from local_agent.config import CHECKOUT_MODELS_DIR, Settings
from local_agent.errors import ContextOverflowError
from local_agent.memory.distill.distiller import DEFAULT_MAX_TOKENS, distill_schema, load_prompt
from local_agent.types import GenerationSettings, Message

pytestmark = pytest.mark.model

CPU_BACKENDS = ["llama-cpp", "llama-cpp-parallel", "transformers", "transformers-4bit"]
QUESTION = [Message("user", "What is the capital of France?")]
STORY = [Message("user", "Tell me a long story about a lighthouse keeper.")]
FACTS_SCHEMA = {
    "type": "object",
    "properties": {
        "save": {"type": "boolean"},
        "memories": {"type": "array", "items": {"type": "string", "maxLength": 80}, "maxItems": 3},
    },
    "required": ["save", "memories"],
}


def load(backend: str, device: str) -> Backend:
    if backend == "llama-cpp-parallel":  # the same tests on batched decoding (llama_parallel.py)
        return parallel_backend(load("llama-cpp", device), 4)
    settings = Settings(backend=backend, device=device, models_dir=CHECKOUT_MODELS_DIR, ctx_size=2048)
    loaded, choice = create_backend(settings)
    assert (choice.backend, choice.device) == (backend, device)
    return loaded


@pytest.fixture(scope="module", params=CPU_BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    loaded = load(request.param, "cpu")
    yield loaded
    loaded.close()


def test_greedy_answer_is_non_empty_and_repeatable(backend: Backend) -> None:
    settings = GenerationSettings(max_tokens=16, temperature=0.0)
    first = backend.generate(QUESTION, settings)
    second = backend.generate(QUESTION, settings)
    assert first.text.strip()
    assert second.text == first.text
    assert first.prompt_tokens > 0 and 0 < first.completion_tokens <= 17


def test_a_stop_string_cuts_the_answer_before_it(backend: Backend) -> None:
    answer = backend.generate(QUESTION, GenerationSettings(max_tokens=16)).text
    stop = answer.split()[2]  # a word from the middle of the greedy answer
    cut = backend.generate(QUESTION, GenerationSettings(max_tokens=16, stop=(stop,)))
    assert cut.text == answer[: answer.index(stop)]
    assert cut.finish_reason == "stop"


def test_streaming_yields_several_chunks(backend: Backend) -> None:
    stream = backend.stream(STORY, GenerationSettings(max_tokens=32))
    chunks = list(stream)
    assert len(chunks) >= 3
    usage = stream.result()
    assert usage is not None and usage.text == "".join(chunks)
    assert usage.finish_reason == "length" and usage.first_token_s <= usage.total_s


def test_the_chat_template_reaches_the_model(backend: Backend) -> None:
    prompt = backend.format_prompt([Message("system", "Be brief."), *QUESTION])
    assert "<|im_start|>user\nWhat is the capital of France?<|im_end|>" in prompt
    assert prompt.startswith("<|im_start|>system\nBe brief.")
    assert prompt.endswith("<|im_start|>assistant\n")
    assert {"<|im_start|>", "<|im_end|>"} <= set(backend.special_tokens)


def test_json_schema_constrained_output_validates(backend: Backend) -> None:
    messages = [
        Message("system", "Reply with JSON only: save (boolean) and memories (short facts about the user)."),
        Message("user", "My name is Ann and I live in Oslo."),
    ]
    completion = backend.generate(messages, GenerationSettings(max_tokens=256), json_schema=FACTS_SCHEMA)
    jsonschema.validate(json.loads(completion.text), FACTS_SCHEMA)


def test_the_distill_answer_is_valid_json_within_its_bounds(backend: Backend) -> None:
    """The distiller's schema (a pattern and a length on each memory) works on every runtime;
    lm-format-enforcer keeps to the length, the pattern is checked after decoding."""
    completion = backend.generate(load_prompt().messages("I keep bees on the roof of my flat in Oslo."),
                                  GenerationSettings(max_tokens=DEFAULT_MAX_TOKENS), json_schema=distill_schema())
    assert completion.finish_reason == "stop"
    jsonschema.validate(json.loads(completion.text), without_patterns(distill_schema()))


def test_an_oversized_prompt_overflows_before_generating(backend: Backend) -> None:
    huge = [Message("user", "lighthouse " * 3000)]
    with pytest.raises(ContextOverflowError) as caught:
        backend.generate(huge, GenerationSettings(max_tokens=16))
    message = str(caught.value)
    assert "2048" in message and "\n" not in message


def test_count_tokens(backend: Backend) -> None:
    assert backend.count_tokens("The capital of France is Paris.") > 0
    assert backend.count_tokens("") == 0


def test_closing_a_stream_early_stops_generation(backend: Backend) -> None:
    stream = backend.stream(STORY, GenerationSettings(max_tokens=400))
    for _ in range(2):
        next(stream)
    started = time.perf_counter()
    stream.close()
    assert time.perf_counter() - started < 3.0
    assert backend.generate(QUESTION, GenerationSettings(max_tokens=4)).text  # still usable


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["transformers-4bit", "transformers", "llama-cpp"])
def test_gpu_backends_answer(name: str) -> None:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA GPU")
    if name == "llama-cpp" and not probe_hardware().llama_gpu_offload:
        pytest.skip("this llama-cpp-python build has no GPU offload")
    with load(name, "cuda") as loaded:
        settings = GenerationSettings(max_tokens=16)
        first = loaded.generate(QUESTION, settings)
        assert first.text.strip() and loaded.generate(QUESTION, settings).text == first.text
        completion = loaded.generate(QUESTION, GenerationSettings(max_tokens=256), json_schema=FACTS_SCHEMA)
        jsonschema.validate(json.loads(completion.text), FACTS_SCHEMA)


def test_patterns_with_a_length_bound_are_left_to_validation_for_lm_format_enforcer():
    schema: dict[str, Any] = {"type": "object", "properties": {
        "a": {"type": "string", "pattern": "^x+$", "maxLength": 5},
        "b": {"type": "array", "items": {"type": "string", "pattern": "^y$"}},
    }}
    stripped = without_patterns(schema)
    assert stripped["properties"]["a"] == {"type": "string", "maxLength": 5}
    assert stripped["properties"]["b"] == schema["properties"]["b"]  # a pattern alone stays
