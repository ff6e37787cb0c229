"""The store's format migrations: small named functions, one per step, each taking what version
N wrote and returning version N+1 (snapshot.py runs them in order on a snapshot; journal.py runs
the record step on the lines of a journal written by version 1).

| version | what changed |
|---|---|
| 0 | pre-release: `memories` with `type`, `timestamp`, `source` |
| 1 | records with kinds, provenance and versions; vectors, generations, sequence numbers |
| 2 | `until`, `seen` and `last_seen` are typed provenance fields; a columns file indexes the records |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


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


def migrate_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 1 kept a digest's `until`, and `seen` and `last_seen` of a fact said again, as
    free provenance keys that the code read by name; version 2 reads them as typed fields, and
    a columns file indexes the records (written at the next compaction). A `seen` that version
    1 counted from a string or a float ("2", 2.0) becomes the integer it meant."""
    records = data.get("records")
    if isinstance(records, list):
        data["records"] = [migrate_record_v1(item) for item in records]
    return {**data, "version": 2}


def migrate_record_v1(item: Any) -> Any:
    """A record as version 1 wrote it, as version 2 reads it (see migrate_v1_to_v2); anything
    that is not a record object is left for validation to name."""
    if not isinstance(item, dict) or not isinstance(item.get("provenance"), dict):
        return item
    provenance = item["provenance"]
    seen = _counted(provenance.get("seen"))
    if seen is None:
        return item
    return {**item, "provenance": {**provenance, "seen": seen}}


def _counted(value: Any) -> int | None:
    """What version 1 made of a `seen` that is not an integer (it read int(value)), else None."""
    if not isinstance(value, (str, float)):  # (a bool is an int)
        return None
    try:
        return int(value)
    except (ValueError, OverflowError):
        return None


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {0: migrate_v0_to_v1, 1: migrate_v1_to_v2}
