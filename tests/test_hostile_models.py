"""A hostile model file gets one line, never a hang or a crash (issue 44, item 3): `ask` in its
own process, on copies of the tiny llama model (tests/hostile_models.py) whose chat template
or metadata was made hostile, either answers through the plain ChatML template after one
warning naming the file, or stops with one `error:` line naming it, within a bounded time."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile_models import Kind, ask, gguf_with, hf_folder_with
from tests.tiny_models import TinyModel

pytestmark = pytest.mark.model
BOUND_S = 120  # the whole process: start, load, the answer (about 10 s on a loaded 2-core VM)

TEMPLATES = {
    "python internals": "{{ ''.__class__.__mro__ }}",
    "nested range loops": "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    # jinja2 folds constants as it compiles: llama-cpp-python compiles every template of the file
    "a constant of a gigabyte": "{{ 'x' * 10**9 }}",
    "ten megabytes": "{# " + "x" * 10_000_000 + " #}",
}


def _answered_with_fallback(result: object, model: Path) -> None:
    assert result.returncode == 0, result.stderr  # type: ignore[attr-defined]
    lines = result.stderr.splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith("local-agent: the chat template in "), result.stderr  # type: ignore[attr-defined]
    assert str(model) in lines[0] and "ChatML" in lines[0]


def _one_error_line(result: object, model: Path, *words: str) -> None:
    assert result.returncode == 1, result.stderr  # type: ignore[attr-defined]
    lines = result.stderr.splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(model) in lines[0], result.stderr  # type: ignore[attr-defined]
    assert all(word in lines[0] for word in words), lines[0]


@pytest.mark.parametrize("template", TEMPLATES.values(), ids=TEMPLATES.keys())
def test_a_hostile_gguf_template_answers_through_chatml_after_one_warning(
        template: str, tiny_models: dict[str, TinyModel], tmp_path: Path) -> None:
    model = gguf_with(tiny_models["llama"].gguf, tmp_path / "hostile.gguf",
                      {"tokenizer.chat_template": (Kind.STRING, template)})
    _answered_with_fallback(ask(model, tmp_path / "data", timeout=BOUND_S), model)


HF_TEMPLATES = ("python internals", "nested range loops", "ten megabytes")


@pytest.mark.parametrize("template", [TEMPLATES[name] for name in HF_TEMPLATES], ids=HF_TEMPLATES)
def test_a_hostile_tokenizer_template_answers_through_chatml_after_one_warning(
        template: str, tiny_models: dict[str, TinyModel], tmp_path: Path) -> None:
    model = hf_folder_with(tiny_models["llama"].folder, tmp_path / "hostile-hf", template=template)
    _answered_with_fallback(ask(model, tmp_path / "data", "--backend", "transformers", timeout=BOUND_S), model)


# -- metadata ------------------------------------------------------------------------------------
CONTEXT = "llama.context_length"
CLAMPED = {  # the model answers, after one warning that says what was used instead
    "a context of 2^40 tokens": {CONTEXT: (Kind.UINT64, 2**40)},
    "a context of 2^32 - 1 tokens": {CONTEXT: (Kind.UINT32, 2**32 - 1)},
    "a context of 0 tokens": {CONTEXT: (Kind.UINT32, 0)},
}
REFUSED = {  # one error line naming the file and the key
    "2^31 layers": ({"llama.block_count": (Kind.UINT32, 2**31)}, "llama.block_count"),
    "a NaN epsilon": ({"llama.attention.layer_norm_rms_epsilon": (Kind.FLOAT32, float("nan"))},
                      "llama.attention.layer_norm_rms_epsilon"),
    "a negative epsilon": ({"llama.attention.layer_norm_rms_epsilon": (Kind.FLOAT32, -1.0)},
                           "llama.attention.layer_norm_rms_epsilon"),
}


@pytest.mark.parametrize("values", CLAMPED.values(), ids=CLAMPED.keys())
def test_an_absurd_context_length_is_clamped_with_one_warning(values: dict, tiny_models: dict[str, TinyModel],
                                                              tmp_path: Path) -> None:
    model = gguf_with(tiny_models["llama"].gguf, tmp_path / "hostile.gguf", values)
    result = ask(model, tmp_path / "data", timeout=BOUND_S)
    assert result.returncode == 0, result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith("local-agent: ") and str(model) in line and "context length" in line


@pytest.mark.parametrize(("values", "key"), REFUSED.values(), ids=REFUSED.keys())
def test_metadata_llama_cpp_would_abort_on_is_one_error_line(values: dict, key: str,
                                                              tiny_models: dict[str, TinyModel],
                                                              tmp_path: Path) -> None:
    model = gguf_with(tiny_models["llama"].gguf, tmp_path / "hostile.gguf", values)
    _one_error_line(ask(model, tmp_path / "data", timeout=BOUND_S), model, key)


def test_an_empty_vocabulary_is_one_error_line(tiny_models: dict[str, TinyModel], tmp_path: Path) -> None:
    model = gguf_with(tiny_models["llama"].gguf, tmp_path / "hostile.gguf",
                      {"tokenizer.ggml.tokens": (Kind.ARRAY, [])}, remove=("tokenizer.ggml.token_type",
                                                                           "tokenizer.ggml.merges"),
                      item_kind=Kind.STRING)
    _one_error_line(ask(model, tmp_path / "data", timeout=BOUND_S), model)


@pytest.mark.parametrize("config", [{"max_position_embeddings": 2**40}, {"max_position_embeddings": -5},
                                    {"vocab_size": 0}], ids=["a context of 2^40", "a negative context",
                                                             "an empty vocabulary"])
def test_absurd_hf_config_values_answer_or_give_one_error_line(config: dict, tiny_models: dict[str, TinyModel],
                                                                tmp_path: Path) -> None:
    model = hf_folder_with(tiny_models["llama"].folder, tmp_path / "hostile-hf", config=config)
    result = ask(model, tmp_path / "data", "--backend", "transformers", timeout=BOUND_S)
    assert "Traceback" not in result.stderr
    if result.returncode:
        _one_error_line(result, model)
    else:
        assert len(result.stderr.splitlines()) <= 1, result.stderr
