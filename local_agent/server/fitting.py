"""Whether a request's message can fit the model's context at all. One that cannot is refused
with a 400 (`context_length_exceeded`, as OpenAI's API answers it), before recall or any
memory work; it is never cut silently. One that fits alone but not beside the recalled
memories is cut by the prompt (prompt.py), and the response says so in `local_agent.notices`."""

from __future__ import annotations

from ..backends.base import Backend
from ..prompt import Budget
from ..types import Message
from .errors import APIError


def check_fits(backend: Backend, message: str, directive: str, *, answer_tokens: int, memory_tokens: int) -> None:
    """APIError 400 when the system message and `message` alone take more than the prompt's
    share of the context (what is left after `answer_tokens` for the answer)."""
    budget = Budget.for_context(backend.context_size, answer_tokens, memory_tokens)
    needed = backend.count_prompt_tokens([Message("system", directive), Message("user", message)])
    if needed > budget.total:
        raise APIError(400, f"messages: the last message takes {needed} tokens with the system message; the model's "
                            f"context window is {backend.context_size} tokens, {answer_tokens} of them kept for the "
                            f"answer: shorten the message or lower max_tokens",
                       code="context_length_exceeded", param="messages")
