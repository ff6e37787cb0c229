"""The page's memory view, on the owner's memory: list with provenance, search with the
product's own recall, show where a memory came from, correct, forget with its source, forget
everything (typed confirmation), add, and export to a download.

Each call goes through the memory service (memory/service.py) on the model's thread, as the
`/v1/memories` routes do; a fact written here has `via: page` in its provenance. The
OpenAI-facing `/v1/memories` routes stay as they are.
"""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from ..errors import InputError
from ..memory.service import MemoryService
from ..types import MemoryRecord
from .page_schemas import FORGET_ALL_PHRASE, ForgetAll, MemoryKindName, MemoryQuery, MemoryText
from .routes_openai import GONE
from .state import ServerState, state_of

router = APIRouter()
BASE = "/v1/local-agent/memories"
VIA = "page"  # the `via` of what the page writes
DEFAULT_KINDS: tuple[MemoryKindName, ...] = ("fact", "digest")


def memory_json(record: MemoryRecord) -> dict[str, Any]:
    """A memory as the page shows it: its text, kind, times and where it came from."""
    data = record.to_dict()
    return {"object": "memory", **data}


def _service(state: ServerState) -> MemoryService:
    return state.engine.memory_service(None)


async def _on_worker(request: Request, job: Any) -> Any:
    state = state_of(request)
    state.info()
    return await state.run(request, lambda: job(_service(state)))


@router.get(BASE, response_model=None)
async def list_memories(request: Request, kind: Annotated[list[MemoryKindName] | None, Query()] = None,
                        limit: int = Query(200, ge=1, le=10_000),
                        offset: int = Query(0, ge=0)) -> Response | dict[str, Any]:
    """Memories of the kinds asked (facts and digests unless told), newest first (`limit` from
    `offset`); `total` counts them all."""
    kinds = list(dict.fromkeys(kind or DEFAULT_KINDS))

    def job(service: MemoryService) -> dict[str, Any]:
        records = sorted((record for name in kinds for record in service.records(name)),
                         key=lambda record: record.updated, reverse=True)
        return {"object": "list", "total": len(records),
                "data": [memory_json(record) for record in records[offset:offset + limit]]}

    found = await _on_worker(request, job)
    return Response(status_code=GONE) if found is None else found


@router.post(BASE, response_model=None)
async def add_memory(body: MemoryText, request: Request) -> Response | dict[str, Any]:
    saved = await _on_worker(request, lambda service: service.remember(body.text, via=VIA))
    if saved is None:
        return Response(status_code=GONE)
    return {"action": saved.action, "record": memory_json(saved.record)}


@router.post(BASE + "/search", response_model=None)
async def search_memories(body: MemoryQuery, request: Request) -> Response | dict[str, Any]:
    """The recall a chat turn uses (hybrid, best first), of the kinds asked."""
    def job(service: MemoryService) -> list[dict[str, Any]]:
        hits = service.search(body.query, body.limit)
        return [{**memory_json(hit.record), "score": round(hit.score, 4)} for hit in hits
                if hit.record.kind in body.kinds]

    hits = await _on_worker(request, job)
    return Response(status_code=GONE) if hits is None else {"object": "list", "data": hits}


@router.get(BASE + "/{ident}", response_model=None)
async def show_memory(ident: str, request: Request) -> Response | dict[str, Any]:
    """A memory, the one it replaced, and where it came from: the messages it was made from,
    the turn memories holding them, and the transcripts that still hold one (session, index)."""
    def job(service: MemoryService) -> dict[str, Any]:
        shown = service.show(ident)
        traced = service.trace(shown.record.id)
        return {
            "record": memory_json(shown.record),
            "previous": memory_json(shown.previous) if shown.previous else None,
            "sources": [{"session": s.session, "turn_index": s.turn_index, "text": s.text}
                        for s in traced.origin.sources],
            "turns": [memory_json(turn) for turn in traced.origin.turns],
            "messages": [{"session": session, "index": index} for session, index in traced.messages],
        }

    shown = await _on_worker(request, job)
    return Response(status_code=GONE) if shown is None else shown


@router.post(BASE + "/{ident}/correct", response_model=None)
async def correct_memory(ident: str, body: MemoryText, request: Request) -> Response | dict[str, Any]:
    """A correction, as `memory edit` makes: a new memory that supersedes this one."""
    saved = await _on_worker(request, lambda service: service.correct(ident, body.text, via=VIA))
    if saved is None:
        return Response(status_code=GONE)
    return {"action": saved.action, "record": memory_json(saved.record),
            "previous": memory_json(saved.previous) if saved.previous else None}


@router.delete(BASE + "/{ident}", response_model=None)
async def forget_memory(ident: str, request: Request,
                        with_source: bool = Query(True, description="also forget the message it came from")
                        ) -> Response | dict[str, Any]:
    gone = await _on_worker(request, lambda service: service.forget(ident, with_source=with_source))
    if gone is None:
        return Response(status_code=GONE)
    return {"object": "memory", "id": gone.record.id, "deleted": True, "turns": [turn.id for turn in gone.turns],
            "sessions_edited": list(gone.sessions_edited)}


@router.post(BASE + "/forget-all", response_model=None)
async def forget_all(body: ForgetAll, request: Request) -> Response | dict[str, Any]:
    """Everything, as `memory forget --all`: only with the phrase typed."""
    if " ".join(body.confirm.lower().split()) != FORGET_ALL_PHRASE:
        raise InputError(f"confirm: type {FORGET_ALL_PHRASE!r} to forget everything")
    state = state_of(request)
    state.info()
    # It closes every namespace's store: alone, not beside requests answered at once.
    cleared = await state.run(request, state.engine.forget_everything, exclusive=True)
    if cleared is None:
        return Response(status_code=GONE)
    return {"object": "memory.cleared", "data_dir": str(cleared.data_dir),
            "namespaces": [str(path) for path in cleared.namespaces]}


@router.post(BASE + "/export", response_model=None)
async def export_memories(request: Request) -> Response:
    """Every memory as the JSON file `memory export` writes (superseded versions and
    provenance too), as a download. The file is written in a private temporary folder and
    deleted once read."""
    def job(service: MemoryService) -> bytes:
        with tempfile.TemporaryDirectory(prefix="local-agent-export-") as folder:
            path = Path(folder) / "memories.json"
            service.export(path)
            return path.read_bytes()

    body = await _on_worker(request, job)
    if body is None:
        return Response(status_code=GONE)
    name = f"local-agent-memories-{dt.date.today().isoformat()}.json"
    return Response(body, media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"})
