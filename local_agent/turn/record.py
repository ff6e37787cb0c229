"""A turn as JSON: the record `ask --json` prints, `batch` writes a line of, and the warm `ask`
of the server sends back; and the pieces of it the chat completions' `local_agent` part reuses."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..types import RecallHit
from .result import TurnResult

if TYPE_CHECKING:
    from ..backends.probe import BackendChoice
    from ..memory.distill.saving import SaveOutcome


def recalled_json(hits: Iterable[RecallHit]) -> list[dict[str, Any]]:
    return [{"id": h.record.id, "kind": h.record.kind, "text": h.record.text, "score": round(h.score, 4)}
            for h in hits]


def saved_json(outcomes: Iterable[SaveOutcome]) -> list[dict[str, Any]]:
    return [{"id": o.record.id, "text": o.record.text, "action": o.action} for o in outcomes]


def turn_json(result: TurnResult, choice: BackendChoice, model: str) -> dict[str, Any]:
    """The turn's record, answered by `model` (loaded as `choice` says); waits for the turn's
    memory work, whose saved facts and timings it reports."""
    work = result.memory_work()
    return {
        "answer": result.answer,
        "session": result.session,
        "backend": choice.backend,
        "device": choice.device,
        "model": model,
        "interrupted": result.interrupted,
        "memories_saved": saved_json(work.saved),
        "memories_recalled": recalled_json(result.recalled),
        "timings": {k: round(v, 4) for k, v in {**result.timings.to_dict(), **work.timings.to_dict()}.items()},
        "tokens": result.tokens.to_dict(),
        "notices": list(result.notices),
        "tool_calls": [call.to_dict() for call in result.tool_calls],
        "asked_user": result.asked_user,
        "outcome": result.outcome,
        "tools": result.tools.to_dict() if result.tools is not None else None,
    }
