"""Taking a forgotten message out of the session transcripts that hold it, and out of the
chat's line-editing history.

A message is found by its words in the sessions its memories name. It leaves with the answer
that followed it (an answer often repeats what it answers). A session summary folded from it
is dropped, and the transcript is summarized again from its turns on a later exchange.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from ...errors import InputError, NotFoundError
from ...process.files import atomic_write_bytes, atomic_write_json
from ..store.forgetting import Origin, Source, sources_of
from .session import Session, SessionStore


def all_sources(origin: Origin) -> tuple[Source, ...]:
    """The sources of a memory and of the turn memories that hold them."""
    return tuple(dict.fromkeys([*origin.sources, *sources_of(origin.turns)]))


def find_messages(sessions: SessionStore, origin: Origin) -> list[tuple[str, int]]:
    """(session, index) of every user message in a transcript that is one of the sources."""
    found = []
    for name, texts in _by_session(all_sources(origin)).items():
        session = _load(sessions, name)
        if session is not None:
            found += [(name, index) for index in _indices(session, texts)]
    return found


def remove_messages(sessions: SessionStore, origin: Origin) -> list[str]:
    """Remove the source messages (and the answers to them) from their transcripts; returns
    the names of the sessions changed."""
    changed = []
    with sessions.guard.locked():  # the lock every session save takes (epoch.py)
        for name, texts in _by_session(all_sources(origin)).items():
            session = _load(sessions, name)
            if session is not None and _remove(session, _indices(session, texts)):
                session.revision = secrets.token_hex(8)  # an open chat merges, never overwrites
                atomic_write_json(sessions.path(name), session.to_dict())
                changed.append(name)
    return changed


def _by_session(sources: tuple[Source, ...]) -> dict[str, set[str]]:
    grouped: dict[str, set[str]] = {}
    for source in sources:
        if source.session is not None:
            grouped.setdefault(source.session, set()).add(source.text)
    return grouped


def _load(sessions: SessionStore, name: str) -> Session | None:
    try:
        return sessions.load(name)
    except (NotFoundError, InputError):
        return None  # the session was deleted, or the name is not one of ours


def _indices(session: Session, texts: set[str]) -> list[int]:
    return [index for index, turn in enumerate(session.turns) if turn.role == "user" and turn.content in texts]


def _remove(session: Session, indices: list[int]) -> bool:
    """Drop the user turns at `indices` and the assistant turn right after each."""
    doomed = set(indices)
    doomed |= {index + 1 for index in indices
               if index + 1 < len(session.turns) and session.turns[index + 1].role == "assistant"}
    if not doomed:
        return False
    if min(doomed) < session.summarized_upto:
        session.summary, session.summarized_upto = "", 0  # it may retell the message
    session.turns = [turn for index, turn in enumerate(session.turns) if index not in doomed]
    session.summarized_upto = min(session.summarized_upto, len(session.turns))
    return True


def remove_from_history(history: Path, origin: Origin) -> bool:
    """Drop the lines of the chat's line-editing history that are a source message (as GNU
    readline writes them, or libedit with its escaped spaces); True when the file changed."""
    try:
        lines = history.read_bytes().split(b"\n")
    except FileNotFoundError:
        return False
    texts = {source.text for source in all_sources(origin)}
    doomed = {form for text in texts for form in (text.encode("utf-8"), text.replace(" ", "\\040").encode("utf-8"))}
    kept = [line for line in lines if line not in doomed]
    if len(kept) == len(lines):
        return False
    atomic_write_bytes(history, b"\n".join(kept))
    return True
