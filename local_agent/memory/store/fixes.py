"""The doctor's checks of the records themselves: records a user could not manage (an id that
`show`, `edit` and `forget` cannot take, text over the limit, version links that lead nowhere or
in a circle), each found with what is wrong and fixed without losing what the record says."""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...types import MemoryRecord
from .records import MAX_FACT_CHARS, check_id, make_record_id, text_problem


@dataclass(frozen=True)
class Fix:
    problem: str  # what doctor reports
    action: str  # what --repair did about it


def fix_records(records: list[MemoryRecord], next_seq: int) -> tuple[list[MemoryRecord], list[Fix]]:
    """The records with every problem fixed, and what was wrong. New ids take sequence numbers
    from `next_seq` on."""
    fixes: list[Fix] = []
    records = _fix_ids(records, next_seq, fixes)
    records = [_fix_length(record, fixes) for record in records]
    records = _fix_dangling(records, fixes)
    return _fix_cycles(records, fixes), fixes


def _fix_ids(records: list[MemoryRecord], next_seq: int, fixes: list[Fix]) -> list[MemoryRecord]:
    taken = {record.id for record in records}
    renamed: dict[str, str] = {}
    for record in records:
        try:
            check_id(record.id)
        except ValueError as exc:
            renamed[record.id] = make_record_id(next_seq + len(renamed), record.kind, record.text, taken)
            taken.add(renamed[record.id])
            fixes.append(Fix(f"memory {record.id!r}: {exc}",
                             f"memory {record.id!r}: now has the id {renamed[record.id]}"))
    if not renamed:
        return records
    return [replace(record, id=renamed.get(record.id, record.id),
                    superseded_by=renamed.get(record.superseded_by or "", record.superseded_by),
                    supersedes=renamed.get(record.supersedes or "", record.supersedes)) for record in records]


def _fix_length(record: MemoryRecord, fixes: list[Fix]) -> MemoryRecord:
    """Cut an over-long text to a prefix (so a search for the forgotten text still finds every
    copy) and keep the whole text in the provenance, where `show` prints it."""
    problem = text_problem(record.kind, record.text)
    if not problem:
        return record
    cut = record.text[:MAX_FACT_CHARS]
    cut = cut.rsplit(" ", 1)[0] if " " in cut.strip() else cut
    fixes.append(Fix(f"memory {record.id}: {problem}",
                     f"memory {record.id}: text cut to {len(cut)} characters; the whole text is kept in its "
                     f"provenance as full_text"))
    return replace(record, text=cut, provenance=replace(record.provenance, full_text=record.text))


def _fix_dangling(records: list[MemoryRecord], fixes: list[Fix]) -> list[MemoryRecord]:
    ids = {record.id for record in records}
    fixed = []
    for record in records:
        current = record
        for name in ("supersedes", "superseded_by"):
            target = getattr(current, name)
            if target is not None and target not in ids:
                note = " (it is current again)" if name == "superseded_by" else ""
                fixes.append(Fix(f"memory {current.id}: {name} points to {target!r}, which is not stored",
                                 f"memory {current.id}: cleared {name}{note}"))
                current = (replace(current, supersedes=None) if name == "supersedes"
                           else replace(current, superseded_by=None))
        fixed.append(current)
    return fixed


def _fix_cycles(records: list[MemoryRecord], fixes: list[Fix]) -> list[MemoryRecord]:
    """A chain of versions that runs in a circle has no current version: the most recently
    updated one in the circle becomes it."""
    by_id = {record.id: record for record in records}
    for cycle in _cycles(by_id):
        newest = max(cycle, key=lambda ident: by_id[ident].updated)
        fixes.append(Fix(f"memories {' -> '.join([*cycle, cycle[0]])}: superseded_by runs in a circle",
                         f"memory {newest}: made the current version (cleared its superseded_by)"))
        by_id[newest] = replace(by_id[newest], superseded_by=None)
    return list(by_id.values())


def _cycles(by_id: dict[str, MemoryRecord]) -> list[list[str]]:
    """Each circle of superseded_by links once, in link order."""
    done: set[str] = set()
    cycles = []
    for start in by_id:
        path: list[str] = []
        current: str | None = start
        while current is not None and current in by_id and current not in done and current not in path:
            path.append(current)
            current = by_id[current].superseded_by
        if current in path:
            cycles.append(path[path.index(current):])
        done.update(path)
    return cycles
