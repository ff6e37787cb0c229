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
) -> SaveOutcome:
    """Save `candidate` as a fact. An active fact with cosine >= `duplicate_threshold` is
    refreshed (touched) instead of copied; an active fact with the same key but other content
    is superseded; anything else is added. `decision` is stored with the record, completed
    with the candidate's route (and rule, when a rule made it)."""
    if not 0.0 < duplicate_threshold <= 1.0:
        raise ValueError("duplicate_threshold must be in (0, 1]")
    decision = _completed(decision, candidate)
    duplicate = _duplicate_of(store, candidate.text, duplicate_threshold)
    if duplicate is not None:
        return SaveOutcome("refreshed", store.touch(duplicate.id, provenance=provenance))
    same_key = store.find_by_key(candidate.key) if candidate.key else None
    if same_key is not None and same_key.active:
        record = store.supersede(same_key.id, candidate.text, provenance=provenance, decision=decision,
                                 key=candidate.key)
        return SaveOutcome("superseded", record, previous=same_key)
    (record,) = store.add_many([MemoryDraft(candidate.text, "fact", provenance, decision, candidate.key)])
    return SaveOutcome("added", record)


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
