"""The approximate (HNSW) side of dense search: a graph over the rows of the snapshot, an exact
index over the rows added since, and the row map that lets a forget keep the graph.

The graph keeps each vector as float16 (FAISS's scalar quantizer), not float32: half the size,
and searches touch every node's vector sooner or later (at a million memories the float32 graph
was 1.8 GB, and 200 searches brought 1.3 GB of it into memory; the float16 graph is 1.0 GB).
8-bit codes (0.66 GB) were measured too: at a million tiled memories their agreement@10 with
exact search was 0.942, and 0.979 only when 300 rows were re-ranked, against the goal of 0.98.
Scores from the graph are approximate, so the dense index re-ranks what it finds with the exact
vectors (vectors.py). A graph saved by an earlier version, with float32 vectors, is still read
and used until it is next rebuilt.

The graph may be memory-mapped from its file (read-only: FAISS aborts on an add to a mapped
index), so nothing is ever added to it in place. `folded()` makes the owned copy compaction
saves: the tail added to the graph, and the vectors of forgotten rows' nodes zeroed, so no copy
of them stays on disk.
"""

from __future__ import annotations

import faiss
import numpy as np

from .rows import Found, VectorRows, bitmap_selector, merge_best

HNSW_NEIGHBOURS = 32  # graph degree (M)
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 96
REBUILD_DEAD_SHARE = 0.2  # rebuild the graph once this share of its nodes are forgotten rows
STORAGE = faiss.ScalarQuantizer.QT_fp16  # needs no training (8-bit codes would learn ranges)
GRAPHS = (faiss.IndexHNSWSQ, faiss.IndexHNSWFlat)  # what is built, and what an earlier version built


def build_graph(blocks: list[np.ndarray], dimension: int) -> faiss.Index:
    """An HNSW graph keeping float16 vectors, over the rows of `blocks`, in order (each block
    given to FAISS as it is kept, a memory map or the rows added since: never joined). The links
    are chosen with the float32 vectors (an IndexHNSWFlat is built, then its graph is given the
    float16 codes): at a million tiled memories a graph linked by float16 distances agreed with
    exact search on 0.979 of the top 10, one linked by float32 ones on 0.983, and built in 101 s
    instead of 386 s (scripts/bench_stores.py, docs/memory-store.md)."""
    linked = faiss.IndexHNSWFlat(dimension, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
    linked.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
    for block in blocks:
        if len(block):
            linked.add(np.ascontiguousarray(block, dtype=np.float32))
    index = faiss.IndexHNSWSQ(dimension, STORAGE, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
    index.hnsw = linked.hnsw  # (copied: `linked` and its float32 vectors go when this returns)
    for block in blocks:
        if len(block):
            index.storage.add(np.ascontiguousarray(block, dtype=np.float32))
    index.ntotal = linked.ntotal
    return index


class Approximate:
    """HNSW over rows [0, covered) and an exact index over rows [covered, ...)."""

    def __init__(self, graph: faiss.Index, rows: np.ndarray | None, dimension: int) -> None:
        if not isinstance(graph, GRAPHS):
            raise ValueError("not an HNSW index")
        if rows is not None and len(rows) != graph.ntotal:
            raise ValueError("the row map does not cover the graph")
        self.graph = graph
        self.rows = rows  # the row of each node, -1 for a forgotten one; None: node i is row i
        live = graph.ntotal if rows is None else int(np.count_nonzero(rows >= 0))
        if rows is not None and not np.array_equal(np.sort(rows[rows >= 0]), np.arange(live)):
            raise ValueError("the row map is not a numbering of the first rows")
        self.covered = live
        self.tail = VectorRows(dimension)

    @property
    def dead(self) -> int:
        return 0 if self.rows is None else int(np.count_nonzero(self.rows < 0))

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The k best allowed rows from the graph and the tail, merged: (rows, cosines)."""
        found: list[Found] = []
        if self.rows is None:
            nodes_allowed = allowed[: self.covered]
        else:
            nodes_allowed = allowed[np.maximum(self.rows, 0)] & (self.rows >= 0)
        if nodes_allowed.any():
            selector, _bitmap = bitmap_selector(nodes_allowed)
            params = faiss.SearchParametersHNSW(sel=selector, efSearch=max(HNSW_EF_SEARCH, k))
            scores, nodes = self.graph.search(query, k, params=params)
            keep = nodes[0] >= 0
            rows = nodes[0][keep] if self.rows is None else self.rows[nodes[0][keep]]
            found.append((rows, scores[0][keep]))
        tail_allowed = allowed[self.covered :]
        if tail_allowed.any():
            rows, scores = self.tail.search(query, k, tail_allowed)
            found.append((rows + self.covered, scores))
        return merge_best(found, k)

    def renumbered(self, kept_rows: np.ndarray, old_rows: int) -> tuple[faiss.Index, np.ndarray]:
        """The graph and its row map once only `kept_rows` (of `old_rows`) stay, renumbered in
        order; the tail's rows are not in the graph and stay tail rows."""
        new_of_old = np.full(old_rows, -1, dtype=np.int64)
        new_of_old[np.asarray(kept_rows, dtype=np.int64)] = np.arange(len(kept_rows))
        nodes = np.arange(self.graph.ntotal) if self.rows is None else self.rows
        rows = np.where(nodes >= 0, new_of_old[np.maximum(nodes, 0)], -1)
        return self.graph, rows

    def needs_rebuild(self) -> bool:
        return self.dead > REBUILD_DEAD_SHARE * max(1, self.graph.ntotal)

    def folded(self) -> Approximate:
        """An owned copy with the tail added to the graph and forgotten nodes' vectors zeroed."""
        graph = faiss.deserialize_index(faiss.serialize_index(self.graph))  # never add to a mapped one
        rows = self.rows
        if len(self.tail):
            graph.add(self.tail.copy())
            added = np.arange(self.covered, self.covered + len(self.tail))
            rows = None if rows is None else np.concatenate([rows, added])
        if rows is not None:
            stored_codes(graph)[rows < 0] = 0
        return Approximate(graph, rows, graph.d)


def stored_codes(graph: faiss.Index) -> np.ndarray:
    """What the graph keeps of each node's vector, one row a node, writable in place: its
    scalar quantizer's codes (float16), or float32 in a graph an earlier version built."""
    storage = faiss.downcast_index(graph.storage)
    if isinstance(storage, faiss.IndexScalarQuantizer):
        codes = faiss.rev_swig_ptr(storage.codes.data(), graph.ntotal * storage.code_size)
        return codes.reshape(graph.ntotal, storage.code_size)
    return faiss.rev_swig_ptr(storage.get_xb(), graph.ntotal * graph.d).reshape(graph.ntotal, graph.d)
