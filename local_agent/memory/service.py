"""What people do to memory: remember (as stated, or through the distiller as chat does), correct,
forget (with the message it came from), forget everything, import and export; and list,
search, show and trace for front ends to display.

One `MemoryService` stands for one memory: a data dir (the user's own, or a server namespace)
and its open store. The CLI's `memory` commands, the chat's slash commands and the server's
memory routes call it, and so will the page and MCP. A fact a person states therefore gets one
provenance everywhere (`stated_provenance`), dated by the clock the service is given (which
honours `--today`), and a forgotten memory leaves the same files whoever asked.

Results are typed and say what happened: `Saved` (added, or superseded with the record it
replaced), `Distilled` (the facts a statement gave, what was refused and why), `Forgotten` (the
memory, the turn memories of its source, the transcripts edited), `Cleared`, `Imported`,
`Exported`. A request the service will not do raises an error of errors.py with the reason in
one line: InputError (empty or overlong text, a control character other than tab and
newline, a memory already replaced, a file that is no export, an export into the store's own
folders), NotFoundError (no such id, or an ambiguous prefix), StoreError (the files).

The service neither opens nor closes its store: whoever opened it (the runtime, the server's
namespaces, a CLI command through app.opened_memory) closes it.
"""

from __future__ import annotations

import datetime as dt
import functools
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..backends.llama_state import delete_states
from ..dates.clock import stamp
from ..errors import InputError, NotFoundError
from ..reading.corrections import is_correction
from ..types import MemoryRecord, Provenance, RecallHit
from .distill.saving import SaveOutcome, save_fact
from .sessions import SessionStore
from .sessions.epoch import bump_epoch
from .sessions.transcripts import find_messages, remove_from_history, remove_messages
from .store.datadir import HISTORY_NAME, TOOL_CACHE_NAME, claim_data_dir, namespace_dirs
from .store.records import MAX_FACT_CHARS

if TYPE_CHECKING:
    from .distill.distiller import Distiller
    from .index.embedder import TextEmbedder
    from .store import MemoryStore
    from .store.forgetting import Origin

Clock = Callable[[], dt.datetime]
Saved = SaveOutcome  # what a write did: "added", or "superseded" with `previous` the record replaced
USER_DECISION = {"route": "user"}  # a fact the person stated, not one the distiller chose


@dataclass(frozen=True)
class Distilled:
    """What `remember_said` made of a statement: the facts saved (each `Saved`: "added",
    "refreshed" when memory already said it, or "superseded" with the record it replaced), the
    candidates refused as (text, reason), and the gate's word on the statement ("durable
    statement", "a question", "only passing remarks", ...). Nothing saved and nothing refused:
    the gate found nothing to remember."""

    saved: tuple[Saved, ...]
    refused: tuple[tuple[str, str], ...]
    gate: str


@dataclass(frozen=True)
class Shown:
    """A memory with the record it replaced (None when it replaced none)."""

    record: MemoryRecord
    previous: MemoryRecord | None


@dataclass(frozen=True)
class Traced:
    """A memory traced to where it came from: its origin in the store (the messages it was
    made from and the turn memories holding them) and the transcript messages that are one of
    those sources, as (session, index)."""

    origin: Origin
    messages: tuple[tuple[str, int], ...]


@dataclass(frozen=True)
class Forgotten:
    """What a forget removed: the memory (with the versions it replaced), and with its source
    the turn memories of that message and the sessions whose transcript lost it."""

    record: MemoryRecord
    turns: tuple[MemoryRecord, ...] = ()
    sessions_edited: tuple[str, ...] = ()


@dataclass(frozen=True)
class SessionDeleted:
    """A conversation deleted: its name, and with what it taught the memories forgotten (each
    with the turn memories of its source) and the other sessions whose transcript lost a message."""

    name: str
    forgotten: tuple[MemoryRecord, ...] = ()
    sessions_edited: tuple[str, ...] = ()


@dataclass(frozen=True)
class Cleared:
    """Everything was forgotten in a data dir and in the server namespaces it holds."""

    data_dir: Path
    namespaces: tuple[Path, ...]


@dataclass(frozen=True)
class Imported:
    path: Path
    added: int  # records whose id the store already held were skipped (with refresh: added or changed)


@dataclass(frozen=True)
class Exported:
    path: Path
    records: int  # superseded versions included


def fact_text(text: str) -> str:
    """A stated fact as it is stored: whitespace runs (tab and newline too) made one space.
    InputError when nothing is left, it is longer than a fact may be, or it holds another
    control character (NUL, ESC, DEL, ...): refused, never stored or silently removed."""
    text = " ".join(text.split())
    if not text:
        raise InputError("the memory text is empty")
    if len(text) > MAX_FACT_CHARS:
        raise InputError(f"a memory is at most {MAX_FACT_CHARS} characters")
    control = next((char for char in text if unicodedata.category(char) == "Cc"), None)
    if control is not None:
        raise InputError(f"the memory text holds a control character (U+{ord(control):04X}); "
                         "only tab and newline may be used")
    return text


def stated_provenance(text: str, moment: dt.datetime, *, via: str, session: str | None = None) -> Provenance:
    """Where a fact the person stated comes from: their words, the moment (the service's
    clock), the front end it came through (`via`: "memory add", "/remember", "api", ...) and
    the chat session it was said in, if any."""
    return Provenance(session=session, role="user", source_text=text, date=stamp(moment), extra={"via": via})


def _nothing() -> None:
    pass


class MemoryService:
    """What people do to the memory in `data_dir`, whose open store is `store`. `clock` dates
    what is stored; `settle` runs before each call (a chat passes its agent's wait, so the
    memory work of the last turn is done first)."""

    def __init__(self, store: MemoryStore, data_dir: Path, *, clock: Clock,
                 settle: Callable[[], object] = _nothing) -> None:
        self._store = store
        self.data_dir = Path(data_dir)
        self._clock = clock
        self._settle = settle

    # -- reading ----------------------------------------------------------------------------
    def records(self, kind: str | None = "fact", *, include_inactive: bool = False) -> list[MemoryRecord]:
        """Active memories of `kind` ("fact", "turn", "digest"; None: every kind; InputError for
        another), in the order they were stored."""
        self._settle()
        return self._store.records(kind=kind, include_inactive=include_inactive)

    def newest(self, kind: str | None = "fact", *, limit: int = 0,
               include_inactive: bool = False) -> list[MemoryRecord]:
        """`records`, most recently updated first, at most `limit` (0: all)."""
        records = sorted(self.records(kind, include_inactive=include_inactive), key=lambda r: r.updated,
                         reverse=True)
        return records[:limit] if limit > 0 else records

    def search(self, query: str, limit: int = 10) -> list[RecallHit]:
        """The memories closest to `query` (the recall a chat turn uses), best first."""
        self._settle()
        return self._store.recall(query, k=limit)

    def show(self, ident: str) -> Shown:
        """A memory by id or unique prefix, with the record it replaced."""
        self._settle()
        record = self._store.get(ident)
        return Shown(record, self._store.get(record.supersedes) if record.supersedes else None)

    def trace(self, ident: str) -> Traced:
        """Where a memory came from, and which transcripts still hold that message."""
        self._settle()
        origin = self._store.origin(ident)
        return Traced(origin, tuple(find_messages(SessionStore(self.data_dir), origin)))

    # -- writing ----------------------------------------------------------------------------
    def remember(self, text: str, *, via: str, session: str | None = None) -> Saved:
        """Store `text` as a fact the person stated (whitespace normalized, see `fact_text`),
        with `stated_provenance`."""
        text = fact_text(text)
        self._settle()
        provenance = stated_provenance(text, self._clock(), via=via, session=session)
        return Saved("added", self._store.add(text, "fact", provenance=provenance, decision=USER_DECISION))

    def remember_said(self, text: str, distiller: Distiller, *, via: str, session: str | None = None) -> Distilled:
        """Remember what `text` says about the person the way a chat remembers a message: the
        distiller's gate, rules and model find the facts (a question or a passing remark gives
        none), a fact memory already holds is refreshed, one on the same attribute is
        superseded, and a correction ("Actually, I moved to Porto") supersedes the fact it
        corrects. Each fact gets the stated provenance (their words, the clock, `via`)."""
        text = fact_text(text)
        self._settle()
        judged = distiller.distill(text)
        provenance = stated_provenance(text, self._clock(), via=via, session=session)
        decision = {"raw_json": judged.raw_json, "valid_json": judged.valid_json}
        correction = is_correction(text)
        saved = tuple(save_fact(self._store, candidate, provenance=provenance, decision=decision, correction=correction)
                      for candidate in judged.candidates)
        return Distilled(saved, tuple(judged.rejected), judged.gate)

    def correct(self, ident: str, text: str, *, via: str, session: str | None = None) -> Saved:
        """Replace a memory by `text`: the new record supersedes it (the old one is kept, out of
        recall) and keeps its key. InputError when it was already replaced."""
        text = fact_text(text)
        self._settle()
        old = self._store.get(ident)
        provenance = stated_provenance(text, self._clock(), via=via, session=session)
        record = self._store.supersede(old.id, text, provenance=provenance, decision=USER_DECISION, key=old.key)
        return Saved("superseded", record, previous=old)

    def forget(self, ident: str, *, with_source: bool = False) -> Forgotten:
        """Forget a memory and the versions it replaced, from every file of the store.
        `with_source` also forgets the messages it was made from: their turn memories, the
        messages (with the answers to them) in the session transcripts, their lines in the
        chat's line-editing history, and the saved model states (which may hold a summary of
        them). Transcripts go first, so a failure leaves the memory in place to forget again."""
        self._settle()
        if not with_source:
            return Forgotten(self._store.forget(ident))
        origin = self._store.origin(ident)
        edited = remove_messages(SessionStore(self.data_dir), origin)
        remove_from_history(self.data_dir / HISTORY_NAME, origin)
        delete_states(self.data_dir)
        if edited:  # an open chat may still hold the message (or a summary of it): it drops them
            bump_epoch(self.data_dir)
        gone = self._store.forget_with_source(origin.record.id)
        return Forgotten(gone.record, gone.turns, tuple(edited))

    def delete_session(self, name: str, *, forget_taught: bool = False) -> SessionDeleted:
        """Delete a conversation's transcript. With `forget_taught`, first forget what it taught:
        every memory made in it (the facts drawn from it and stated in it, its digest, its turn
        memories), each as `forget(with_source=True)` does. The transcript goes last, so a
        failure leaves it in place to delete again. NotFoundError when there is no such session."""
        self._settle()
        sessions = SessionStore(self.data_dir)
        if not sessions.exists(name):
            raise NotFoundError(f"no session named {name!r}")
        forgotten: list[MemoryRecord] = []
        edited: dict[str, None] = {}
        for record in self._taught_in(name) if forget_taught else []:
            try:
                gone = self.forget(record.id, with_source=True)
            except NotFoundError:
                continue  # it went with the source of one forgotten before it
            forgotten += [gone.record, *gone.turns]
            edited.update(dict.fromkeys(gone.sessions_edited))
        sessions.delete(name)
        edited.pop(name, None)
        return SessionDeleted(name, tuple(forgotten), tuple(edited))

    def _taught_in(self, session: str) -> list[MemoryRecord]:
        """The active memories made in `session`: facts and digests first, then turn memories
        (most go with the sources of the facts)."""
        made = [record for record in self._store.records(kind=None) if record.provenance.session == session]
        return sorted(made, key=lambda record: record.kind == "turn")

    def forget_all(self) -> Cleared:
        """Remove all memory: facts, turns, vectors, journal, backups, sessions (with their
        summaries), the chat's line-editing history, the notes index and the saved model
        states, here and in each server namespace this data dir holds (`users/NAME`); only
        files local-agent made. Raises rather than return when any of it could not be deleted."""
        self._settle()
        namespaces = namespace_dirs(self.data_dir)  # links refused before anything goes
        _clear_data_dir(self.data_dir, lambda: self._store, close=False)
        for folder in namespaces:
            _clear_data_dir(claim_data_dir(folder), functools.partial(_open_at, folder, self._store.embedder),
                            close=True)
        return Cleared(self.data_dir, tuple(namespaces))

    def import_file(self, path: Path, *, refresh: bool = False) -> Imported:
        """Add the memories of a file written by `export` (validated first; InputError names
        its first problem). Records already stored are skipped; with `refresh` they take the
        file's state when it differs (what a copy of this memory did since: touched, or
        replaced by a newer version), as when `batch --ray` writes a namespace back."""
        self._settle()
        return Imported(Path(path), self._store.import_file(Path(path), refresh=refresh))

    def export(self, path: Path) -> Exported:
        """Write every memory (superseded versions and provenance too) to a JSON file, 0600."""
        self._settle()
        return Exported(Path(path), self._store.export(Path(path)))


def _clear_data_dir(data_dir: Path, opened: Callable[[], MemoryStore], *, close: bool) -> None:
    """forget_all in one data dir (the default or a namespace)."""
    bump_epoch(data_dir)  # open chats must not write back what they hold (epoch.py)
    SessionStore(data_dir).delete_all()  # before the store: it refuses links before deleting anything
    store = opened()
    try:
        store.forget_all()
    finally:
        if close:
            store.close()
    (data_dir / HISTORY_NAME).unlink(missing_ok=True)
    for cache in (data_dir / TOOL_CACHE_NAME).glob("notes-*.json"):  # what was read from the notes
        cache.unlink(missing_ok=True)
    delete_states(data_dir)
    bump_epoch(data_dir)  # again: a chat that read the old files meanwhile sees it too


def _open_at(data_dir: Path, embedder: TextEmbedder) -> MemoryStore:
    from .store import MemoryStore

    return MemoryStore.open(data_dir, embedder)
