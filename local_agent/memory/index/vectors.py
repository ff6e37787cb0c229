"""Dense search: one FAISS inner-product index over every record's vector.

Vectors are L2-normalized, so inner product is cosine similarity (higher = closer). Rows follow
the store's record order; superseded records and unwanted kinds are excluded at search time with
a bitmap selector, so nothing is ever removed from the index except by a full rebuild
(compaction after `forget`).
"""

from __future__ import annotations

import faiss
import numpy as np

from ...types import MEMORY_KINDS

KIND_CODES = {kind: code for code, kind in enumerate(MEMORY_KINDS)}


class DenseIndex:
    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self._index = faiss.IndexFlatIP(dimension)
        self._active = np.zeros(0, dtype=bool)
        self._kind = np.zeros(0, dtype=np.int8)
        self._allowed: dict[tuple[str, ...], np.ndarray] = {}

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def add(self, vectors: np.ndarray, kinds: list[str], active: list[bool]) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, self.dimension)
        if len(vectors) != len(kinds) or len(kinds) != len(active):
            raise ValueError("vectors, kinds and active flags differ in length")
        if len(vectors):
            self._index.add(vectors)
        self._active = np.concatenate([self._active, np.asarray(active, dtype=bool)])
        self._kind = np.concatenate([self._kind, np.asarray([KIND_CODES[k] for k in kinds], dtype=np.int8)])
        self._allowed.clear()

    def set_active(self, row: int, active: bool) -> None:
        self._active[row] = active
        self._allowed.clear()

    def allowed(self, kinds: tuple[str, ...]) -> np.ndarray:
        """Rows that may be returned: active records of one of `kinds` (cached until a write)."""
        key = tuple(sorted(set(kinds)))
        if key not in self._allowed:
            codes = [KIND_CODES[kind] for kind in key]
            self._allowed[key] = self._active & np.isin(self._kind, codes)
        return self._allowed[key]

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The k allowed rows closest to `query`: (rows, cosines), best first."""
        k = min(k, int(allowed.sum()))
        if k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        bitmap = np.packbits(allowed, bitorder="little")
        selector = faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(bitmap))
        query = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dimension)
        params = faiss.SearchParameters(sel=selector)  # faiss's wrapper takes keywords
        scores, rows = self._index.search(query, k, params=params)
        keep = rows[0] >= 0
        return rows[0][keep], scores[0][keep]

    def vectors(self, rows: np.ndarray | list[int]) -> np.ndarray:
        """The stored vectors of `rows`, shape (len(rows), dimension)."""
        rows = np.asarray(rows, dtype=np.int64)
        if not len(rows):
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._index.reconstruct_batch(rows)

    def matrix(self) -> np.ndarray:
        """A copy of every vector in row order (for saving)."""
        if not len(self):
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._index.reconstruct_n(0, len(self))
