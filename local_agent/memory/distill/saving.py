"""The save policy for a distilled fact: refresh a memory that already says it, supersede the
memory it replaces (same key, new content), or add it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ...types import FactCandidate, MemoryDraft, MemoryRecord, Provenance

if TYPE_CHECKING:
    from ..store.memory_store import MemoryStore

SaveAction = Literal["added", "refreshed", "superseded"]
DUPLICATE_THRESHOLD = 0.9
CORRECTION_COSINE = 0.55  # a fact on another key must be at least this close to be the one corrected


@dataclass(frozen=True)
class SaveOutcome:
    """What happened to a candidate: the record it became (or refreshed), and for a
    supersession the record it replaced."""

    action: SaveAction
    record: MemoryRecord
    previous: MemoryRecord | None = None


def save_fact(
    store: MemoryStore,
    candidate: FactCandidate,
    *,
    provenance: Provenance,
    decision: dict[str, Any],
    duplicate_threshold: float = DUPLICATE_THRESHOLD,
    correction: bool = False,
) -> SaveOutcome:
    """Save `candidate` as a fact. An active fact with cosine >= `duplicate_threshold` is
    refreshed (touched) instead of copied; an active fact with the same key but other content
    is superseded; anything else is added. A `correction` also supersedes the nearest fact on
    the same attribute under another key. A fact is never replaced by an older one (imported
    history): the newer stays. `decision` is stored with the record, completed with the
    candidate's route (and rule, when a rule made it)."""
    if not 0.0 < duplicate_threshold <= 1.0:
        raise ValueError("duplicate_threshold must be in (0, 1]")
    decision = _completed(decision, candidate)
    duplicate = _duplicate_of(store, candidate.text, duplicate_threshold)
    if duplicate is not None:
        return SaveOutcome("refreshed", store.touch(duplicate.id, provenance=provenance))
    same_key = store.find_by_key(candidate.key) if candidate.key else None
    if (same_key is None or not same_key.active) and correction:
        same_key = _corrected(store, candidate)
        decision["correction"] = True
    if same_key is not None and same_key.active:
        if _said_before(provenance, same_key.provenance):
            return SaveOutcome("refreshed", same_key)  # an older statement leaves the newer fact
        record = store.supersede(same_key.id, candidate.text, provenance=provenance, decision=decision,
                                 key=candidate.key)
        return SaveOutcome("superseded", record, previous=same_key)
    (record,) = store.add_many([MemoryDraft(candidate.text, "fact", provenance, decision, candidate.key)])
    return SaveOutcome("added", record)


def _corrected(store: MemoryStore, candidate: FactCandidate) -> MemoryRecord | None:
    """The fact a correction replaces: the nearest on the same attribute, or close enough."""
    attribute = set(candidate.key[1].split()) if candidate.key else set()
    for hit in store.nearest(candidate.text, k=5, kinds=("fact",)):
        record = hit.record
        same_attribute = bool(record.key and attribute & set(record.key[1].split()))
        if record.active and (same_attribute or hit.score >= CORRECTION_COSINE):
            return record
    return None


def _said_before(new: Provenance, old: Provenance) -> bool:
    """Whether the new statement is dated before the fact it would replace (ISO dates compare
    as text; undated statements are taken as the newest)."""
    return bool(new.date and old.date and new.date[:1].isdigit() and old.date[:1].isdigit() and new.date < old.date)


def _duplicate_of(store: MemoryStore, text: str, threshold: float) -> MemoryRecord | None:
    for hit in store.nearest(text, k=1, kinds=("fact",)):
        if hit.record.active and hit.score >= threshold:
            return hit.record
    return None


def _completed(decision: dict[str, Any], candidate: FactCandidate) -> dict[str, Any]:
    extra: dict[str, Any] = {"route": candidate.route}
    rule = candidate.rule
    if rule:
        extra["rule"] = rule
    return {**decision, **extra}
