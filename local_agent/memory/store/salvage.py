"""Getting records back out of a damaged file, whatever it was: a snapshot, a journal, or an
export written over one of them. Used by the doctor on the store's own files and on the copies
of damaged files it kept aside (`<name>.corrupt-<timestamp>`)."""

from __future__ import annotations

import datetime as dt
import json
import re
import time
from pathlib import Path
from typing import Any

from ...types import MemoryRecord
from .journal import JournalOp, decode_op
from .layout import CORRUPT_MARK, JOURNAL_NAME, SNAPSHOT_NAME, StorePaths
from .records import record_from_json, time_problem

RECORD_START = re.compile(r'\{\s*"id"\s*:')
OPS = ("add", "update", "supersede")


def salvage(raw: bytes) -> tuple[list[JournalOp], list[str]]:
    """Operations that rebuild every record still readable in `raw`, in file order, and notes on
    what had to be fixed to read them (a time out of range). Journal lines keep their meaning
    (an update stays an update); any other record object found is an add."""
    ops: list[JournalOp] = []
    notes: dict[str, None] = {}
    for line in raw.split(b"\n"):
        op = _line_op(line, notes)
        if op is not None:
            ops.append(op)
    seen = {op.record.id for op in ops}
    for record in _record_objects(raw.decode("utf-8", errors="replace"), notes):
        if record.id not in seen:
            seen.add(record.id)
            ops.append(JournalOp("add", record))
    return ops, list(notes)


def apply_ops(records: list[MemoryRecord], ops: list[JournalOp]) -> list[MemoryRecord]:
    """Replay operations onto records, skipping what no longer fits (the first record with an
    id wins; an update needs its record; a supersede marks the old version)."""
    by_id: dict[str, MemoryRecord] = {}
    for record in records:
        by_id.setdefault(record.id, record)
    for op in ops:
        if op.op == "update":
            if op.record.id in by_id:
                by_id[op.record.id] = op.record
            continue
        by_id.setdefault(op.record.id, op.record)
        if op.op == "supersede" and op.old_id in by_id:
            old = by_id[op.old_id]
            by_id[op.old_id] = MemoryRecord.from_dict({**old.to_dict(), "superseded_by": op.record.id})
    return list(by_id.values())


def kept_copies(paths: StorePaths) -> list[Path]:
    """Copies of a damaged snapshot or journal the doctor kept aside, newest first."""
    names = (SNAPSHOT_NAME + CORRUPT_MARK, JOURNAL_NAME + CORRUPT_MARK)
    copies = [path for path in paths.files() if path.parent == paths.root and path.name.startswith(names)]
    return sorted(copies, key=lambda path: path.name.split(CORRUPT_MARK, 1)[1], reverse=True)


def lenient_record(item: Any, notes: dict[str, None]) -> MemoryRecord:
    """record_from_json, after replacing a time out of range (noted); ValueError otherwise."""
    if isinstance(item, dict) and isinstance(item.get("id"), str):
        item = _fix_times(item, notes)
    return record_from_json(item)


def _line_op(line: bytes, notes: dict[str, None]) -> JournalOp | None:
    try:
        return decode_op(line)
    except ValueError:
        pass
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("op") not in OPS:
        return None
    try:
        record = lenient_record(data.get("record"), notes)
    except (ValueError, TypeError):
        return None
    old = data.get("old") if isinstance(data.get("old"), str) else None
    return JournalOp("add" if data["op"] == "supersede" and old is None else data["op"], record, old_id=old)


def _record_objects(text: str, notes: dict[str, None]) -> list[MemoryRecord]:
    """Every record object that still parses, found wherever one starts."""
    decoder = json.JSONDecoder()
    found = []
    for match in RECORD_START.finditer(text):
        try:
            item, _ = decoder.raw_decode(text, match.start())
            found.append(lenient_record(item, notes))
        except (ValueError, TypeError, RecursionError):
            continue
    return found


def _fix_times(item: dict[str, Any], notes: dict[str, None]) -> dict[str, Any]:
    times = {"created": item.get("created", 0.0), "updated": item.get("updated", item.get("created", 0.0))}
    bad = {name: time_problem(value) for name, value in times.items() if time_problem(value)}
    if not bad:
        return item
    good = [value for name, value in times.items() if name not in bad]
    fallback = good[0] if good else time.time()
    day = dt.datetime.fromtimestamp(fallback).date().isoformat()
    for name, problem in bad.items():
        notes[f"record {item['id']!r}: {name} {problem}; set to {day}"] = None
    return {**item, **dict.fromkeys(bad, fallback)}
