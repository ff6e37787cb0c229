"""What forgetting a memory reaches: the conversation message it came from (its source), the
turn memories that hold that message, words of it kept in other records' provenance, and the
kept copies (backups, leftover temp files) that compaction does not rewrite."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...types import MemoryRecord, Provenance
from .layout import StorePaths, is_kept_copy

if TYPE_CHECKING:  # the search indexes load when a memory is forgotten, not when origins are read
    from ..index.state import MemoryState

log = logging.getLogger(__name__)

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
        last_seen = record.provenance.last_seen
        mentions = [(record.provenance, record.kind == "turn")]
        if last_seen is not None:
            mentions.append((last_seen, False))
        for mention, is_the_turn in mentions:
            source = _source(mention, record.text if is_the_turn else None)
            if source is not None:
                found.setdefault(source)
    return tuple(found)


def _source(mention: Provenance, own_text: str | None) -> Source | None:
    """The message `mention` names; a turn memory is its own message (`own_text`)."""
    text = mention.source_text or own_text
    if text is None or not text.strip():
        return None
    return Source(mention.session, mention.turn_index, text)


def turns_holding(records: Iterable[MemoryRecord], sources: tuple[Source, ...]) -> tuple[MemoryRecord, ...]:
    """Turn memories that are one of the source messages: the same words, or the same place."""
    texts = {source.text for source in sources}
    places = {(source.session, source.turn_index) for source in sources if source.session is not None}
    return tuple(
        record for record in records
        if record.kind == "turn" and (record.text in texts or _place(record) in places)
    )


def _place(record: MemoryRecord) -> tuple[str | None, int | None]:
    return record.provenance.session, record.provenance.turn_index


def scrubbed(records: list[MemoryRecord], texts: set[str]) -> list[MemoryRecord]:
    """`records` with every provenance or decision string that holds one of `texts` replaced by
    a mark, so no copy of forgotten words stays in the records kept."""
    texts = {text for text in texts if text.strip()}
    kept = []
    for record in records:
        provenance = Provenance.from_dict(_scrub(record.provenance.to_dict(), texts))
        decision = _scrub(record.decision, texts)
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
            log.warning("deleted %s: it held the forgotten memory", path.name)
            deleted.append(path)
    return deleted


def origin_of(state: MemoryState, record: MemoryRecord) -> Origin:
    """Where `record` (and the versions it replaced) came from, and the turns holding that."""
    versions = [record, *state.versions_before(record.id)]
    sources = sources_of(versions)
    turns = turns_holding((r for r in state.records if r.id != record.id), sources)
    return Origin(record=record, sources=sources, turns=turns)


def state_without(state: MemoryState, ids: list[str], *, keep_source: bool) -> tuple[MemoryState, set[str]]:
    """`state` rebuilt without the records `ids` and the versions they replaced, their words
    scrubbed from the records kept (and the words of the messages they came from, unless
    `keep_source`); and every text that the store's kept copies must no longer hold."""
    gone = [state.get(ident) for ident in dict.fromkeys(v for i in ids for v in state.versions_of(i))]
    texts = {record.text for record in gone}
    source_texts = {source.text for source in sources_of(gone)}
    if not keep_source:
        texts |= source_texts
    records, vectors, rows = state.without(*ids)
    from ..index.state import MemoryState

    kept = MemoryState.build(scrubbed(records, texts), vectors, state.next_seq, state.dense.dimension)
    kept.dense.keep_approximate(state.dense, rows)  # no graph rebuild: its forgotten nodes are cut
    return kept, texts | source_texts
