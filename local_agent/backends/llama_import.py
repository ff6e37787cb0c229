"""Importing llama-cpp-python for the llama-cpp backend, so that loading a model never
compiles the chat templates in its file (see deferred_formatter)."""

from __future__ import annotations

from typing import Any

from ..errors import BackendError

# What llama-cpp-python's Jinja2ChatFormatter also passes a template (none of them, here).
FORMATTER_EXTRAS = ("functions", "function_call", "tools", "tool_choice")


def import_llama_cpp() -> Any:
    """llama-cpp-python, set so that loading a model compiles none of its chat templates."""
    try:
        import llama_cpp
        import llama_cpp.llama_chat_format as chat_format
    except ImportError:
        raise BackendError("the llama-cpp backend needs llama-cpp-python: run `make install`") from None
    if not issubclass(chat_format.Jinja2ChatFormatter, DeferredChatFormatter):
        chat_format.Jinja2ChatFormatter = deferred_formatter(chat_format.Jinja2ChatFormatter)
    return llama_cpp


class DeferredChatFormatter:
    """Marks the formatter class that deferred_formatter made."""


def deferred_formatter(formatter: type) -> type:
    """llama-cpp-python's Jinja2ChatFormatter, compiling its template when first called.

    `Llama()` builds one for every chat template in the GGUF's metadata as it loads the model,
    and jinja2 evaluates constant expressions as it compiles: `{{ 'x' * 10**10 }}` in a model
    file would take 10 GB before this program could look at it. This program renders the
    template itself, in its counting sandbox (chat_template.py), and never calls those
    formatters; a caller that does gets the template compiled then, as before."""

    class Deferred(formatter, DeferredChatFormatter):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._arguments = (args, kwargs)

        def __call__(self, **kwargs: Any) -> Any:
            if not hasattr(self, "_environment"):
                args, named = self._arguments
                super().__init__(*args, **named)
            return super().__call__(**kwargs)

    Deferred.__name__ = Deferred.__qualname__ = formatter.__name__
    return Deferred
