"""Compaction: fold the journal into a new snapshot generation.

Order matters for crash safety: (1) the new vectors file and the derived files (lexical,
approximate, columns), under new names; (2) the snapshot, atomically replaced, naming them;
(3) a fresh journal for the new generation; (4) the old generation's files and leftover temp
files are deleted. A crash before (2) leaves the old generation intact; a crash after (2) leaves
a journal of an older generation, which readers ignore (its operations are in the snapshot) and
the next writer replaces.

A record that has not changed since the snapshot keeps its line: its bytes are copied from the
old snapshot (checked against their CRC-32) and its columns from the old columns file, so a
compaction reads and encodes only what changed.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..index.state import MemoryState, Records
from ..index.vectors import approximate_due
from .approx_file import approx_stamp, write_approx
from .columns import COLUMNS_FORMAT, ColumnsStamp, SavedColumns, line_crcs, write_columns
from .journal import create_journal
from .layout import APPROX_PREFIX, COLUMNS_PREFIX, LEXICAL_PREFIX, TEMP_FILE, VECTORS_PREFIX, StorePaths
from .lexical_file import stamp_for, write_lexical
from .row_columns import RowColumns
from .snapshot import VectorMeta, encode_snapshot, record_line, write_vectors

VECTOR_FILE = re.compile(re.escape(VECTORS_PREFIX) + r"\d+\.npy")
DERIVED_FILE = re.compile(rf"(?:{re.escape(LEXICAL_PREFIX)}|{re.escape(APPROX_PREFIX)})\d+\.npz"
                          rf"|{re.escape(APPROX_PREFIX)}\d+\.faiss"
                          rf"|(?:{re.escape(LEXICAL_PREFIX)}|{re.escape(COLUMNS_PREFIX)})\d+\.bin")
JOURNAL_MIN_OPS = 1000
JOURNAL_SHARE = 0.25  # compact once the journal holds this share of the store's records


def compaction_due(journal_ops: int, records: int) -> bool:
    return journal_ops >= max(JOURNAL_MIN_OPS, int(records * JOURNAL_SHARE))


def write_generation(paths: StorePaths, state: MemoryState, generation: int, embedding_id: str) -> int:
    """Write `state` as snapshot `generation` with its vectors and an empty journal; returns
    the length of the new journal (its header). (Large parts are written as they are kept, and
    the approximate index before the snapshot is encoded: at a million memories each is a GB.)"""
    lines, crcs, rows = _lines_and_columns(state.records)
    vectors_path, columns_path = paths.vectors(generation), paths.columns(generation)
    lexical_path, approx_path = paths.lexical(generation), paths.approx(generation)
    meta = VectorMeta(
        file=vectors_path.name,
        embedding_id=embedding_id,
        dimension=state.dense.dimension,
        count=len(state),
        ids_sha256=rows.ids_sha256(),
        sha256=write_vectors(vectors_path, state.dense.row_blocks(), state.dense.dimension),
    )
    if approximate_due(len(state)):
        write_approx(approx_path, state.dense, approx_stamp(generation, len(state), meta.sha256))
    encoded = encode_snapshot(generation, state.next_seq, meta, columns_path.name, lines)
    del lines
    if len(state):
        write_lexical(lexical_path, state.lexical, stamp_for(generation, state.records, encoded.records_sha256))
    stamp = ColumnsStamp(COLUMNS_FORMAT, generation, len(state), encoded.head_sha256, encoded.size,
                         meta.ids_sha256, encoded.records_sha256)
    write_columns(columns_path, stamp, rows, encoded.lines, crcs)
    encoded.write(paths.snapshot)
    header_length = create_journal(paths.journal, generation)
    remove_leftovers(paths, keep={vectors_path, lexical_path, approx_path, columns_path})
    return header_length


def _lines_and_columns(records: Records) -> tuple[list[bytes], np.ndarray, RowColumns]:
    """Each record's snapshot line, its CRC-32 and its columns: copied for the rows of a
    snapshot read through its columns that have not changed since, made for the rest."""
    saved = records.saved
    if not isinstance(saved, SavedColumns):
        everything = list(records)
        lines = [record_line(record) for record in everything]
        return lines, line_crcs(lines), RowColumns.of(everything)
    count = records.saved_count
    changed = np.asarray(sorted(records.changed), dtype=np.int64)
    added = records[count:]
    lines = saved.lines()
    crcs = np.array(saved.array("line_crc"), dtype=np.uint32)
    for row in changed:
        lines[row] = record_line(records[int(row)])
        crcs[row] = line_crcs([lines[row]])[0]
    fresh = [record_line(record) for record in added]
    lines += fresh
    rows = saved.row_columns().replaced(changed, RowColumns.of([records[int(row)] for row in changed]))
    return lines, np.concatenate([crcs, line_crcs(fresh)]), rows.then(RowColumns.of(added))


def remove_leftovers(paths: StorePaths, keep: set[Path]) -> None:
    """Old vector, lexical and approximate-index files, and temp files of writes that never
    finished (callers hold the lock, so no write is in progress)."""
    for path in paths.own_files():
        generational = VECTOR_FILE.fullmatch(path.name) or DERIVED_FILE.fullmatch(path.name)
        if (generational and path not in keep) or TEMP_FILE.fullmatch(path.name):
            path.unlink(missing_ok=True)
