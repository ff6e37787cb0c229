"""Greedy decoding under a grammar on llama.cpp (backends/llama_grammar.py), on the real model:
the chosen-token-first shortcut picks what ranking the whole vocabulary picks, forced text is
found, and the answers are valid, canonically spaced JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator

import jsonschema
import numpy as np
import pytest

from local_agent.backends import create_backend
from local_agent.backends.llama_cpp import LlamaCppBackend
from local_agent.backends.llama_grammar import GrammarGreedy, canonical_spacing
from local_agent.config import CHECKOUT_MODELS_DIR, Settings
from local_agent.errors import BackendError
from local_agent.memory.distill.distiller import distill_schema, load_prompt
from local_agent.types import GenerationSettings, Message

SCHEMA = {
    "type": "object",
    "properties": {"save": {"type": "boolean"},
                   "memories": {"type": "array", "items": {"type": "string"}, "maxItems": 2}},
    "required": ["save", "memories"],
    "additionalProperties": False,
}
MESSAGES = [Message("system", "Reply with JSON: save (boolean) and memories (facts about the user)."),
            Message("user", "My name is Ann and I keep bees in Oslo.")]


@pytest.fixture(scope="module")
def llama() -> Iterator[LlamaCppBackend]:
    settings = Settings(backend="llama-cpp", device="cpu", models_dir=CHECKOUT_MODELS_DIR, ctx_size=2048)
    backend, _ = create_backend(settings)
    assert isinstance(backend, LlamaCppBackend)
    yield backend
    backend.close()


def grammar_for(llama: LlamaCppBackend, gbnf: str) -> GrammarGreedy:
    return GrammarGreedy(llama._lib, llama._vocab, gbnf, "root", llama._llm.n_vocab(),
                         llama._char_tokens(), llama._llm.token_eos())


def best_allowed_by_ranking_everything(chooser: GrammarGreedy, logits: np.ndarray) -> int:
    allowed = chooser._allowed(np.arange(logits.size, dtype=np.int32), logits)
    return int(allowed[np.argmax(logits[allowed])])


@pytest.mark.model
def test_checking_the_best_token_first_picks_what_ranking_everything_picks(llama: LlamaCppBackend):
    rng = np.random.default_rng(0)
    n_vocab = llama._llm.n_vocab()
    with grammar_for(llama, 'root ::= "{\\"pet\\": \\"" [a-z]+ "\\"}"') as chooser:
        for _ in range(12):
            logits = rng.normal(size=n_vocab).astype(np.float32)
            token = chooser.choose(logits)
            assert token == best_allowed_by_ranking_everything(chooser, logits)
            if llama._lib.llama_vocab_is_eog(llama._vocab, token):
                break
            chooser.accept(token)


@pytest.mark.model
def test_forced_text_is_found_up_to_the_next_choice(llama: LlamaCppBackend):
    gbnf = canonical_spacing(llama._grammar(SCHEMA)._grammar)
    with grammar_for(llama, gbnf) as chooser:
        assert chooser.forced() == ('{"save": ', False)
        for token in llama._llm.tokenize(b'{"save": true, "memories": []', add_bos=False):
            chooser.accept(token)
        assert chooser.forced() == ("}", True)


@pytest.mark.model
def test_constrained_answers_are_valid_canonical_json_and_repeatable(llama: LlamaCppBackend):
    settings = GenerationSettings(max_tokens=200)
    first = llama.generate(MESSAGES, settings, json_schema=SCHEMA)
    again = llama.generate(MESSAGES, settings, json_schema=SCHEMA)
    data = json.loads(first.text)
    jsonschema.validate(data, SCHEMA)
    assert first.text == json.dumps(data)  # one space after ':' and ',', none elsewhere
    assert first.finish_reason == "stop" and again.text == first.text
    # the tokens read, forced ones included, plus the end of turn
    assert 0 < first.completion_tokens <= len(first.text) + 1


@pytest.mark.model
def test_the_distill_answer_is_valid_for_its_schema(llama: LlamaCppBackend):
    prompt = load_prompt().messages("I keep bees on the roof of my flat in Oslo.")
    completion = llama.generate(prompt, GenerationSettings(max_tokens=400), json_schema=distill_schema())
    jsonschema.validate(json.loads(completion.text), distill_schema())


@pytest.mark.model
@pytest.mark.parametrize("max_tokens", [2, 3, 5])
def test_max_tokens_cuts_a_constrained_answer(llama: LlamaCppBackend, max_tokens: int):
    """Also inside forced text: `{"save": ` is read as three tokens at once."""
    completion = llama.generate(MESSAGES, GenerationSettings(max_tokens=max_tokens), json_schema=SCHEMA)
    assert completion.finish_reason == "length" and completion.completion_tokens == max_tokens
    assert completion.text.startswith('{"s')


@pytest.mark.model
def test_free_text_after_a_constrained_answer_matches_a_fresh_model(llama: LlamaCppBackend):
    """The constrained loop keeps llama-cpp-python's record of the KV cache right."""
    question = [Message("user", "What is the capital of France?")]
    llama.generate(MESSAGES, GenerationSettings(max_tokens=100), json_schema=SCHEMA)
    after = llama.generate(question, GenerationSettings(max_tokens=24)).text
    settings = Settings(backend="llama-cpp", device="cpu", models_dir=CHECKOUT_MODELS_DIR, ctx_size=2048)
    fresh, _ = create_backend(settings)
    try:
        assert fresh.generate(question, GenerationSettings(max_tokens=24)).text == after
    finally:
        fresh.close()


def test_canonical_spacing_puts_one_space_after_colons_and_commas():
    gbnf = 'root ::= "{" space "\\"a\\"" space ":" space x ("," space x)* "}" space\nspace ::= " "?\n'
    assert canonical_spacing(gbnf) == ('root ::= "{" space "\\"a\\"" space ": " space x (", " space x)* "}" space\n'
                                       'space ::= ""\n')
    with pytest.raises(BackendError):
        canonical_spacing('root ::= "x"\n')
