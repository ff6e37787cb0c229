"""The snapshot: every record in one human-readable JSON file, and the vectors beside it.

The snapshot starts with its format `version`, checked at load; older versions are brought up to
date by small named migration functions, one per step. Records are written one per line so the
file stays readable (and salvageable) at any size. The vectors live in `vectors-<gen>.npy`, one
float32 row per record in snapshot order; the snapshot names that file and records the
embedding model, the row count and checksums of the ids and of the vector bytes, so any
mismatch is detected at load.

The header also holds `records_sha256`, the checksum of the record lines as written. When it
matches, the records are ours as we wrote them (they were validated on the way in), and they
are built without checking each one again: the cost of opening a large store. Anything else
(an edited or damaged file, or one written before the checksum) is validated record by record.
"""

from __future__ import annotations

import hashlib
import io
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ...process.files import atomic_write_bytes
from ...types import MemoryRecord
from .layout import FileDamage, NewerFormat
from .records import record_from_json

RECORDS_START = b'\n  "records": [\n'
RECORDS_END = b'\n  ]\n}\n'

SNAPSHOT_VERSION = 1
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


# -- migrations: each takes the JSON of version N and returns version N+1 ----------------------


def migrate_v0_to_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Version 0 (the pre-release format) kept `memories` with `type`, `timestamp` and `source`
    and had no vectors, generations or sequence numbers."""
    records = []
    for item in data.get("memories", []):
        stamp = item.get("timestamp", 0.0)
        records.append({
            "id": item.get("id"),
            "kind": item.get("type", "fact"),
            "text": item.get("text"),
            "created": stamp,
            "updated": item.get("updated", stamp),
            "provenance": item.get("source") or {},
            "decision": {},
            "key": item.get("key"),
            "superseded_by": item.get("superseded_by"),
            "supersedes": item.get("supersedes"),
        })
    return {"version": 1, "generation": 0, "next_seq": len(records), "vectors": None, "records": records}


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {0: migrate_v0_to_v1}


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


def read_snapshot(
    path: Path, *, validate: bool = False, on_header: Callable[[dict[str, Any]], None] | None = None
) -> Snapshot | None:
    """The snapshot at `path` (None when there is none). Raises FileDamage. `validate` checks
    every record even when the checksum holds (the doctor); `on_header` is given the header
    of a file whose checksum holds before its records are parsed (to start reading the
    vectors it names meanwhile)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    digest = _records_digest(raw, on_header)
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
    return snapshot


def _records_digest(raw: bytes, on_header: Callable[[dict[str, Any]], None] | None) -> str | None:
    """The header's records_sha256 if it matches the record lines that follow it, else None."""
    start, end = raw.find(RECORDS_START), len(raw) - len(RECORDS_END)
    if start < 0 or not raw.endswith(RECORDS_END) or end < start + len(RECORDS_START):
        return None
    try:
        head = json.loads(raw[:start].rstrip(b",") + b"}")
    except (ValueError, RecursionError):
        return None
    claimed = head.get("records_sha256") if isinstance(head, dict) else None
    if not isinstance(claimed, str):
        return None
    if on_header is not None:
        on_header(head)
    body = memoryview(raw)[start + len(RECORDS_START) : end]
    return claimed if hashlib.sha256(body).hexdigest() == claimed else None


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


def encode_snapshot(snapshot: Snapshot) -> tuple[bytes, str]:
    """The file: version first, then the header fields (with the checksum of the record
    lines), then one record per line; and that checksum."""
    body = ",\n".join(
        "    " + json.dumps(record.to_dict(), ensure_ascii=False) for record in snapshot.records
    ).encode("utf-8")
    digest = hashlib.sha256(body).hexdigest()
    head = {
        "version": SNAPSHOT_VERSION,
        "format": SNAPSHOT_FORMAT,
        "generation": snapshot.generation,
        "next_seq": snapshot.next_seq,
        "saved_at": time.time(),
        "vectors": asdict(snapshot.vectors) if snapshot.vectors else None,
        "records_sha256": digest,
    }
    start = json.dumps(head, ensure_ascii=False, indent=2)[:-2].encode("utf-8") + b","
    return start + RECORDS_START + body + (RECORDS_END if body else RECORDS_END[1:]), digest


def snapshot_bytes(snapshot: Snapshot) -> bytes:
    return encode_snapshot(snapshot)[0]


def write_snapshot(path: Path, snapshot: Snapshot) -> None:
    atomic_write_bytes(path, snapshot_bytes(snapshot))


# -- vectors -----------------------------------------------------------------------------------


def ids_checksum(ids: list[str]) -> str:
    return hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()


def vectors_digest(matrix: np.ndarray) -> str:
    """The checksum of a matrix's bytes (hashlib reads a memory map without copying it)."""
    return hashlib.sha256(np.ascontiguousarray(matrix).data).hexdigest()


def write_vectors(path: Path, matrix: np.ndarray) -> str:
    """Save the float32 matrix atomically; returns the checksum of its bytes."""
    matrix = np.ascontiguousarray(matrix, dtype=np.float32)
    buffer = io.BytesIO()
    np.save(buffer, matrix, allow_pickle=False)
    atomic_write_bytes(path, buffer.getvalue())
    return vectors_digest(matrix)


def load_vectors(
    path: Path, meta: VectorMeta, ids: list[str], embedding_id: str, digest: str | None = None
) -> tuple[np.ndarray | None, str]:
    """The stored vectors, or (None, why they cannot be used). Raises FileNotFoundError.
    `digest`: their checksum, when it was already computed from this very file."""
    if meta.embedding_id != embedding_id:
        return None, f"vectors were made by {meta.embedding_id!r}, the embedder is {embedding_id!r}"
    if meta.count != len(ids) or meta.ids_sha256 != ids_checksum(ids):
        return None, f"{path.name} does not match the records in the snapshot"
    try:
        matrix = np.load(path, allow_pickle=False, mmap_mode="r")  # read once, by the checksum and FAISS
    except (ValueError, OSError, EOFError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        return None, f"{path.name} cannot be read ({exc})"
    if matrix.dtype != np.float32 or matrix.shape != (meta.count, meta.dimension):
        return None, f"{path.name} has shape {matrix.shape}, expected ({meta.count}, {meta.dimension})"
    if (digest or vectors_digest(matrix)) != meta.sha256:
        return None, f"{path.name} fails its checksum"
    return matrix, ""
