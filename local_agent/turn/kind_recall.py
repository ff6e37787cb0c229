"""Recall for a question that names the kind of value it asks for (value_kinds.py): "what's my
job?" shares no word with "Priscilla, nurse, night shifts at St Mary's", and the embedding ranks
it low, so the recall of that question may hold no record with a job at all.

Definition: for a part that asks for a job or a place, when no recalled record holds a value of
that kind and every asked word of the part (told.py `score`), the newest records the user told
(facts, and the user's own turns; never a question they asked) that do join the recall, at most
KIND_RECORDS, ahead of the rest; when one recalled does, those told after it join ("where do I
live?" recalls "live in Gdansk"; "moved to Sopot", told later, joins); the recall keeps its length.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..memory.index.render import prompt_text, turn_speaker
from ..reading import Reading
from ..types import MemoryRecord, RecallHit
from .aliases import aliases
from .evidence import Candidate, asks_only, from_memory
from .told import margin, parts, score, subjects_of
from .value_kinds import asked_kind

KIND_RECORDS = 2  # records that join the recall per part


def _told(record: MemoryRecord) -> Candidate | None:
    """The record as a candidate when the user told it (a fact, or their own turn), else None."""
    if record.kind not in ("fact", "turn") or (record.kind == "turn" and turn_speaker(record) != "you"):
        return None
    candidate = from_memory(prompt_text(record))
    return None if asks_only(candidate) else candidate


def with_kind_records(reading: Reading, hits: Sequence[RecallHit], records: Callable[[], Sequence[MemoryRecord]],
                      k: int) -> list[RecallHit]:
    """`hits` (best first, at most `k`) with the records that answer a part asking for a kind
    of value put first when no hit answers it (see the module's definition), for a question
    about the past (reading/past.py); `records` gives the store's records, read only then."""
    question = reading.text
    kinds = [part for part in parts(question) if asked_kind(part)[0]] if reading.past is not None else []
    if not kinds:
        return list(hits)
    told = [(record, c) for record in records() if (c := _told(record)) is not None]
    subjects, standing = subjects_of([c for _, c in told], question), aliases(c.text for _, c in told)
    shown = {hit.record.id for hit in hits}
    added: list[RecallHit] = []
    for part in kinds:
        need = margin(part, subjects) - 1e-9
        answered = [hit.record for hit in hits if (c := _told(hit.record)) is not None  # the user's, never the
                    and score(part, c, subjects, standing) >= need]  # assistant's; "Nuno turned 5" for my dog
        found = [record for record, c in told if score(part, c, subjects, standing) >= need and record.id not in shown]
        newest = sorted(found, key=_when, reverse=True)
        if answered:  # one recalled answers: a newer one joins ("moved to Sopot" after "live in Gdansk")
            newest = [record for record in newest if _when(record) > max(map(_when, answered))]
        for record in newest[:KIND_RECORDS]:
            shown.add(record.id)
            added.append(RecallHit(record, 0.0))
    return [*added, *hits][: max(k, len(added))]


def _when(record: MemoryRecord) -> tuple[str, float]:
    return record.provenance.date or "", record.created
