"""Past conversations into memory (`local-agent memory import-chats`): both sides as dated turn
memories, the user's facts (dated by their message), and a digest per session.

Idempotent: every memory made from a message carries the message's dedupe key (session,
position, content hash) in provenance `import_key`, and a message whose key is stored is
skipped. Per session, facts and the digest are saved first and the turns last, in one write:
the turns mark the session as imported, so an import cut short is finished by running it again
(the facts said again are refreshed, not copied). Facts are saved in the order of their dates,
and an older statement never replaces a newer fact (distill/saving.py).

Facts come from the distiller's rules only (no model): a model pass over thousands of imported
messages would take hours on a CPU.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..dates.clock import stamp
from ..memory.distill.rules import extract
from ..memory.distill.saving import save_fact
from ..memory.passages import passages
from ..types import FactCandidate, MemoryDraft, Message, Provenance
from .chat_import import ImportedMessage

if TYPE_CHECKING:
    from ..memory.store import MemoryStore
    from ..memory.summary import Summarizer


@dataclass
class ImportCounts:
    messages: int = 0
    skipped_existing: int = 0
    turns: int = 0
    facts: int = 0
    digests: int = 0
    sessions: list[str] = field(default_factory=list)


def imported_keys(store: MemoryStore) -> set[str]:
    """The dedupe keys of the messages already imported."""
    return {record.provenance.import_key for record in store.records(kind=None, include_inactive=True)
            if record.provenance.import_key is not None}


@dataclass
class HistoryImport:
    """An import planned session by session. Each `step()` stores the next session (facts,
    digest, then its turns, in one write), so a caller may run it a session at a time and stop
    between two: the server's page runs each step as a job of its own, between chat turns.
    Stopping early keeps what was stored, and importing again picks up the rest."""

    store: MemoryStore
    summarizer: Summarizer | None
    counts: ImportCounts
    pending: list[tuple[str, list[ImportedMessage]]]
    dry_run: bool = False

    @property
    def done(self) -> bool:
        return not self.pending

    def step(self) -> int:
        """Store the next session; returns how many of its messages were handled."""
        session, group = self.pending.pop(0)
        self.counts.sessions.append(session)
        drafts = [draft for message in group for draft in _turn_drafts(message)]
        self.counts.turns += len(drafts)
        if not self.dry_run:
            self.counts.facts += _save_facts(self.store, group)
            self.counts.digests += _save_digest(self.store, session, group, self.summarizer)
            self.store.add_many(drafts)
        return len(group)


def plan_import(store: MemoryStore, messages: Sequence[ImportedMessage], *, summarizer: Summarizer | None,
                dry_run: bool = False) -> HistoryImport:
    """The sessions of `messages` still to import (messages already imported are counted and
    skipped), in the order `import_history` stores them."""
    counts = ImportCounts(messages=len(messages))
    known = imported_keys(store)
    fresh = [message for message in messages if message.key not in known]
    counts.skipped_existing = len(messages) - len(fresh)
    return HistoryImport(store, summarizer, counts, _by_session(fresh), dry_run)


def import_history(store: MemoryStore, messages: Sequence[ImportedMessage], *, summarizer: Summarizer | None,
                   dry_run: bool = False, progress: Callable[[int], None] = lambda n: None) -> ImportCounts:
    """Store `messages` (see the module's docstring); with `dry_run`, only count."""
    plan = plan_import(store, messages, summarizer=summarizer, dry_run=dry_run)
    while not plan.done:
        progress(plan.step())
    return plan.counts


def _by_session(messages: Sequence[ImportedMessage]) -> list[tuple[str, list[ImportedMessage]]]:
    """Sessions in the order of their first date (undated first), messages in position order."""
    groups: dict[str, list[ImportedMessage]] = {}
    for message in messages:
        groups.setdefault(message.session, []).append(message)
    ordered = sorted(groups.items(), key=lambda item: min((stamp(m.date) for m in item[1] if m.date), default=""))
    return [(name, sorted(group, key=lambda m: m.position)) for name, group in ordered]


def _provenance(message: ImportedMessage, role: str) -> Provenance:
    return Provenance(session=message.session, turn_index=message.position, role=role, source_text=message.content,
                      date=stamp(message.date) if message.date else None,
                      import_key=message.key, extra={"via": "import-chats"})


def _turn_drafts(message: ImportedMessage) -> list[MemoryDraft]:
    if message.role == "user":
        return [MemoryDraft(message.content, "turn", _provenance(message, "user"))]
    return [MemoryDraft(passage, "turn", _provenance(message, "assistant")) for passage in passages(message.content)]


def _save_facts(store: MemoryStore, group: list[ImportedMessage]) -> int:
    saved = 0
    for message in group:
        if message.role != "user":
            continue  # the assistant's words are never the user's facts
        for fact in extract(message.content):
            candidate = FactCandidate(fact.text, "rule", fact.key, rule=fact.rule)
            save_fact(store, candidate, provenance=_provenance(message, "user"), decision={"via": "import-chats"})
            saved += 1
    return saved


def _save_digest(store: MemoryStore, session: str, group: list[ImportedMessage], summarizer: Summarizer | None) -> int:
    from ..memory.digests import MIN_EXCHANGES, save_digest

    if summarizer is None or sum(1 for m in group if m.role == "user") < MIN_EXCHANGES:
        return 0
    dates = [stamp(m.date) for m in group if m.date]
    if not dates:
        return 0
    summary = summarizer.fold("", [Message(m.role, m.content) for m in group])
    record = save_digest(store, session, summary, min(dates), max(dates), extra={"via": "import-chats"})
    return int(record is not None)
