"""Query embedding and hybrid recall at growing store sizes (in a child process)."""

from __future__ import annotations

import time
from functools import partial
from typing import Any

from .measure import peak_rss_mb, timed_ms
from .stats import spread
from .synthetic import RECALL_QUERIES, synthetic_state


def measure_recall(sizes: tuple[int, ...], passes: int, k: int) -> dict[str, Any]:
    """Query embedding latency, then hybrid recall (the product's `hybrid_recall` over the
    store's own indexes) at each store size, with the query vectors computed beforehand:
    `recall_ms` as chat recalls (with the ranker), `fused_only_ms` without the ranker."""
    from ..memory.index import recall
    from ..memory.index.embedder import Embedder

    embedder = Embedder()
    queries = list(RECALL_QUERIES)
    embedder.embed(queries[:1])  # loads the model; the first call is slow
    embed_ms = [timed_ms(partial(embedder.embed, [q])) for q in queries * passes]
    vectors = embedder.embed(queries)
    scales = [_recall_at(size, queries, vectors, embedder.dimension, passes, k, recall) for size in sizes]
    return {"query_embedding_ms": spread(embed_ms), "recall": scales, "k": k, "queries": len(queries),
            "peak_rss_mb": peak_rss_mb()}


def _recall_at(size: int, queries: list[str], vectors: Any, dimension: int, passes: int, k: int,
               recall: Any) -> dict[str, Any]:
    start = time.perf_counter()
    state = synthetic_state(size, dimension)
    build_s = time.perf_counter() - start

    def search(index: int, ranker: Any = "packaged") -> list[Any]:
        return recall.hybrid_recall(state, queries[index], vectors[index], k=k, kinds=("fact", "turn"),
                                    min_score=recall.DEFAULT_MIN_SCORE, ranker=ranker)

    search(0)  # warm-up
    times = [timed_ms(partial(search, i)) for _ in range(passes) for i in range(len(queries))]
    fused_only = [timed_ms(partial(search, i, None)) for _ in range(passes) for i in range(len(queries))]
    hits = [len(search(i)) for i in range(len(queries))]
    return {"memories": size, "build_s": build_s, "recall_ms": spread(times), "fused_only_ms": spread(fused_only),
            "hits": spread(hits)}
