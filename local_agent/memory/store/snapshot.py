"""The snapshot: every record in one human-readable JSON file, and the vectors beside it.

The snapshot starts with its format `version`, checked at load; older versions are brought up to
date by small named migration functions, one per step. Records are written one per line so the
file stays readable (and salvageable) at any size. The vectors live in `vectors-<gen>.npy`, one
float32 row per record in snapshot order; the snapshot names that file and records the
embedding model, the row count and checksums of the ids and of the vector bytes, so any
mismatch is detected.

The header also holds `records_sha256`, the checksum of the record lines as written. When it
matches, the records are ours as we wrote them (they were validated on the way in), and they
are built without checking each one again. Anything else (an edited or damaged file, or one
written before the checksum) is validated record by record.

Opening a store reads only the header (`read_head`): the columns file (columns.py) indexes the
record lines where they lie in this file, which is memory-mapped, and a record is parsed when it
is read. Reading the whole file (`read_snapshot`) is for a store without usable columns, an
older format, and the doctor.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ...process.files import atomic_file
from ...types import MemoryRecord
from .layout import FileDamage, NewerFormat
from .migrations import MIGRATIONS
from .records import record_from_json

RECORDS_START = b'\n  "records": [\n'
RECORDS_END = b'\n  ]\n}\n'
LINE_INDENT = b"    "
LINE_BREAK = b",\n" + LINE_INDENT  # between two record lines
HEAD_READ = 1 << 16  # the header is read in chunks of this size until the records start

SNAPSHOT_VERSION = 2
SNAPSHOT_FORMAT = "local-agent memory snapshot"


@dataclass
class VectorMeta:
    file: str
    embedding_id: str
    dimension: int
    count: int
    ids_sha256: str
    sha256: str


@dataclass
class Snapshot:
    generation: int
    next_seq: int
    records: list[MemoryRecord]
    vectors: VectorMeta | None
    migrated_from: int | None = None  # the version on disk, when it was older
    records_sha256: str | None = None  # the checksum of the record lines, when it held
    body_sha256: str | None = None  # the checksum of the record lines as read (our layout only)
    lines: LineSpans | None = None  # where each record's line lies in the file (our layout only)
    columns: str | None = None  # the columns file the header names


@dataclass(frozen=True)
class LineSpans:
    """Where each record's line lies in the snapshot file: byte offsets and lengths."""

    start: np.ndarray  # uint64
    length: np.ndarray  # uint32


@dataclass(frozen=True)
class Head:
    """The snapshot's header, read without its records: what opening a store reads."""

    version: int
    generation: int
    next_seq: int
    vectors: VectorMeta | None
    records_sha256: str | None
    columns: str | None  # the columns file it names
    sha256: str  # of the header's bytes (a columns file names it)
    size: int  # of the whole file when it was read


@dataclass(frozen=True)
class Encoded:
    """A snapshot file to write, in parts (never joined: a million records are 300 MB), with
    what its columns file records of it."""

    parts: tuple[bytes, ...]
    records_sha256: str
    head_sha256: str
    lines: LineSpans

    @property
    def size(self) -> int:
        return sum(map(len, self.parts))

    @property
    def data(self) -> bytes:
        return b"".join(self.parts)

    def write(self, path: Path) -> None:
        with atomic_file(path) as handle:
            for part in self.parts:
                handle.write(part)


# -- format versions -------------------------------------------------------------------------


def migrate(data: dict[str, Any], path: Path) -> dict[str, Any]:
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise FileDamage(path, "no format version")
    if version > SNAPSHOT_VERSION:
        raise NewerFormat(path, f"format version {version} is newer than this local-agent reads "
                               f"({SNAPSHOT_VERSION}); upgrade local-agent")
    while version < SNAPSHOT_VERSION:
        if version not in MIGRATIONS:
            raise FileDamage(path, f"unknown format version {version}")
        data = MIGRATIONS[version](data)
        version = data["version"]
    return data


# -- reading and writing -----------------------------------------------------------------------


class OpenFile:
    """A file kept open to read pieces of: the same file whatever replaces its name meanwhile.
    Records are read from it with pread, not through a memory map: each page a map touches
    brings the cached pages around it into the process too (the kernel's fault-around, 64 KB),
    and a file cut short under a map kills its reader (SIGBUS) where a read comes back short."""

    def __init__(self, path: Path) -> None:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        self._handle = os.fdopen(fd, "rb", buffering=0)
        self.size = os.fstat(fd).st_size

    def read(self, start: int, length: int) -> bytes:
        """`length` bytes from `start` (fewer at the end of the file)."""
        return os.pread(self._handle.fileno(), length, start)

    def close(self) -> None:
        self._handle.close()


def open_snapshot(path: Path) -> tuple[Head | None, OpenFile | None]:
    """The header of the snapshot at `path`, and the file, open. (None, None) when there is no
    file; (None, file) when the header cannot be read alone (an older layout, or damage:
    `read_snapshot` says which)."""
    try:
        opened = OpenFile(path)
    except FileNotFoundError:
        return None, None
    if not opened.size:
        opened.close()
        return None, None
    return _head(opened), opened


def _head(opened: OpenFile) -> Head | None:
    first = opened.read(0, HEAD_READ)
    start = first.find(RECORDS_START)
    if start < 0:
        return None
    raw = first[:start]
    try:
        data = json.loads(raw.rstrip(b",") + b"}")
        vectors = data.get("vectors")
        return Head(version=data["version"], generation=int(data["generation"]), next_seq=int(data["next_seq"]),
                    vectors=VectorMeta(**vectors) if vectors else None, records_sha256=data.get("records_sha256"),
                    columns=data.get("columns"), sha256=hashlib.sha256(raw).hexdigest(), size=opened.size)
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None


def read_snapshot(path: Path, *, validate: bool = False) -> Snapshot | None:
    """The snapshot at `path`, every record read (None when there is none). Raises FileDamage.
    `validate` checks every record even when the checksum holds (the doctor)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    claimed, body = _records_digest(raw)
    digest = claimed if claimed == body else None
    trusted = digest is not None and not validate
    try:
        data = _parse(raw, trusted)
    except (ValueError, RecursionError) as exc:  # bad JSON or UTF-8, a number too long, too deep
        raise FileDamage(path, f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise FileDamage(path, "not a JSON object")
    original = data.get("version")
    data = migrate(data, path)
    snapshot = _from_json(data, path, trusted and original == SNAPSHOT_VERSION)
    snapshot.migrated_from = original if original != SNAPSHOT_VERSION else None
    snapshot.records_sha256 = digest if original == SNAPSHOT_VERSION else None
    snapshot.body_sha256 = body
    if original == SNAPSHOT_VERSION:
        snapshot.lines = _line_spans(raw, len(snapshot.records))
        snapshot.columns = data.get("columns") if isinstance(data.get("columns"), str) else None
    return snapshot


def _records_digest(raw: bytes) -> tuple[str | None, str | None]:
    """The header's records_sha256, and the checksum of the record lines that follow it (None
    for what cannot be found)."""
    start, end = raw.find(RECORDS_START), len(raw) - len(RECORDS_END)
    if start < 0 or not raw.endswith(RECORDS_END) or end < start + len(RECORDS_START):
        return None, None
    body = hashlib.sha256(memoryview(raw)[start + len(RECORDS_START) : end]).hexdigest()
    try:
        head = json.loads(raw[:start].rstrip(b",") + b"}")
    except (ValueError, RecursionError):
        return None, body
    claimed = head.get("records_sha256") if isinstance(head, dict) else None
    return claimed if isinstance(claimed, str) else None, body


def _line_spans(raw: bytes, count: int) -> LineSpans | None:
    """Where each of the `count` records lies, when the file is laid out as we write it (one
    record a line; JSON strings hold no raw line break, so each line is one record), else None."""
    start = raw.find(RECORDS_START)
    if start < 0 or not count or not raw.endswith(RECORDS_END):
        return None
    first = start + len(RECORDS_START)
    pieces = raw[first : len(raw) - len(RECORDS_END)].split(b"\n")
    if len(pieces) != count:
        return None
    lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=count)
    starts = first + np.concatenate([[0], np.cumsum(lengths[:-1] + 1)]) + len(LINE_INDENT)
    lengths -= len(LINE_INDENT)
    lengths[:-1] -= 1  # the comma
    opening, last = LINE_INDENT + b"{", len(pieces) - 1
    if not all(piece.startswith(opening) and piece.endswith(b"}," if n < last else b"}")
               for n, piece in enumerate(pieces)):
        return None
    return LineSpans(start=starts.astype(np.uint64), length=lengths.astype(np.uint32))


def _parse(raw: bytes, trusted: bool) -> Any:
    """Our own file through the fast parser; anything else (or what it refuses: NaN, a huge
    number) through the standard one, whose messages the user sees."""
    if trusted:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw)


def _from_json(data: dict[str, Any], path: Path, trusted: bool) -> Snapshot:
    build = MemoryRecord.from_saved if trusted else record_from_json
    try:
        records = [build(item) for item in _list(data.get("records"))]
        vectors = VectorMeta(**data["vectors"]) if data.get("vectors") else None
        generation, next_seq = int(data.get("generation", 0)), int(data.get("next_seq", len(records)))
    except (ValueError, TypeError, KeyError) as exc:
        raise FileDamage(path, f"bad content ({exc})") from None
    ids = [record.id for record in records]
    if len(set(ids)) != len(ids):
        raise FileDamage(path, "the same record id appears twice")
    return Snapshot(generation=generation, next_seq=next_seq, records=records, vectors=vectors)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError("records must be a list")
    return value


def record_line(record: MemoryRecord) -> bytes:
    """A record as its snapshot line holds it."""
    return json.dumps(record.to_dict(), ensure_ascii=False).encode("utf-8")


def encode_snapshot(generation: int, next_seq: int, vectors: VectorMeta | None, columns: str | None,
                    lines: list[bytes]) -> Encoded:
    """The file: version first, then the header fields (with the checksum of the record lines),
    then one record per line (`lines`, each a record_line)."""
    body = LINE_INDENT + LINE_BREAK.join(lines) if lines else b""
    digest = hashlib.sha256(body).hexdigest()
    head = {
        "version": SNAPSHOT_VERSION,
        "format": SNAPSHOT_FORMAT,
        "generation": generation,
        "next_seq": next_seq,
        "saved_at": time.time(),
        "vectors": asdict(vectors) if vectors else None,
        "columns": columns,
        "records_sha256": digest,
    }
    start = json.dumps(head, ensure_ascii=False, indent=2)[:-2].encode("utf-8") + b","
    first = len(start) + len(RECORDS_START) + len(LINE_INDENT)
    lengths = np.fromiter(map(len, lines), dtype=np.int64, count=len(lines))
    starts = first + np.concatenate([[0], np.cumsum(lengths[:-1] + len(LINE_BREAK))]) if lines else lengths
    if lines and lengths.max() >= 2**32:
        raise ValueError("a record line of 4 GiB or more")
    parts = (start + RECORDS_START, body, RECORDS_END if body else RECORDS_END[1:])
    return Encoded(parts=parts, records_sha256=digest, head_sha256=hashlib.sha256(start).hexdigest(),
                   lines=LineSpans(start=starts.astype(np.uint64), length=lengths.astype(np.uint32)))


def write_snapshot(path: Path, snapshot: Snapshot) -> None:
    """Write `snapshot` with every record encoded afresh (a test's or a repair's snapshot)."""
    encode_snapshot(snapshot.generation, snapshot.next_seq, snapshot.vectors, snapshot.columns,
                    [record_line(r) for r in snapshot.records]).write(path)


# -- vectors -----------------------------------------------------------------------------------


def ids_checksum(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()


def vectors_digest(matrix: np.ndarray) -> str:
    """The checksum of a matrix's bytes (hashlib reads a memory map without copying it)."""
    return hashlib.sha256(np.ascontiguousarray(matrix).data).hexdigest()


def write_vectors(path: Path, blocks: Sequence[np.ndarray], dimension: int) -> str:
    """Save the rows of `blocks` (in order) as one float32 .npy matrix, atomically and without
    joining them (a million rows are 1.5 GB); returns the checksum of the rows' bytes (what
    vectors_digest gives for the matrix)."""
    rows = [np.ascontiguousarray(block, dtype="<f4").reshape(-1, dimension) for block in blocks]
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": np.lib.format.dtype_to_descr(np.dtype("<f4")),
                                                  "fortran_order": False,
                                                  "shape": (sum(len(block) for block in rows), dimension)})
    digest = hashlib.sha256()
    with atomic_file(path) as handle:
        handle.write(header.getvalue())
        for block in rows:
            digest.update(block.data)
            handle.write(block.data)
    return digest.hexdigest()


def load_vectors(
    path: Path, meta: VectorMeta, embedding_id: str, ids_sha256: str, *, verify: bool
) -> tuple[np.ndarray | None, str]:
    """The stored vectors, memory-mapped, or (None, why they cannot be used). Raises
    FileNotFoundError. `ids_sha256`: the checksum of the records' ids in row order, which the
    vectors must have been saved for. `verify` also checks the checksum of their bytes, which
    reads them all (see VERIFY_VECTORS_MAX_BYTES in loading.py)."""
    if meta.embedding_id != embedding_id:
        return None, f"vectors were made by {meta.embedding_id!r}, the embedder is {embedding_id!r}"
    if meta.ids_sha256 != ids_sha256:
        return None, f"{path.name} does not match the records in the snapshot"
    try:
        matrix = np.load(path, allow_pickle=False, mmap_mode="r")
    except (ValueError, OSError, EOFError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        return None, f"{path.name} cannot be read ({exc})"
    if matrix.dtype != np.float32 or matrix.shape != (meta.count, meta.dimension):
        return None, f"{path.name} has shape {matrix.shape}, expected ({meta.count}, {meta.dimension})"
    if verify and vectors_digest(matrix) != meta.sha256:
        return None, f"{path.name} fails its checksum"
    return matrix, ""
