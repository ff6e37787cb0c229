"""Dense search: FAISS inner-product search over every record's vector.

Vectors are L2-normalized, so inner product is cosine similarity (higher = closer). Rows follow
the store's record order and are kept as rows.py keeps them (the snapshot's vectors file
memory-mapped, rows added since in memory). Superseded records and unwanted kinds are excluded
at search time with a bitmap selector, so nothing is ever removed from the rows except by a
full rebuild (compaction after `forget`).

Large stores (APPROX_MIN_ROWS rows and more) also get an approximate index, HNSW over the same
vectors: exact search grows linearly (about 70 ms at a million rows), HNSW stays at a few ms
with a recall@10 agreement measured by scripts/bench_stores.py (the graph keeps the vectors as
float16, so what it finds, RERANKED rows at least, is ranked again by the exact vectors, which
also makes the returned cosines exact). The HNSW index is read-only
between compactions (the store memory-maps its file): it covers the rows of the snapshot, and
rows added since (the journal's tail) are searched exactly beside it, so adding a memory stays
an append. Compaction adds the tail to the graph. Forgetting keeps the graph: the forgotten
rows' nodes are cut from the row map and their vectors zeroed when it is saved, and the graph
is rebuilt only once such dead nodes are a large share of it (see approx.py). The rows stay the
truth for reading vectors back, and exact search over them answers when a filter leaves fewer
than half the rows (HNSW finds little through a narrow filter).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import faiss
import numpy as np

from ...types import MEMORY_KINDS
from .approx import Approximate, build_graph
from .rows import VectorRows

KIND_CODES = {kind: code for code, kind in enumerate(MEMORY_KINDS)}
log = logging.getLogger(__name__)

SavedGraph = tuple[faiss.Index, "np.ndarray | None"]  # a graph and its row map (use_approximate)
APPROX_MIN_ROWS = 50_000
APPROX_MIN_SHARE = 0.5  # search approximately only when the filter allows this share of rows
RERANKED = 32  # rows taken from the approximate index at least, then ranked by their exact vectors


def approximate_due(rows: int) -> bool:
    """Whether a store of `rows` rows keeps an approximate index."""
    return rows >= APPROX_MIN_ROWS


class DenseIndex:
    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self._rows = VectorRows(dimension)
        self._active = np.zeros(0, dtype=bool)
        self._kind = np.zeros(0, dtype=np.int8)
        self._allowed: dict[tuple[str, ...], np.ndarray] = {}
        self._approx: Approximate | None = None
        self._approx_later: Callable[[], SavedGraph] | None = None  # a saved graph, read on first need

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def mapped(self) -> bool:
        """Whether the rows the store opened with are its vectors file, memory-mapped."""
        return self._rows.mapped

    def add(self, vectors: np.ndarray, kinds: list[str], active: list[bool]) -> None:
        codes = np.fromiter((KIND_CODES[k] for k in kinds), dtype=np.int8, count=len(kinds))
        self.add_coded(vectors, codes, np.asarray(active, dtype=bool))

    def add_coded(self, vectors: np.ndarray, kinds: np.ndarray, active: np.ndarray) -> None:
        """`add` with the kinds as KIND_CODES and the active flags as arrays (a snapshot's
        columns: no pass over its records)."""
        vectors = np.asanyarray(vectors).reshape(-1, self.dimension)  # (a memory map stays one)
        if len(vectors) != len(kinds) or len(kinds) != len(active):
            raise ValueError("vectors, kinds and active flags differ in length")
        if len(vectors):
            self._rows.append(vectors)
            if self._approx is not None:  # (a graph read later takes the rows it lacks then)
                self._approx.tail.append(vectors)
        self._active = np.concatenate([self._active, np.asarray(active, dtype=bool)])  # owned: set_active writes
        self._kind = np.concatenate([self._kind, np.asarray(kinds, dtype=np.int8)])
        self._allowed.clear()

    def set_active(self, row: int, active: bool) -> None:
        self._active[row] = active
        self._allowed.clear()

    def of_kinds(self, kinds: tuple[str, ...], *, include_inactive: bool = False) -> np.ndarray:
        """Rows of one of `kinds` (a mask), superseded ones only when asked."""
        return self.allowed(kinds) if not include_inactive else np.isin(self._kind, [KIND_CODES[k] for k in kinds])

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
        query = np.ascontiguousarray(query, dtype=np.float32).reshape(1, self.dimension)
        approx = self.approximate_index if not exact else None
        if approx is not None and allowed_rows >= APPROX_MIN_SHARE * len(allowed):
            rows, _ = approx.search(query, max(k, RERANKED), allowed)
            return self._reranked(rows, query, k)
        return self._rows.search(query, k, allowed)

    def _reranked(self, rows: np.ndarray, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The k of `rows` closest to `query` by their exact vectors (the graph's float16
        vectors only find them): the cosines returned are exact."""
        scores = self._rows.take(rows) @ query[0]
        order = np.argsort(-scores, kind="stable")[:k]
        return rows[order], scores[order]

    def vectors(self, rows: np.ndarray | list[int]) -> np.ndarray:
        """The stored vectors of `rows`, shape (len(rows), dimension)."""
        return self._rows.take(np.asarray(rows, dtype=np.int64))

    def matrix(self) -> np.ndarray:
        """A copy of every vector in row order."""
        return self._rows.copy()

    def row_blocks(self) -> list[np.ndarray]:
        """Every vector in row order, as the blocks they are kept in (for saving)."""
        return self._rows.blocks()

    # -- the approximate index -------------------------------------------------------------------
    @property
    def approximate(self) -> bool:
        """Whether there is an approximate index (read yet or not)."""
        return self._approx is not None or self._approx_later is not None

    @property
    def approximate_index(self) -> Approximate | None:
        """The approximate index, read now if it was saved to be read on first need."""
        if self._approx_later is not None:
            read, self._approx_later = self._approx_later, None
            try:
                self.use_approximate(*read())
            except (OSError, ValueError, RuntimeError) as exc:  # gone or damaged since the store opened
                log.warning("the approximate index cannot be read (%s): searching exactly", exc)
        return self._approx

    def use_approximate_later(self, read: Callable[[], SavedGraph]) -> None:
        """Take a saved graph (see use_approximate) when it is first needed: `read` reads it.
        Opening a store then reads none of it (at a million memories, 260 MB of neighbour lists
        that FAISS reads as it opens the graph), and a command that never searches by meaning
        (listing, showing, forgetting by id) never does."""
        self._approx, self._approx_later = None, read

    def build_approximate(self) -> None:
        """Build the HNSW index over every row (at compaction; minutes at a million rows)."""
        self._approx_later = None
        self._approx = Approximate(build_graph(self.row_blocks(), self.dimension), None, self.dimension)

    def use_approximate(self, graph: faiss.Index, rows: np.ndarray | None) -> None:
        """Take a saved HNSW graph whose nodes are rows (`rows`: the row of each node, -1 for a
        forgotten one; None: node i is row i); ValueError unless it covers a prefix of rows."""
        approx = Approximate(graph, rows, self.dimension)
        if graph.d != self.dimension or approx.covered > len(self):
            raise ValueError("the saved approximate index does not cover these vectors")
        approx.tail.append(self.vectors(np.arange(approx.covered, len(self))))
        self._approx, self._approx_later = approx, None

    def fold_approximate(self) -> Approximate:
        """The approximate index as compaction saves it: the tail folded into the graph and
        forgotten nodes zeroed, or a fresh graph once they are a large share of it."""
        approx = self.approximate_index
        if approx is None or approx.needs_rebuild():
            self.build_approximate()
        else:
            self._approx = approx.folded()
        assert self._approx is not None
        return self._approx

    def keep_approximate(self, old: DenseIndex, kept_rows: np.ndarray) -> None:
        """After a forget: this index holds `old`'s rows `kept_rows` (in order); take `old`'s
        graph with the forgotten rows' nodes cut out of its row map, instead of a rebuild."""
        approx = old.approximate_index
        if approx is None:
            return
        self.use_approximate(*approx.renumbered(kept_rows, len(old)))

