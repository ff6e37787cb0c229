"""The append-only journal: what changed since the snapshot, one JSON object a line.

The first line is a header naming the snapshot generation the journal continues. Each further
line is one operation, written with a single write() of the whole line and fsynced, so a crash
leaves at worst a torn last line, which readers skip. New records carry their vector (base64
float32) so that a reload never re-embeds.

    {"journal": 2, "generation": 3}
    {"op": "add", "seq": 41, "record": {...}, "embedding": "<model id>", "vector": "<base64>"}
    {"op": "update", "record": {...}}                 # same text, new metadata (touch)
    {"op": "supersede", "old": "<id>", "seq": 42, "record": {...}, "embedding": ..., "vector": ...}
"""

from __future__ import annotations

import base64
import contextlib
import errno
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import StoreError
from ...process.files import PRIVATE_FILE, atomic_write_bytes, refuse_symlink
from ...types import MemoryRecord
from .layout import FileDamage
from .migrations import migrate_record_v1
from .records import record_from_json

JOURNAL_FORMAT = 2  # 1: written by a store of snapshot version 1 (its records are migrated when read)
READABLE_FORMATS = (1, 2)
OPS_WITH_VECTOR = ("add", "supersede")
# The most one line may take. The largest record a turn writes holds its message twice (the
# text of a turn memory and its provenance's source_text), the message at most
# limits.MAX_MESSAGE_CHARS characters of at most 6 bytes each in JSON (\u0001): 384,000 bytes,
# plus its vector and metadata. A longer line is refused before anything is written.
MAX_LINE_BYTES = 512 * 1024


@dataclass
class JournalOp:
    op: str  # add | update | supersede
    record: MemoryRecord
    seq: int | None = None
    vector: np.ndarray | None = None
    embedding_id: str | None = None
    old_id: str | None = None  # supersede: the record this one replaces
    line: int = 0  # where it was read from (for messages)


@dataclass
class JournalChunk:
    generation: int
    ops: list[JournalOp]
    end: int  # offset just past the last line taken
    lines: int  # complete lines read so far, header included
    torn: int  # bytes at the end left unread: a partial or unreadable last line
    format: int = JOURNAL_FORMAT


def encode_op(op: JournalOp) -> bytes:
    data: dict[str, Any] = {"op": op.op}
    if op.old_id is not None:
        data["old"] = op.old_id
    if op.seq is not None:
        data["seq"] = op.seq
    data["record"] = op.record.to_dict()
    if op.vector is not None:
        data["embedding"] = op.embedding_id
        data["vector"] = base64.b64encode(np.asarray(op.vector, dtype="<f4").tobytes()).decode("ascii")
    line = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    if len(line) > MAX_LINE_BYTES:
        raise StoreError(f"a memory of {len(op.record.text)} characters makes a journal record of {len(line)} bytes, "
                         f"over the {MAX_LINE_BYTES} one may take: not stored")
    return line


class UnreadableLine(ValueError):
    """A line that is not JSON at all, as a write cut short leaves it. A complete JSON line
    that is not a valid operation was written whole: that is damage, never a torn write."""


def decode_op(line: bytes, version: int = JOURNAL_FORMAT) -> JournalOp:
    """One operation from its line in a journal of format `version`; ValueError says what is wrong."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:  # bad JSON or UTF-8, a number too long, too deep
        raise UnreadableLine(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("op") not in ("add", "update", "supersede"):
        raise ValueError("not a known operation")
    record = migrate_record_v1(data.get("record")) if version == 1 else data.get("record")
    op = JournalOp(op=data["op"], record=record_from_json(record))
    if op.op in OPS_WITH_VECTOR:
        op.seq = _int_field(data, "seq")
        op.embedding_id = str(data.get("embedding") or "")
        op.vector = _decode_vector(data.get("vector"))
    if op.op == "supersede":
        if not isinstance(data.get("old"), str):
            raise ValueError("supersede without the id it replaces")
        op.old_id = data["old"]
    return op


def _int_field(data: dict[str, Any], name: str) -> int:
    value = data.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a non-negative integer")
    return value


def _decode_vector(text: Any) -> np.ndarray:
    if not isinstance(text, str):
        raise ValueError("vector missing")
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        raise ValueError("vector is not base64") from None
    if not raw or len(raw) % 4:
        raise ValueError("vector has a wrong length")
    return np.frombuffer(raw, dtype="<f4").astype(np.float32)


def header_bytes(generation: int) -> bytes:
    return json.dumps({"journal": JOURNAL_FORMAT, "generation": generation}).encode("ascii") + b"\n"


def create_journal(path: Path, generation: int) -> int:
    """Start an empty journal for `generation` (atomically replacing any old one)."""
    header = header_bytes(generation)
    atomic_write_bytes(path, header)
    return len(header)


def read_journal(path: Path, offset: int = 0, lines_before: int = 0) -> JournalChunk | None:
    """Operations from `offset` (0: just after the header) to the last complete line.
    None when there is no journal. Raises FileDamage for a bad header or a bad line that
    is not the last one."""
    try:
        with open(path, "rb") as handle:
            header = handle.readline()
            generation, version = parse_header(path, header)
            start = max(offset, len(header))
            handle.seek(start)
            data = handle.read()
    except FileNotFoundError:
        return None
    lines_before = lines_before if offset > len(header) else 1
    chunk = JournalChunk(generation=generation, ops=[], end=start, lines=lines_before, torn=0, format=version)
    return _parse_lines(path, data, chunk)


def parse_header(path: Path, header: bytes) -> tuple[int, int]:
    """The generation a journal continues, and its format."""
    try:
        data = json.loads(header)
        if data.get("journal") not in READABLE_FORMATS or not isinstance(data.get("generation"), int):
            raise ValueError
    except (ValueError, AttributeError, UnicodeDecodeError):
        raise FileDamage(path, "line 1 is not a journal header") from None
    return int(data["generation"]), int(data["journal"])


def _parse_lines(path: Path, data: bytes, chunk: JournalChunk) -> JournalChunk:
    pieces = data.split(b"\n")
    complete, partial = pieces[:-1], pieces[-1]
    chunk.torn = len(partial)
    for index, line in enumerate(complete):
        try:
            op = decode_op(line, chunk.format)
        except ValueError as exc:
            if index == len(complete) - 1 and not partial and isinstance(exc, UnreadableLine):
                chunk.torn = len(line) + 1  # an unreadable last line counts as torn
                break
            raise FileDamage(path, f"line {chunk.lines + 1}: {exc}") from None
        chunk.lines += 1
        op.line = chunk.lines
        chunk.ops.append(op)
        chunk.end += len(line) + 1
    return chunk


def append_lines(path: Path, lines: bytes) -> None:
    """Append whole lines with one write() (looping only if the kernel writes less) and fsync.
    The journal is never a link (DataDirError), and stays readable by the user only."""
    fd = _open_own(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        _keep_private(fd)
        size = os.fstat(fd).st_size
        try:
            view = memoryview(lines)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        except OSError:
            _cut_back(fd, size)  # a full disk leaves no partial line (and no partial text)
            raise
    finally:
        os.close(fd)


def _cut_back(fd: int, size: int) -> None:
    with contextlib.suppress(OSError):  # readers skip a torn last line, and the next writer cuts it
        os.ftruncate(fd, size)


def truncate_tail(path: Path, size: int) -> None:
    """Cut a torn tail left by a writer that crashed, so the next line starts clean."""
    fd = _open_own(path, os.O_WRONLY)
    try:
        _keep_private(fd)
        os.ftruncate(fd, size)
        os.fsync(fd)
    finally:
        os.close(fd)


def _open_own(path: Path, flags: int) -> int:
    """Open a file of the store for writing without following a link to somewhere else."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW, PRIVATE_FILE)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            refuse_symlink(path)
        raise


def _keep_private(fd: int) -> None:
    """Re-assert 0600 on a file we write to, whatever its mode was."""
    if stat.S_IMODE(os.fstat(fd).st_mode) != PRIVATE_FILE:
        os.fchmod(fd, PRIVATE_FILE)
