"""What every route shares: the engine, the worker that runs its jobs, the options."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.requests import Request

from .engine import Engine, EngineInfo
from .errors import APIError
from .options import ServerOptions
from .streaming import Channel, cancel_job, watching
from .worker import QueueFull, Worker

T = TypeVar("T")


@dataclass
class ServerState:
    engine: Engine
    worker: Worker
    options: ServerOptions

    def info(self) -> EngineInfo:
        """The loaded model's description; APIError 503 while it loads."""
        info = self.engine.info
        if info is None:
            raise APIError(503, "the model is still loading; try again in a moment", code="loading",
                           headers={"Retry-After": "1"})
        return info

    def submit(self, job: Callable[[], T], *, exclusive: bool = False) -> Future[T]:
        """Queue a job for the model's threads (`exclusive`: to run alone); APIError 429 when
        the queue is full."""
        try:
            return self.worker.submit(job, exclusive=exclusive)
        except QueueFull as exc:
            raise APIError(429, f"the server is busy: {exc}; try again shortly", code="queue_full",
                           headers={"Retry-After": "1"}) from None

    async def run(self, request: Request, job: Callable[[], T], *, exclusive: bool = False) -> T | None:
        """Run a job that streams nothing; None when the client left before it ended."""
        future = self.submit(job, exclusive=exclusive)
        channel = Channel(asyncio.get_running_loop())
        return await watching(request, asyncio.wrap_future(future), lambda: cancel_job(future, channel))


def state_of(request: Request) -> ServerState:
    state: Any = request.app.state.server
    return state
