"""The text that is indexed for a record, which is not always the record's own text.

A chat turn is indexed with who said it and when ("[8 May 2023] Caroline: I went to a support
group yesterday"), so that questions naming a person or a time find it. Lexically a turn is also
indexed with the turns it answers (see `state.py`): a reply such as "Yes, the adoption agencies!"
only makes sense next to the question it answers. A fact with a key is indexed lexically with
the key's words too. These are general properties of conversational memory, not of one
benchmark; on LoCoMo dev (recall@5/@10): dense alone over bare turn text 0.243/0.328, with
speaker and date 0.386/0.472; hybrid without context 0.570/0.659, with the previous turn as
context 0.669/0.763; with question words also dropped from the query (recall.py): previous
turn 0.679/0.781, two previous turns 0.705/0.801, three 0.689/0.795.

Changing what `dense_text` returns changes the vectors: bump RENDER_VERSION so that stored
vectors made from the old text are detected and re-made.
"""

from __future__ import annotations

from ...types import MemoryRecord

RENDER_VERSION = 1


def speaker_of(record: MemoryRecord) -> str:
    """The name a turn is attributed to: its speaker, else its role ("User")."""
    origin = record.provenance
    if origin.get("speaker"):
        return str(origin["speaker"]).strip()
    return str(origin.get("role") or "").strip().title()


def dense_text(record: MemoryRecord) -> str:
    """What is embedded for the record."""
    if record.kind != "turn":
        return record.text
    parts = []
    date = str(record.provenance.get("date") or "").strip()
    if date:
        parts.append(f"[{date}]")
    speaker = speaker_of(record)
    parts.append(f"{speaker}: {record.text}" if speaker else record.text)
    return " ".join(parts)


def lexical_text(record: MemoryRecord) -> str:
    """What is indexed for BM25, before the context of neighbouring turns is added."""
    if record.key is not None:
        return f"{dense_text(record)} ({record.key[0]} {record.key[1]})"
    return dense_text(record)


def context_session(record: MemoryRecord) -> str | None:
    """The conversation a turn belongs to, whose earlier turns give it context."""
    if record.kind != "turn":
        return None
    session = record.provenance.get("session")
    return None if session is None else str(session)


def embedding_id(model_id: str) -> str:
    """What stored vectors are tagged with: the model and the version of `dense_text`."""
    return f"{model_id}#text-v{RENDER_VERSION}"
