"""Dense search: one FAISS inner-product index over every record's vector.

Vectors are L2-normalized, so inner product is cosine similarity (higher = closer). Rows follow
the store's record order; superseded records and unwanted kinds are excluded at search time with
a bitmap selector, so nothing is ever removed from the index except by a full rebuild
(compaction after `forget`).

Large stores (APPROX_MIN_ROWS rows and more) also get an approximate index, HNSW over the same
vectors: exact search grows linearly (about 70 ms at a million rows), HNSW stays at a few ms
with a recall@10 agreement measured by scripts/bench_stores.py. New rows are appended to both.
The exact index stays the truth for reading vectors back, and answers when a filter leaves
fewer than half the rows (HNSW finds little through a narrow filter).
"""

from __future__ import annotations

import faiss
import numpy as np

from ...types import MEMORY_KINDS

KIND_CODES = {kind: code for code, kind in enumerate(MEMORY_KINDS)}
APPROX_MIN_ROWS = 50_000
HNSW_NEIGHBOURS = 32  # graph degree (M)
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 96
APPROX_MIN_SHARE = 0.5  # search approximately only when the filter allows this share of rows


def approximate_due(rows: int) -> bool:
    """Whether a store of `rows` rows keeps an approximate index."""
    return rows >= APPROX_MIN_ROWS


class DenseIndex:
    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self._index = faiss.IndexFlatIP(dimension)
        self._active = np.zeros(0, dtype=bool)
        self._kind = np.zeros(0, dtype=np.int8)
        self._allowed: dict[tuple[str, ...], np.ndarray] = {}
        self._approx: faiss.Index | None = None

    def __len__(self) -> int:
        return int(self._index.ntotal)

    def add(self, vectors: np.ndarray, kinds: list[str], active: list[bool]) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, self.dimension)
        if len(vectors) != len(kinds) or len(kinds) != len(active):
            raise ValueError("vectors, kinds and active flags differ in length")
        if len(vectors):
            self._index.add(vectors)
            if self._approx is not None:
                self._approx.add(vectors)
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

    def search(
        self, query: np.ndarray, k: int, allowed: np.ndarray, *, exact: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """The k allowed rows closest to `query`: (rows, cosines), best first; `exact` True
        never uses the approximate index (to measure it)."""
        allowed_rows = int(allowed.sum())
        k = min(k, allowed_rows)
        if k <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        bitmap = np.packbits(allowed, bitorder="little")
        selector = faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(bitmap))
        query = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dimension)
        if self._approx is not None and not exact and allowed_rows >= APPROX_MIN_SHARE * len(allowed):
            index, params = self._approx, faiss.SearchParametersHNSW(sel=selector, efSearch=max(HNSW_EF_SEARCH, k))
        else:
            index, params = self._index, faiss.SearchParameters(sel=selector)
        scores, rows = index.search(query, k, params=params)
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

    # -- the approximate index -------------------------------------------------------------------
    @property
    def approximate(self) -> bool:
        return self._approx is not None

    def build_approximate(self) -> None:
        """Build the HNSW index over every row (at compaction; minutes at a million rows)."""
        index = faiss.IndexHNSWFlat(self.dimension, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        if len(self):
            index.add(self.matrix())
        self._approx = index

    def approximate_bytes(self) -> np.ndarray:
        """The HNSW index serialized (for saving); build_approximate first."""
        if self._approx is None:
            raise ValueError("there is no approximate index")
        return faiss.serialize_index(self._approx)

    def use_approximate(self, data: np.ndarray) -> None:
        """Take a saved HNSW index; ValueError unless it covers exactly this index's rows."""
        index = faiss.deserialize_index(np.ascontiguousarray(data, dtype=np.uint8))
        if index.ntotal != len(self) or index.d != self.dimension or not isinstance(index, faiss.IndexHNSWFlat):
            raise ValueError("the saved approximate index does not cover these vectors")
        self._approx = index
