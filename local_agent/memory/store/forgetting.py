"""What forgetting a memory reaches: the conversation message it came from (its source), the
turn memories that hold that message, words of it kept in other records' provenance, and the
kept copies (backups, leftover temp files) that compaction does not rewrite."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ...types import MemoryRecord
from .layout import StorePaths, is_kept_copy, notice

FORGOTTEN = "(forgotten)"


@dataclass(frozen=True)
class Source:
    """A user message a memory was made from: where it was said, and its words."""

    session: str | None
    turn_index: int | None
    text: str


@dataclass(frozen=True)
class Origin:
    """A memory and where it came from: its sources and the turn memories holding them."""

    record: MemoryRecord
    sources: tuple[Source, ...]
    turns: tuple[MemoryRecord, ...]


def sources_of(records: Iterable[MemoryRecord]) -> tuple[Source, ...]:
    """The messages `records` were made from (a fact said again keeps its last mention too)."""
    found: dict[Source, None] = {}
    for record in records:
        origin = record.provenance
        for mention in (origin, origin.get("last_seen")):
            source = _source(mention, record)
            if source is not None:
                found.setdefault(source)
    return tuple(found)


def _source(mention: Any, record: MemoryRecord) -> Source | None:
    if not isinstance(mention, dict):
        return None
    text = mention.get("source_text")
    if record.kind == "turn" and mention is record.provenance:
        text = text or record.text
    if not isinstance(text, str) or not text.strip():
        return None
    session = mention.get("session")
    index = mention.get("turn_index")
    return Source(session if isinstance(session, str) else None,
                  index if isinstance(index, int) and not isinstance(index, bool) else None, text)


def turns_holding(records: Iterable[MemoryRecord], sources: tuple[Source, ...]) -> tuple[MemoryRecord, ...]:
    """Turn memories that are one of the source messages: the same words, or the same place."""
    texts = {source.text for source in sources}
    places = {(source.session, source.turn_index) for source in sources if source.session is not None}
    return tuple(
        record for record in records
        if record.kind == "turn" and (record.text in texts or _place(record) in places)
    )


def _place(record: MemoryRecord) -> tuple[Any, Any]:
    return record.provenance.get("session"), record.provenance.get("turn_index")


def scrubbed(records: list[MemoryRecord], texts: set[str]) -> list[MemoryRecord]:
    """`records` with every provenance or decision string that holds one of `texts` replaced by
    a mark, so no copy of forgotten words stays in the records kept."""
    texts = {text for text in texts if text.strip()}
    kept = []
    for record in records:
        provenance, decision = _scrub(record.provenance, texts), _scrub(record.decision, texts)
        changed = provenance != record.provenance or decision != record.decision
        kept.append(replace(record, provenance=provenance, decision=decision) if changed else record)
    return kept


def _scrub(value: Any, texts: set[str]) -> Any:
    if isinstance(value, str):
        return FORGOTTEN if any(text in value for text in texts) else value
    if isinstance(value, dict):
        return {key: _scrub(item, texts) for key, item in value.items()}
    if isinstance(value, list):
        return [_scrub(item, texts) for item in value]
    return value


def needles(texts: Iterable[str]) -> list[bytes]:
    """Forgotten texts as they may appear in a file: raw, and JSON-escaped both ways."""
    found = set()
    for text in filter(None, texts):
        found.add(text.encode("utf-8"))
        found.add(json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8"))
        found.add(json.dumps(text)[1:-1].encode("ascii"))
    return [needle for needle in found if needle]


def delete_copies_holding(paths: StorePaths, texts: Iterable[str]) -> list[Path]:
    """Delete the store's kept copies (backups, leftover temp files: found by their names only,
    never a user's file) that hold any of `texts`; returns them."""
    wanted = needles(texts)
    deleted = []
    for path in paths.own_files():
        if is_kept_copy(path) and any(needle in path.read_bytes() for needle in wanted):
            path.unlink(missing_ok=True)
            notice(f"deleted {path.name}: it held the forgotten memory")
            deleted.append(path)
    return deleted
