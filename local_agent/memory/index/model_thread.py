"""An embedder whose work runs on the chat model's own thread.

A batched llama.cpp backend (backends/llama_parallel.py) decodes on one thread of its own while
requests run on others. llama.cpp's OpenMP keeps a thread team for every thread that computed
with it, and with more team threads than cores libgomp cuts how long they wait for each other:
decode slows to a third (process/background.py). The embedder (llama.cpp too) would otherwise
compute on every request thread; here its calls are handed to the model's thread, between two
decode steps, so one team runs every model.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .embedder import TextEmbedder

T = TypeVar("T")


class ModelThreadEmbedder:
    """`inner`, each call run through `call` (the backend's: on its thread, waiting for it)."""

    def __init__(self, inner: TextEmbedder, call: Callable[[Callable[[], Any]], Any]) -> None:
        self.inner = inner
        self._call = call

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    def embed(self, texts: list[str]) -> np.ndarray:
        vectors: np.ndarray = self._call(lambda: self.inner.embed(texts))
        return vectors

    def warm_up(self) -> None:
        self._call(self.inner.warm_up)
