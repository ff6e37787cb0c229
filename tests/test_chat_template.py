"""A model file's chat template is code from whoever made the file: rendered in a sandbox that
counts (backends/template_sandbox.py), a template that escapes, runs long, grows without bound
or leaves the conversation out gives way to a plain ChatML template with one warning naming
the file (backends/chat_template.py), and renders in bounded time. Real templates render
exactly as llama-cpp-python and transformers render them."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from local_agent.backends.chat_template import MAX_TEMPLATE_CHARS, SAMPLE, ChatTemplate
from local_agent.bench.model_shapes import FAMILIES
from local_agent.config import CHECKOUT_MODELS_DIR
from local_agent.types import Message

CHATML = ("<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nhello<|im_end|>\n"
          "<|im_start|>assistant\n")
MESSAGES = [Message("system", "S"), Message("user", "hello")]
BOUND_S = 10.0  # every hostile template below is given up within this (most within 0.5 s)

HOSTILE = {
    "python internals": "{{ ''.__class__.__mro__ }}",
    "nested range loops": "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    "a string doubled in a namespace":
        "{% set ns = namespace(s='x') %}{% for i in range(60) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}",
    "a string doubled line by line": "{% set a = 'xxxxxxxx' %}" + "{% set a = a ~ a %}" * 60 + "{{ a }}",
    "a captured block doubled": "{% set x = 'abcdefgh' %}" + "{% set x %}{{ x }}{{ x }}{% endset %}" * 60,
    "shared lists compared": ("{% set a = [1] %}{% set b = [1] %}" + "{% set a = [a, a] %}{% set b = [b, b] %}" * 60
                              + "{{ a == b }}"),
    "a macro that calls itself twice":
        "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(60) }}",
    "endless recursion": "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
    "a repeated string": "{{ 'x' * 10**10 }}",
    "a huge power": "{{ 7 ** 7 ** 7 ** 7 }}",
    "a wide center filter": "{{ 'x'|center(10**9) }}",
    "a wide center method": "{{ 'x'.center(10**9) }}",
    "replace into every gap": "{% set s = 'x' * 1000000 %}{{ s|replace('', s) }}",
    "a long separator": "{{ range(100000)|map('string')|join('y' * 1000000) }}",
    "a wide %-format": "{{ '%1000000000d' % 1 }}",
    "a wide str.format": "{{ '{:>1000000000}'.format(1) }}",
    "sequences summed": "{{ range(100000)|map('string')|map('list')|sum(start=[]) }}",
    "characters of a long string, squared":
        "{% set s = 'x' * 1000000 %}{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}",
    "a flood of output": "{% for i in range(100000) %}{{ 'x' * 100000 }}{% endfor %}",
    "long strings compared in a loop": ("{% set s = 'x' * 1000000 %}{% set t = 'x' * 1000000 %}"
                                        "{% for i in range(100000) %}{% if s == t %}{% endif %}{% endfor %}"),
    "a JSON indent": "{{ messages|tojson(indent=1000000) }}",
    "str.translate": "{{ 'a'.translate({97: 'x' * 1000}) }}",
    "its own error": "{{ raise_exception('no') }}",
    "an include": "{% include 'other' %}",
    "not Jinja": "{% for %}",
    "nothing of the conversation": "{# a comment #}",
    "ten megabytes": "{# " + "x" * 10_000_000 + " #}",
}


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("source", HOSTILE.values(), ids=HOSTILE.keys())
def test_a_hostile_template_gives_way_to_chatml_with_one_warning(source: str, caplog: pytest.LogCaptureFixture) -> None:
    start = time.monotonic()
    with caplog.at_level(logging.WARNING):
        template = ChatTemplate(source, Path("/models/hostile.gguf"), {"bos_token": "<s>", "eos_token": "</s>"})
        prompts = [template.render(MESSAGES) for _ in range(3)]
    assert time.monotonic() - start < BOUND_S
    assert prompts == [CHATML] * 3
    [warning] = _warnings(caplog)
    assert "/models/hostile.gguf" in warning and "ChatML" in warning and "\n" not in warning
    assert template.fallen_back and "<|im_start|>" in template.source


def test_a_template_that_fails_on_a_later_conversation_gives_way_from_then_on(caplog) -> None:
    source = ("{% for m in messages %}{% if 'BOMB' in m['content'] %}{% for i in range(100000) %}"
              "{% for j in range(100000) %}{% endfor %}{% endfor %}{% endif %}[{{ m['role'] }}] {{ m['content'] }}\n"
              "{% endfor %}[assistant]")
    with caplog.at_level(logging.WARNING):
        template = ChatTemplate(source, "model.gguf", {})
        assert template.render(MESSAGES) == "[system] S\n[user] hello\n[assistant]"
        assert not _warnings(caplog)
        start = time.monotonic()
        bombed = template.render([*MESSAGES, Message("assistant", "hi"), Message("user", "BOMB")])
        assert time.monotonic() - start < BOUND_S
        assert bombed.startswith("<|im_start|>system\nS<|im_end|>") and bombed.endswith("<|im_start|>assistant\n")
        assert template.render(MESSAGES) == CHATML
    assert len(_warnings(caplog)) == 1


def test_a_long_conversation_stays_within_the_budget(caplog) -> None:
    """The budget grows with the input: 400 messages and one of 900 KB render as usual."""
    dialogue = [Message("system", "S")]
    for index in range(200):
        dialogue += [Message("user", f"question {index}"), Message("assistant", f"answer {index}")]
    dialogue.append(Message("user", "word " * 180_000))
    with caplog.at_level(logging.WARNING):
        for family in ("llama3", "qwen2", "gemma3"):
            template = ChatTemplate(FAMILIES[family].template, family, {"bos_token": "<s>", "eos_token": "</s>"})
            start = time.monotonic()
            prompt = template.render(dialogue)
            assert time.monotonic() - start < 2.0
            assert "answer 199" in prompt and prompt.count("word") == 180_000
    assert not _warnings(caplog)


def test_the_size_limit_is_the_template_limit() -> None:
    assert MAX_TEMPLATE_CHARS == 128 * 1024
    ChatTemplate("{# " + "x" * (MAX_TEMPLATE_CHARS - 200) + " #}" + FAMILIES["qwen2"].template, "m", {})


# -- the same text as the libraries ----------------------------------------------------------
def _llama_cpp_prompt(source: str, messages: list[Message]) -> str:
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    formatter = Jinja2ChatFormatter(template=source, bos_token="<s>", eos_token="</s>", add_generation_prompt=True)
    return formatter(messages=[m.to_dict() for m in messages]).prompt


@pytest.mark.parametrize("family", ["llama3", "zephyr", "qwen2", "gemma3"])
def test_family_templates_render_as_llama_cpp_python_renders_them(family: str) -> None:
    source = FAMILIES[family].template
    template = ChatTemplate(source, family, {"bos_token": "<s>", "eos_token": "</s>",
                                             "functions": None, "function_call": None, "tools": None,
                                             "tool_choice": None})
    for messages in (list(SAMPLE), list(SAMPLE[:2]), [Message("user", " spaced  ")]):
        assert template.render(messages) == _llama_cpp_prompt(source, messages)
    assert not template.fallen_back


def test_the_default_model_template_renders_as_transformers_renders_it() -> None:
    transformers = pytest.importorskip("transformers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(CHECKOUT_MODELS_DIR / "smollm2-135m-instruct-hf",
                                                           local_files_only=True)
    for family in ("smollm2", "llama3", "qwen2", "gemma3"):
        if FAMILIES[family].template:
            tokenizer.chat_template = FAMILIES[family].template
        special = {k: v for k, v in tokenizer.special_tokens_map.items() if isinstance(v, str)}
        template = ChatTemplate(tokenizer.get_chat_template(), family, {**special, "tools": None, "documents": None})
        for messages in (list(SAMPLE), list(SAMPLE[:2])):
            expected = tokenizer.apply_chat_template([m.to_dict() for m in messages], add_generation_prompt=True,
                                                     tokenize=False)
            assert template.render(messages) == expected, family
