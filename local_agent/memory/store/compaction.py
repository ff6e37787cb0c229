"""Compaction: fold the journal into a new snapshot generation.

Order matters for crash safety: (1) the new vectors file, under a new name; (2) the snapshot,
atomically replaced, naming that file; (3) a fresh journal for the new generation; (4) the old
vectors and leftover temp files are deleted. A crash before (2) leaves the old generation
intact; a crash after (2) leaves a journal of an older generation, which readers ignore (its
operations are in the snapshot) and the next writer replaces.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...process.files import atomic_write_bytes
from ..index.state import MemoryState
from ..index.vectors import approximate_due
from .approx_file import approx_stamp, write_approx
from .journal import create_journal
from .layout import APPROX_PREFIX, LEXICAL_PREFIX, TEMP_FILE, VECTORS_PREFIX, StorePaths
from .lexical_file import stamp_for, write_lexical
from .snapshot import Snapshot, VectorMeta, encode_snapshot, ids_checksum, write_vectors

VECTOR_FILE = re.compile(re.escape(VECTORS_PREFIX) + r"\d+\.npy")
DERIVED_FILE = re.compile(rf"(?:{re.escape(LEXICAL_PREFIX)}|{re.escape(APPROX_PREFIX)})\d+\.npz"
                          rf"|{re.escape(APPROX_PREFIX)}\d+\.faiss")
JOURNAL_MIN_OPS = 1000
JOURNAL_SHARE = 0.25  # compact once the journal holds this share of the store's records


def compaction_due(journal_ops: int, records: int) -> bool:
    return journal_ops >= max(JOURNAL_MIN_OPS, int(records * JOURNAL_SHARE))


def write_generation(paths: StorePaths, state: MemoryState, generation: int, embedding_id: str) -> int:
    """Write `state` as snapshot `generation` with its vectors and an empty journal; returns
    the length of the new journal (its header)."""
    vectors_path = paths.vectors(generation)
    matrix = state.dense.matrix()
    meta = VectorMeta(
        file=vectors_path.name,
        embedding_id=embedding_id,
        dimension=state.dense.dimension,
        count=len(state),
        ids_sha256=ids_checksum([record.id for record in state.records]),
        sha256=write_vectors(vectors_path, matrix),
    )
    snapshot, records_sha256 = encode_snapshot(Snapshot(generation, state.next_seq, state.records, meta))
    lexical_path, approx_path = paths.lexical(generation), paths.approx(generation)
    if state.records:
        write_lexical(lexical_path, state.lexical, stamp_for(generation, state.records, records_sha256))
    if approximate_due(len(state)):
        write_approx(approx_path, state.dense, approx_stamp(generation, len(state), meta.sha256))
    atomic_write_bytes(paths.snapshot, snapshot)
    header_length = create_journal(paths.journal, generation)
    remove_leftovers(paths, keep={vectors_path, lexical_path, approx_path})
    return header_length


def remove_leftovers(paths: StorePaths, keep: set[Path]) -> None:
    """Old vector, lexical and approximate-index files, and temp files of writes that never
    finished (callers hold the lock, so no write is in progress)."""
    for path in paths.own_files():
        generational = VECTOR_FILE.fullmatch(path.name) or DERIVED_FILE.fullmatch(path.name)
        if (generational and path not in keep) or TEMP_FILE.fullmatch(path.name):
            path.unlink(missing_ok=True)
