"""Helpers shared by the reliability tests (crash, concurrency, corruption, disk errors)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


class HashEmbedder:
    """A cheap deterministic embedder for harnesses that test the file layer, not recall
    quality: each text maps to a fixed unit vector derived from its sha256."""

    model_id = "test-hash-embedder"
    dimension = 32

    def warm_up(self) -> None:
        pass  # nothing to load

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
            row = np.random.default_rng(seed).standard_normal(self.dimension).astype(np.float32)
            rows.append(row / np.linalg.norm(row))
        return np.stack(rows) if rows else np.zeros((0, self.dimension), dtype=np.float32)
