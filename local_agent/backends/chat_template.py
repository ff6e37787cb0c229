"""A model's chat template, rendered as llama-cpp-python and transformers render it, but in the
counting sandbox (template_sandbox.py).

A template that cannot be used (too long, not valid Jinja, refused by the sandbox, over its
budget, or failing on a sample conversation) gives way to a plain ChatML template, with one
warning naming the model file. A template that fails later, on some conversation, gives way
the same way, from that prompt on.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import jinja2.ext
from jinja2 import nodes
from jinja2.exceptions import TemplateError
from jinja2.parser import Parser

from ..types import Message
from .template_sandbox import CountingSandbox, TemplateBudgetError, compile_template, render

log = logging.getLogger(__name__)

MAX_TEMPLATE_CHARS = 128 * 1024  # the longest published chat templates are under 20 KiB
FALLBACK_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
# A conversation every chat template must render: what a turn of this program looks like.
SAMPLE = (Message("system", "You are a helpful assistant."), Message("user", "Hello."),
          Message("assistant", "Hi! How can I help?"), Message("user", "What is the capital of France?"))


class GenerationTag(jinja2.ext.Extension):
    """Hugging Face's `{% generation %}` tag (it marks the assistant's tokens), rendered as
    its body, as llama-cpp-python does."""

    tags = {"generation"}  # noqa: RUF012 (jinja2 declares it so)

    def parse(self, parser: Parser) -> list[nodes.Node]:
        parser.stream.skip(1)
        return parser.parse_statements(("name:endgeneration",), drop_needle=True)


def tojson(value: Any, ensure_ascii: bool = False, indent: int | str | None = None,
           separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    """JSON as both libraries write it for templates (jinja2's own escapes HTML characters)."""
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def raise_exception(message: str) -> None:
    raise TemplateError(message)


def strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


def chat_environment() -> CountingSandbox:
    """The environment both libraries build for chat templates, counting."""
    environment = CountingSandbox(trim_blocks=True, lstrip_blocks=True,
                                  extensions=[GenerationTag, jinja2.ext.loopcontrols])
    environment.filters["tojson"] = tojson
    environment.globals.update(raise_exception=raise_exception, strftime_now=strftime_now)
    environment.guard_filters()
    return environment


def one_line(exc: BaseException) -> str:
    """An exception as a short line: its type (unless it is the budget's) and first line."""
    lines = str(exc).strip().splitlines()
    text = lines[0][:160] if lines else ""
    if isinstance(exc, TemplateBudgetError):
        return text
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ChatTemplate:
    """The chat template of the model in `origin` (a path, for messages), rendered with
    `variables` (the special tokens the library passes) and the messages."""

    def __init__(self, source: str, origin: object, variables: dict[str, Any]) -> None:
        self.origin = origin
        self.variables = {**variables, "add_generation_prompt": True}
        self.environment = chat_environment()
        self.model_source = source
        self.fallback = compile_template(self.environment, FALLBACK_TEMPLATE)
        self.template: jinja2.Template | None = None
        self.fallen_back = False
        if len(source) > MAX_TEMPLATE_CHARS:
            self._give_up(f"it is {len(source):,} characters long, over the limit of {MAX_TEMPLATE_CHARS:,}")
            return
        try:
            self.template = compile_template(self.environment, source)
            sample = render(self.template, self._values(SAMPLE))
        except Exception as exc:  # any failure of a template means the fallback
            self._give_up(one_line(exc))
            return
        if SAMPLE[-1].content not in sample:
            self._give_up("it leaves the user's message out of the prompt")

    @property
    def source(self) -> str:
        """The template in use: the model's, or the fallback once the model's gave way."""
        return FALLBACK_TEMPLATE if self.fallen_back else self.model_source

    def render(self, messages: Sequence[Message]) -> str:
        values = self._values(messages)
        if self.template is not None:
            try:
                return render(self.template, values)
            except Exception as exc:  # any failure of a template means the fallback
                self._give_up(one_line(exc))
        return render(self.fallback, values)

    def _values(self, messages: Sequence[Message]) -> dict[str, Any]:
        return {**self.variables, "messages": [m.to_dict() for m in messages]}

    def _give_up(self, reason: str) -> None:
        self.template, self.fallen_back = None, True
        log.warning("the chat template in %s cannot be used (%s); prompts use a plain ChatML template instead",
                    self.origin, reason)
