"""Recall for a question about the user's life brings what the user said, not the assistant's
reply to it.

A 135M model's reply garbles what it was told ("It seems like you're switching from the half
marathon in April to the full marathon in December", after "I'm switching from the half to the
full marathon in April"), and the embedding may rank that reply above the user's own message:
then the recall holds only the garbled version, which tells nothing (told.py never takes the
assistant's words as evidence).

Definition: for a question about the user's own past (reading/past.py: it speaks of the user;
"what was that recipe again?" may ask for the assistant's words) that does not ask what the
assistant said, each recalled reply of the assistant is replaced, in its place, by the user's
message of the same exchange (the same session and turn), or left out when that message is
recalled already or was not kept; the recall never grows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..reading import Reading
from ..reading.past import asks_what_assistant_said
from ..types import MemoryRecord, RecallHit

Exchange = tuple[str | None, int | None]


def _exchange(record: MemoryRecord) -> Exchange:
    return record.provenance.session, record.provenance.turn_index


def _reply(record: MemoryRecord) -> bool:
    return record.kind == "turn" and record.provenance.role == "assistant" and record.provenance.turn_index is not None


def with_users_words(reading: Reading, hits: Sequence[RecallHit], records: Callable[[], Sequence[MemoryRecord]]
                     ) -> list[RecallHit]:
    """`hits` with each reply of the assistant replaced by the user's message it answered (see
    the module's definition); `records` gives the store's records, read only when a reply was
    recalled."""
    past = reading.past
    if past is None or not past.certain or asks_what_assistant_said(reading.text) or not any(
            _reply(h.record) for h in hits):
        return list(hits)
    replied = {_exchange(h.record) for h in hits if _reply(h.record)}
    asked = {_exchange(record): record for record in records()
             if record.kind == "turn" and record.provenance.role == "user" and _exchange(record) in replied}
    kept: dict[str, RecallHit] = {}  # by record id, in the recall's order
    for hit in hits:
        said = asked.get(_exchange(hit.record)) if _reply(hit.record) else hit.record
        if said is not None and said.id not in kept:
            kept[said.id] = hit if said is hit.record else RecallHit(said, hit.score)
    return list(kept.values())
