"""The export file: every record (superseded ones too) with provenance, as one JSON document.
Vectors are not exported; an import re-embeds with the importing store's model."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path

from ...errors import InputError
from ...process.files import atomic_write_bytes, read_user_file
from ...types import MemoryRecord
from .datadir import MARKER_NAME, OWN_TOP_FILES, SESSIONS_DIR_NAME
from .layout import MEMORY_DIR_NAME
from .records import link_problem, record_from_json, record_problem

EXPORT_FORMAT = "local-agent memory export"
EXPORT_VERSION = 1
MAX_EXPORT_BYTES = 2 * 1024**3  # about three million memories; more is not an export


def export_bytes(records: list[MemoryRecord], embedding_id: str) -> bytes:
    document = {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "exported_at": time.time(),
        "embedding": embedding_id,
        "records": [record.to_dict() for record in records],
    }
    return (json.dumps(document, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


OWN_TOP_NAMES = OWN_TOP_FILES | {MARKER_NAME}  # local-agent's own files at the top of the data dir


def refuse_store_folders(path: Path, data_dir: Path) -> None:
    """InputError when `path` lies in the data dir's memory or sessions folder, however it is
    spelled (relative, with '..', through a symbolic link): writing there breaks the store."""
    target = Path(path).expanduser().resolve()
    folders = [Path(data_dir).expanduser() / name for name in (MEMORY_DIR_NAME, SESSIONS_DIR_NAME)]
    for folder in folders:
        if any(_same_place(place, folder) for place in [target, *target.parents]):
            raise InputError(f"cannot export to {path}: it is inside {folder}, where local-agent keeps "
                             f"its own files; choose a path outside that folder")
    top = Path(data_dir).expanduser()
    if _same_place(target.parent, top) and target.name in OWN_TOP_NAMES:
        raise InputError(f"cannot export to {path}: local-agent keeps its own {target.name} there; "
                         "choose another name or folder")


def _same_place(place: Path, folder: Path) -> bool:
    try:
        return os.path.samefile(place, folder)
    except OSError:
        return place == folder.resolve()


def write_private_file(path: Path, data: bytes) -> None:
    """Atomically write a user-chosen file, readable by the user only. Unlike the data-dir
    helpers this leaves the folder's permissions alone: it is the user's folder."""
    path = Path(path).expanduser()
    if not path.parent.is_dir():
        raise InputError(f"cannot write {path}: folder {path.parent} does not exist")
    try:
        atomic_write_bytes(path, data, private_folder=False)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from None


def read_export(path: Path) -> list[MemoryRecord]:
    """Records from an export file; InputError names the file and the first problem."""
    path = Path(path).expanduser()
    raw = read_user_file(path, MAX_EXPORT_BYTES)
    try:
        document = json.loads(raw)
    except RecursionError:
        raise InputError(f"{path}: not a memory export (its JSON is nested too deeply)") from None
    except ValueError as exc:  # bad JSON, bad UTF-8, a number too long
        raise InputError(f"{path}: not a JSON file ({exc})") from None
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise InputError(f"{path}: not a local-agent memory export")
    if document.get("version") != EXPORT_VERSION:
        raise InputError(f"{path}: export version {document.get('version')!r} is not supported "
                         f"(this local-agent reads version {EXPORT_VERSION})")
    items = document.get("records")
    if not isinstance(items, list):
        raise InputError(f"{path}: 'records' must be a list")
    return [_record(path, index, item) for index, item in enumerate(items)]


def _record(path: Path, index: int, item: object) -> MemoryRecord:
    try:
        record = record_from_json(item)
    except (ValueError, TypeError) as exc:
        raise InputError(f"{path}: record {index + 1}: {exc}") from None
    if not record.text.strip():
        raise InputError(f"{path}: record {index + 1}: text is empty")
    problem = record_problem(record)
    if problem:
        raise InputError(f"{path}: record {index + 1}: {problem}")
    return record


def check_links(path: Path, records: list[MemoryRecord], stored: Mapping[str, str | None]) -> None:
    """InputError naming the first record whose id repeats, or whose version links lead nowhere
    or in a circle, among the imported records and the `stored` ones (id -> superseded_by)."""
    successors = dict(stored)
    seen: set[str] = set()
    for record in records:
        if record.id in seen:
            raise InputError(f"{path}: the same record id appears twice ({record.id})")
        seen.add(record.id)
        successors.setdefault(record.id, record.superseded_by)
    for index, record in enumerate(records):
        problem = link_problem(record, successors, successors)
        if problem:
            raise InputError(f"{path}: record {index + 1} ({record.id}): {problem}")
