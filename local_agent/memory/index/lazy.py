"""An embedder made on first use: the runtime owns one and hands it to memory, the notes
search and the tool router, though a turn without memory or tools never needs it (choosing
it probes for a GPU, which imports torch where a driver is)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from .embedder import TextEmbedder


class LazyEmbedder:
    """A TextEmbedder that calls `make` the first time it is used, once, and then passes every
    call on to what `make` returned."""

    def __init__(self, make: Callable[[], TextEmbedder]) -> None:
        self._make = make
        self._made: TextEmbedder | None = None
        self._lock = threading.Lock()

    @property
    def made(self) -> bool:
        """Whether the embedder exists yet (nothing is loaded by asking)."""
        return self._made is not None

    def get(self) -> TextEmbedder:
        """The embedder, made now if it was not yet."""
        if self._made is None:
            with self._lock:
                if self._made is None:
                    self._made = self._make()
        return self._made

    @property
    def model_id(self) -> str:
        return self.get().model_id

    @property
    def dimension(self) -> int:
        return self.get().dimension

    def embed(self, texts: list[str]) -> np.ndarray:
        return self.get().embed(texts)

    def warm_up(self) -> None:
        self.get().warm_up()
