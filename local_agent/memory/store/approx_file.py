"""The persisted approximate (HNSW) dense index of a large store: `hnsw-<gen>.npz`.

Like the lexical file it is derived data, written at compaction before the snapshot of its
generation and stamped with what it must match (generation, row count, the checksum of the
vector file it was built from). A file that is missing, damaged or stale is not used: the store
searches exactly and rebuilds it at once (a compaction, so it is saved). It holds vectors and
row numbers, no text.
"""

from __future__ import annotations

import io
import json
import logging
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ...files import atomic_write_bytes
from ..index.vectors import DenseIndex

log = logging.getLogger(__name__)

APPROX_FORMAT = 1


@dataclass(frozen=True)
class ApproxStamp:
    format: int
    generation: int
    count: int
    vectors_sha256: str


def approx_stamp(generation: int, count: int, vectors_sha256: str) -> ApproxStamp:
    return ApproxStamp(APPROX_FORMAT, generation, count, vectors_sha256)


def write_approx(path: Path, dense: DenseIndex, stamp: ApproxStamp) -> None:
    """Save `dense`'s approximate index (built first if it has none), atomically."""
    if not dense.approximate:
        dense.build_approximate()
    stamp_bytes = np.frombuffer(json.dumps(asdict(stamp)).encode("utf-8"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, stamp=stamp_bytes, index=dense.approximate_bytes())
    atomic_write_bytes(path, buffer.getvalue())


def load_approx(path: Path, dense: DenseIndex, stamp: ApproxStamp) -> bool:
    """Give `dense` the saved index if it matches `stamp`; False (with one notice) if not."""
    try:
        with np.load(path, allow_pickle=False) as saved:
            if json.loads(bytes(saved["stamp"]).decode("utf-8")) != asdict(stamp):
                raise ValueError("it does not match the vectors")
            dense.use_approximate(saved["index"])
        return True
    except FileNotFoundError:
        reason = "is missing"
    except (OSError, ValueError, KeyError, EOFError, RuntimeError, zipfile.BadZipFile, UnicodeDecodeError) as exc:
        reason = f"cannot be used ({exc})"
    log.warning("%s %s: searching exactly until it is rebuilt from the %d vectors", path.name, reason, stamp.count)
    return False
