"""How likely a model finds a continuation of a prompt: the mean log-probability per token,
read from the logits before each token (Backend.score)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..errors import BackendError


def log_probability(logits: np.ndarray, token: int) -> float:
    """log softmax(logits)[token], computed stably in float64."""
    values = logits.astype(np.float64)
    top = float(values.max())
    return float(values[token]) - top - float(np.log(np.exp(values - top).sum()))


def mean_log_probability(logits_after: Callable[[list[int]], np.ndarray], prompt: Sequence[int],
                         tokens: Sequence[int]) -> float:
    """The mean over `tokens` of each one's log-probability after the prompt and the tokens
    before it; `logits_after(context)` evaluates `context` and returns its last logits."""
    if not tokens:
        raise BackendError("cannot score an empty continuation")
    context, total = list(prompt), 0.0
    for token in tokens:
        total += log_probability(logits_after(context), token)
        context.append(token)
    return total / len(tokens)
