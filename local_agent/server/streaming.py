"""Between the worker thread and the event loop: tokens flow one way, "the client left" the
other.

A job on the worker writes its tokens and then its end (a result or an exception) into a
`Channel`; the request's coroutine reads them. When the client disconnects, the coroutine
cancels the channel, and the job's next token sees that and stops the generation.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.requests import Request

T = TypeVar("T")
POLL_S = 0.2  # how often a waiting request checks that its client is still there


@dataclass(frozen=True)
class End:
    """The job's last item: its result, or the exception it raised."""

    result: Any = None
    error: BaseException | None = None


@dataclass(frozen=True)
class Early:
    """A result the job hands over before it ends (the answer, before its memory work)."""

    result: Any = None


class Channel:
    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._items: asyncio.Queue[str | Early | End] = asyncio.Queue()
        self._gone = threading.Event()

    # -- worker side ---------------------------------------------------------------------
    def token(self, chunk: str) -> bool:
        """Pass a chunk on; False when the client has left (the job should stop)."""
        if self._gone.is_set():
            return False
        self._put(chunk)
        return True

    def early(self, result: Any) -> None:
        self._put(Early(result))

    def run(self, job: Callable[[Channel], T]) -> Callable[[], T]:
        """`job` wrapped so that its end is always written to the channel."""
        def wrapped() -> T:
            try:
                result = job(self)
            except BaseException as exc:
                self._put(End(error=exc))
                raise
            self._put(End(result=result))
            return result
        return wrapped

    def _put(self, item: str | Early | End) -> None:
        try:
            self._loop.call_soon_threadsafe(self._items.put_nowait, item)
        except RuntimeError:  # the loop is closed: nobody is listening any more
            self._gone.set()

    # -- event-loop side -------------------------------------------------------------------
    @property
    def gone(self) -> bool:
        return self._gone.is_set()

    def cancel(self) -> None:
        self._gone.set()

    async def get(self) -> str | Early | End:
        return await self._items.get()


async def watching(request: Request, waiting: Awaitable[T], on_disconnect: Callable[[], None]) -> T | None:
    """Await `waiting` while checking that the client is still connected; when it is not,
    call `on_disconnect` and return None."""
    task = asyncio.ensure_future(waiting)
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=POLL_S)
            if done:
                return task.result()
            if await request.is_disconnected():
                on_disconnect()
                return None
    finally:
        if not task.done():
            task.cancel()


def cancel_job(future: Future[Any], channel: Channel) -> None:
    """The client left: skip the job if it has not started, else stop its generation."""
    channel.cancel()
    future.cancel()
