"""The persisted approximate (HNSW) dense index of a large store: `hnsw-<gen>.faiss`.

Like the lexical file it is derived data, written at compaction before the snapshot of its
generation and stamped with what it must match (generation, row count, the checksum of the
vector file it was built from). A file that is missing, damaged or stale is not used: the store
searches exactly and rebuilds it at once (a compaction, so it is saved). It holds vectors and
row numbers, no text; after a forget the forgotten rows' vectors are zeroed in it.

Layout: FAISS's own index file first, so that it is memory-mapped rather than read (opening a
store costs no copy of the graph), then the row map (int64 per node, absent while node i is row
i), the stamp as JSON, the stamp's length (8 bytes, little-endian) and MAGIC.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import faiss
import numpy as np

from ...process.files import atomic_file
from ..index.vectors import DenseIndex

log = logging.getLogger(__name__)

APPROX_FORMAT = 2
MAGIC = b"LAHNSW02"
FOOTER = 16  # stamp length + MAGIC


@dataclass(frozen=True)
class ApproxStamp:
    format: int
    generation: int
    count: int
    vectors_sha256: str


def approx_stamp(generation: int, count: int, vectors_sha256: str) -> ApproxStamp:
    return ApproxStamp(APPROX_FORMAT, generation, count, vectors_sha256)


def write_approx(path: Path, dense: DenseIndex, stamp: ApproxStamp) -> None:
    """Save `dense`'s approximate index (its tail folded in, built first if it has none),
    streamed from FAISS into the file (never a serialized copy in memory)."""
    approx = dense.fold_approximate()
    rows = b"" if approx.rows is None else np.asarray(approx.rows, dtype="<i8").tobytes()
    with atomic_file(path) as handle:
        faiss.write_index(approx.graph, faiss.PyCallbackIOWriter(handle.write))
        graph_bytes = handle.tell()
        header = {**asdict(stamp), "graph_bytes": graph_bytes, "map_rows": len(rows) // 8}
        text = json.dumps(header).encode("utf-8")
        for part in (rows, text, len(text).to_bytes(8, "little"), MAGIC):
            handle.write(part)


def load_approx(path: Path, dense: DenseIndex, stamp: ApproxStamp) -> bool:
    """Give `dense` the saved index if its footer matches `stamp`, to be read (memory-mapped)
    on its first search; False (with one notice) if it does not match."""
    try:
        graph_bytes, map_rows = _check_footer(path, stamp)
        dense.use_approximate_later(lambda: _read_graph(path, graph_bytes, map_rows))
        return True
    except FileNotFoundError:
        reason = "is missing"
    except (OSError, ValueError, KeyError, EOFError, RuntimeError, UnicodeDecodeError) as exc:
        reason = f"cannot be used ({exc})"
    log.warning("%s %s: searching exactly until it is rebuilt from the %d vectors", path.name, reason, stamp.count)
    return False


def _read_graph(path: Path, graph_bytes: int, map_rows: int) -> tuple[faiss.Index, np.ndarray | None]:
    rows = np.fromfile(path, dtype="<i8", count=map_rows, offset=graph_bytes) if map_rows else None
    return faiss.read_index(str(path), faiss.IO_FLAG_MMAP_IFC | faiss.IO_FLAG_READ_ONLY), rows


def _check_footer(path: Path, stamp: ApproxStamp) -> tuple[int, int]:
    """The graph's length and the row map's rows, once the footer proves the file whole and
    made for `stamp`; ValueError otherwise."""
    size = os.stat(path).st_size
    with open(path, "rb") as handle:
        handle.seek(max(0, size - FOOTER))
        footer = handle.read(FOOTER)
        if len(footer) != FOOTER or footer[8:] != MAGIC:
            raise ValueError("it has no valid footer")
        length = int.from_bytes(footer[:8], "little")
        if length > size - FOOTER:
            raise ValueError("its footer is damaged")
        handle.seek(size - FOOTER - length)
        header = json.loads(handle.read(length).decode("utf-8"))
    if not isinstance(header, dict) or {k: header.get(k) for k in asdict(stamp)} != asdict(stamp):
        raise ValueError("it does not match the vectors")
    graph_bytes, map_rows = header.get("graph_bytes"), header.get("map_rows")
    if not isinstance(graph_bytes, int) or not isinstance(map_rows, int) or graph_bytes <= 0 or map_rows < 0:
        raise ValueError("its stamp is damaged")
    if graph_bytes + 8 * map_rows + length + FOOTER != size:
        raise ValueError("it is truncated or has extra bytes")
    return graph_bytes, map_rows
