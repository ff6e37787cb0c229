"""The memory work after a turn, run on the agent's worker thread: the exchange stored as
`turn` memories, the user's facts distilled, older dialogue folded into the rolling summary.

Functions of their inputs only; the agent (agent.py) decides when they run and keeps the
session's state."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..memory.passages import passages
from ..memory.sessions import Session
from ..reading import Reading
from ..reading.corrections import is_correction
from ..types import MemoryDraft, Provenance
from .evidence import content_words
from .quotes import quotes_inside
from .result import FROM_MEMORY_ROUTES, TurnResult, WorkInProgress

if TYPE_CHECKING:  # heavy modules are only needed when memory is on
    from ..memory.distill import Distiller
    from ..memory.store import MemoryStore
    from ..memory.summary import Summarizer


@dataclass
class MemoryParts:
    """What memory needs; absent (None) in a memory-less agent."""

    store: MemoryStore
    distiller: Distiller | None = None
    summarizer: Summarizer | None = None


def turn_provenance(result: TurnResult, role: str, today: str) -> Provenance:
    """Where a memory of this exchange comes from: its session, the user's turn index and date."""
    return Provenance(session=result.session, turn_index=result.turn_index, role=role,
                      source_text=result.message, date=result.date or today)


Wanted = Callable[[], bool]
"""Asked before each write of the memory work: False when the turn's listener left before it
had the whole answer (a server's client), so that nothing of the turn is kept."""


def always() -> bool:
    return True


def store_turn(result: TurnResult, store: MemoryStore, work: WorkInProgress, today: str) -> list[str]:
    """The user's message and the answer's passages, as `turn` memories of this exchange
    (both at the user's turn index, so forgetting the message forgets its answer too), the
    answer left out when it only says back memory (`FROM_MEMORY_ROUTES`, `repeats_memory`), a
    passage of it left out when it quotes (quotes.py: never quoted inside another quote);
    returns their ids."""
    start = time.perf_counter()
    drafts = [MemoryDraft(result.message, "turn", turn_provenance(result, "user", today))]
    if not result.interrupted and result.reply_route not in FROM_MEMORY_ROUTES and not repeats_memory(result):
        drafts += [MemoryDraft(passage, "turn", turn_provenance(result, "assistant", today))
                   for passage in passages(result.answer) if not quotes_inside(passage)]
    stored = store.add_many(drafts)
    work.timings["store_s"] = time.perf_counter() - start
    return [record.id for record in stored]


def repeats_memory(result: TurnResult) -> bool:
    """Whether the answer's content words all come from what the user said in the prompt (the
    message, the dialogue's earlier messages) and the memories recalled for it: it tells
    nothing new, and stored it would be recalled as something the assistant said."""
    shown = [m.content for m in result.prompt.messages if m.role == "user"] if result.prompt else []
    known = content_words(result.message).union(*map(content_words, shown),
                                                *(content_words(hit.record.text) for hit in result.recalled))
    return content_words(result.answer) <= known


def withdraw(store: MemoryStore, turn_ids: list[str], work: WorkInProgress) -> None:
    """The listener left before it had the answer: forget what this work stored (the turn's
    memories and the facts it added). A fact it refreshed or superseded stays so; it saves
    none after its listener is gone, so that takes leaving during that one write."""
    for ident in [*turn_ids, *(outcome.record.id for outcome in work.saved if outcome.action == "added")]:
        store.forget(ident)
    work.saved.clear()


def distill_turn(result: TurnResult, memory: MemoryParts, work: WorkInProgress, today: str,
                 wanted: Wanted = always, reading: Reading | None = None) -> None:
    """Durable facts in the user's message (read as `reading` when the turn read it), saved (a
    correction supersedes what it corrects) while they are `wanted`."""
    distiller = memory.distiller
    if distiller is None:
        return
    from ..memory.distill.saving import save_fact

    start = time.perf_counter()
    reading = reading if reading is not None and reading.text == result.message else None
    judged = distiller.distill(result.message, reading.clauses if reading else None)
    correction = reading.correction if reading else is_correction(result.message)
    work.rejected = list(judged.rejected)
    for candidate in judged.candidates:
        if not wanted():
            break
        decision = {"route": candidate.route, "raw_json": judged.raw_json, "valid_json": judged.valid_json}
        outcome = save_fact(
            memory.store, candidate, provenance=turn_provenance(result, "user", today), decision=decision,
            correction=correction,
        )
        work.saved.append(outcome)
    work.timings["distill_s"] = time.perf_counter() - start


def keep_from(session: Session, keep_recent_turns: int) -> int:
    """Index of the first turn that stays verbatim: the last `keep_recent_turns` exchanges."""
    users_seen = 0
    for index in range(len(session.turns) - 1, session.summarized_upto - 1, -1):
        if session.turns[index].role == "user":
            users_seen += 1
            if users_seen == keep_recent_turns:
                return index
    return session.summarized_upto


def fold_summary(session: Session, summarizer: Summarizer, keep_recent_turns: int) -> None:
    """Fold the dialogue older than the kept exchanges into the session's bullet summary
    (private turns are never folded)."""
    keep = keep_from(session, keep_recent_turns)
    folded = [turn.message() for turn in session.turns[session.summarized_upto : keep] if not turn.private]
    session.summary = summarizer.fold(session.summary, folded)
    session.summarized_upto = keep
