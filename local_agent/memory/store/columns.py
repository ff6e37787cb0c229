"""The columns file `columns-<gen>.bin`: the snapshot's records as columns, so that opening a
store reads no record (the design, with measurements, is in docs/memory-store.md).

memories.json stays the truth and the human-readable form; this file indexes it. Per row it
holds where the record's line lies in memories.json (offset, length, CRC-32), the id, the kind,
whether it is active, when it was said, and hashes of its key and conversation; and, derived
from those, the ids in sorted order (lookups by id and prefix are binary searches), the date
index (said_times.SaidColumns), and the rows keys and conversations last pointed to. Opening
memory-maps both files; a record is parsed from its line when it is read, after its CRC-32 is
checked, so a line that differs from what was indexed is named as damage, never used.

It is derived data, written at compaction before the snapshot it indexes, and stamped with that
snapshot's generation, the checksum of its header and its size. A file that does not match (a
snapshot edited by hand, a crash between the two writes, an older format) is not used: the
snapshot is read whole, and the columns are made again from it (arrays_file.py says how the file
is laid out and checked).
"""

from __future__ import annotations

import logging
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import orjson

from ...types import MemoryRecord
from ..index.mention_times import MentionColumns
from ..index.said_times import SaidColumns
from ..index.saved import key_label, label_hash
from ..index.state import CONTEXT_TURNS
from ..index.traits import TraitColumns
from ..index.vectors import KIND_CODES
from .arrays_file import ArraysFile, write_arrays
from .layout import FileDamage, corrupt
from .row_columns import COPIED_FIELDS, RowColumns, last_per_hash, previous_per_hash
from .snapshot import Head, LineSpans, OpenFile, Snapshot

log = logging.getLogger(__name__)

COLUMNS_KIND = "local-agent memory columns"
COLUMNS_FORMAT = 4  # 2: turn_before; 3: mention_start, mention_end, mention_more; 4: trait_*


@dataclass(frozen=True)
class ColumnsStamp:
    """What a columns file must match to be used: the snapshot it indexes."""

    format: int
    generation: int
    count: int
    snapshot_head: str  # sha256 of the snapshot's header bytes
    snapshot_bytes: int  # the snapshot's size
    ids_sha256: str  # of the ids in row order (what the vector file names)
    records_sha256: str  # of the record lines as indexed (what the lexical file names)


def stamp_of(head: Head, count: int, ids_sha256: str, records_sha256: str) -> ColumnsStamp:
    return ColumnsStamp(COLUMNS_FORMAT, head.generation, count, head.sha256, head.size, ids_sha256, records_sha256)


def write_columns(path: Path, stamp: ColumnsStamp, rows: RowColumns, lines: LineSpans, crcs: np.ndarray) -> None:
    """Save the columns of a snapshot (`lines`: where its records lie, `crcs`: their CRC-32)."""
    write_arrays(path, COLUMNS_KIND, columns_arrays(stamp, rows, lines, crcs), {"stamp": asdict(stamp)})


def columns_arrays(stamp: ColumnsStamp, rows: RowColumns, lines: LineSpans, crcs: np.ndarray) -> dict[str, np.ndarray]:
    """What a columns file holds, from its per-row columns."""
    if not len(rows.ids) == len(lines.start) == len(crcs) == stamp.count:
        raise ValueError("columns of different lengths")
    order = np.argsort(rows.ids, kind="stable").astype(np.int32)
    said = SaidColumns.of(rows.said_start, rows.said_end)
    keys = np.flatnonzero((rows.key_hash != 0) & rows.active & (rows.kinds == KIND_CODES["fact"]))
    key_hashes, key_rows = last_per_hash(rows.key_hash, keys, 1)
    turns = np.flatnonzero(rows.session_hash != 0)
    turn_hashes, turn_rows = last_per_hash(rows.session_hash, turns, CONTEXT_TURNS)
    turn_before = previous_per_hash(rows.session_hash, turns, len(rows.ids))
    arrays = {
        "line_start": lines.start, "line_length": lines.length, "line_crc": np.asarray(crcs, dtype=np.uint32),
        "ids": rows.ids, "id_order": order, "ids_sorted": rows.ids[order],
        "kinds": rows.kinds, "active": rows.active,
        "key_hash": rows.key_hash, "session_hash": rows.session_hash,
        "said_start": said.start, "said_end": said.end, "said_moments": said.moments,
        "said_moment_starts": said.moment_starts, "said_spans": said.spans,
        **{name: getattr(rows, name) for name in COPIED_FIELDS},
        "key_table_hash": key_hashes, "key_table_row": key_rows[:, 0],
        "turn_table_hash": turn_hashes, "turn_table_rows": turn_rows, "turn_before": turn_before,
    }
    return arrays


def _pieces(opened: OpenFile, starts: np.ndarray, lengths: np.ndarray) -> list[bytes]:
    """The pieces of the file at `starts` (ascending) with `lengths`: the span they cover is
    read at once, in blocks, and cut (a snapshot's records are its lines, in order)."""
    pieces: list[bytes] = []
    starts_list, lengths_list = starts.tolist(), lengths.tolist()
    index = 0
    while index < len(starts_list):
        first = starts_list[index]
        stop = index
        while stop < len(starts_list) and starts_list[stop] + lengths_list[stop] - first <= PIECES_BLOCK:
            stop += 1
        stop = max(stop, index + 1)
        block = opened.read(first, starts_list[stop - 1] + lengths_list[stop - 1] - first)
        pieces += [block[start - first : start - first + length]
                   for start, length in zip(starts_list[index:stop], lengths_list[index:stop])]
        index = stop
    return pieces


PIECES_BLOCK = 1 << 24  # bytes read at a time when every line is wanted


def line_crcs(lines: Sequence[bytes]) -> np.ndarray:
    return np.fromiter((zlib.crc32(line) for line in lines), dtype=np.uint32, count=len(lines))


@dataclass(frozen=True)
class Indexed:
    """The columns of a snapshot read whole, ready to write."""

    stamp: ColumnsStamp
    rows: RowColumns
    lines: LineSpans
    crcs: np.ndarray

    def arrays(self) -> dict[str, np.ndarray]:
        return columns_arrays(self.stamp, self.rows, self.lines, self.crcs)

    def write(self, path: Path) -> None:
        write_columns(path, self.stamp, self.rows, self.lines, self.crcs)


def index_whole(snapshot: Snapshot, head: Head, opened: OpenFile) -> Indexed | None:
    """The columns of `snapshot` (read whole from the file `opened`, whose header is `head`),
    or None when its records are not laid out one a line (then it has none until the next
    compaction writes it again)."""
    lines = snapshot.lines
    if lines is None or snapshot.body_sha256 is None or opened.size != head.size or not snapshot.records:
        return None
    crcs = line_crcs(_pieces(opened, lines.start, lines.length))
    rows = RowColumns.of(snapshot.records)
    return Indexed(stamp_of(head, len(snapshot.records), rows.ids_sha256(), snapshot.body_sha256), rows, lines, crcs)


class SavedColumns:
    """A snapshot's records through its columns (index.saved.SavedRows): nothing read until
    asked. A line or column that fails its check is reported as damage (StoreCorruptError)."""

    def __init__(self, snapshot: Path, opened: OpenFile, columns: ArraysFile) -> None:
        self.snapshot = snapshot
        self.columns = columns
        self._file = opened
        self._count = int(columns.meta["stamp"]["count"])
        self.ids_sha256: str = columns.meta["stamp"]["ids_sha256"]
        self.records_sha256: str = columns.meta["stamp"]["records_sha256"]  # of the lines it indexes
        self._said: SaidColumns | None = None

    def __len__(self) -> int:
        return self._count

    def array(self, name: str) -> np.ndarray:
        try:
            return self.columns[name]
        except (ValueError, KeyError) as exc:
            raise corrupt(FileDamage(self.columns.path, str(exc))) from None

    @property
    def kinds(self) -> np.ndarray:
        return self.array("kinds")

    @property
    def active(self) -> np.ndarray:
        return self.array("active")

    @property
    def said(self) -> SaidColumns:
        if self._said is None:
            self._said = SaidColumns(self.array("said_start"), self.array("said_end"), self.array("said_moments"),
                                     self.array("said_moment_starts"), self.array("said_spans"))
        return self._said

    @property
    def mentions(self) -> MentionColumns:
        return MentionColumns(self.array("mention_start"), self.array("mention_end"), self.array("mention_more"))

    @property
    def traits(self) -> TraitColumns:
        return TraitColumns(self.array("trait_flags"), self.array("trait_words"), self.array("trait_speaker"),
                            self.array("trait_session"))

    @property
    def turn_before(self) -> np.ndarray:
        return self.array("turn_before")

    def line(self, row: int) -> bytes:
        """The record's line, as checked against its CRC-32."""
        start, length = int(self.array("line_start")[row]), int(self.array("line_length")[row])
        line = self._file.read(start, length)
        if len(line) != length or zlib.crc32(line) != int(self.array("line_crc")[row]):
            raise corrupt(FileDamage(self.snapshot, f"record {row + 1} is not what {self.columns.path.name} "
                                                    "indexed (the file was changed or damaged)"))
        return line

    def lines(self) -> list[bytes]:
        """Every record's line, each checked against its CRC-32 (for a compaction to copy)."""
        lines = _pieces(self._file, self.array("line_start"), self.array("line_length"))
        crcs = self.array("line_crc").tolist()
        for row, (line, crc) in enumerate(zip(lines, crcs)):
            if zlib.crc32(line) != crc:
                self.line(row)  # raises, naming it
        return lines

    def record(self, row: int) -> MemoryRecord:
        if not 0 <= row < self._count:
            raise IndexError("row out of range")
        line = self.line(row)
        try:
            data = orjson.loads(line)
        except orjson.JSONDecodeError:
            data = None
        if not isinstance(data, dict):
            raise corrupt(FileDamage(self.snapshot, f"record {row + 1} is not a JSON object"))
        return MemoryRecord.from_saved(data)

    def find(self, ident: str) -> int | None:
        found = self._sorted_from(ident)
        if found is None:
            return None
        position, key, ids = found
        if position < len(ids) and ids[position] == key:
            return int(self.array("id_order")[position])
        return None

    def with_prefix(self, prefix: str) -> list[int]:
        found = self._sorted_from(prefix)
        if found is None:
            return []
        position, key, ids = found
        order, rows = self.array("id_order"), []
        while position < len(ids) and ids[position].startswith(key):
            rows.append(int(order[position]))
            position += 1
        return rows

    def _sorted_from(self, text: str) -> tuple[int, bytes, np.ndarray] | None:
        """Where `text` (an id or a prefix) would sit among the sorted ids."""
        key = text.encode("utf-8", "surrogatepass")
        ids = self.array("ids_sorted")
        if not key or key.endswith(b"\0") or len(key) > ids.dtype.itemsize:
            return None
        return int(np.searchsorted(ids, key)), key, ids

    def keyed(self, key: tuple[str, str]) -> list[int]:
        return [int(row) for row in self._table("key_table_hash", "key_table_row", label_hash(key_label(key)))]

    def last_turns(self, session: str) -> list[int]:
        rows = self._table("turn_table_hash", "turn_table_rows", label_hash(session))
        return [int(row) for row in np.ravel(rows) if row >= 0]

    def _table(self, hash_name: str, row_name: str, wanted: int) -> np.ndarray:
        hashes, key = self.array(hash_name), np.uint64(wanted)
        first, stop = int(np.searchsorted(hashes, key, side="left")), int(np.searchsorted(hashes, key, side="right"))
        return self.array(row_name)[first:stop]

    def row_columns(self) -> RowColumns:
        """The per-row columns as saved (for the next compaction)."""
        return RowColumns(ids=self.array("ids"), kinds=self.kinds, active=self.active,
                          key_hash=self.array("key_hash"), session_hash=self.array("session_hash"),
                          said_start=self.array("said_start"), said_end=self.array("said_end"),
                          **{name: self.array(name) for name in COPIED_FIELDS})


def open_columns(root: Path, snapshot: Path, head: Head, opened: OpenFile,
                 *, check_up_to: int = 0) -> tuple[SavedColumns | None, str]:
    """The snapshot's records through the columns file its header names, or (None, why it
    cannot be used). A columns file no larger than `check_up_to` is checked whole."""
    name = head.columns
    if not isinstance(name, str) or name != Path(name).name or not name:
        return None, "the snapshot names no columns file"
    path = root / name
    try:
        columns = ArraysFile(path, COLUMNS_KIND, check_up_to=check_up_to, random=True)
    except FileNotFoundError:
        return None, f"{name} is missing"
    except (OSError, ValueError) as exc:
        return None, f"{name} cannot be read ({exc})"
    stamp = columns.meta.get("stamp")
    found = stamp if isinstance(stamp, dict) else {}
    count, ids_sha256, records_sha256 = found.get("count"), found.get("ids_sha256"), found.get("records_sha256")
    if not isinstance(count, int) or not isinstance(ids_sha256, str) or not isinstance(records_sha256, str) \
            or stamp != asdict(stamp_of(head, count, ids_sha256, records_sha256)):
        return None, f"{name} does not match {snapshot.name}"
    return SavedColumns(snapshot, opened, columns), ""


def columns_problem(columns: ArraysFile, expected: Indexed | None) -> str:
    """What is wrong with a columns file against the columns its snapshot should have ('' if
    nothing): a failed checksum, or contents that differ (`expected` None: the snapshot is no
    longer laid out to be indexed)."""
    try:
        columns.check()
    except ValueError as exc:
        return str(exc)
    if expected is None:
        return "indexes a snapshot that is no longer laid out one record a line"
    arrays = expected.arrays()
    if set(arrays) != set(columns) or any(not _same(arrays[name], columns[name]) for name in arrays):
        return "does not hold what the snapshot holds (the snapshot was changed, or this file damaged)"
    return ""


def _same(one: np.ndarray, other: np.ndarray) -> bool:
    """The same dtype, shape and bytes (NaN equal to itself)."""
    one = np.ascontiguousarray(one)
    return one.dtype == other.dtype and one.shape == other.shape and one.tobytes() == other.tobytes()
