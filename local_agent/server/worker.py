"""One model, one thread: jobs run one at a time in the order they came, from a bounded queue.

Everything that touches the model, the embedder or a memory store runs here, so none of them
is ever used from two threads at once, and a turn's memory work (part of its job) is done
before the next job starts. A full queue refuses at once (the route answers 429); a job whose
client left before it started is skipped.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

log = logging.getLogger(__name__)


class QueueFull(Exception):
    """More requests are waiting than the server takes."""


class Worker:
    def __init__(self, max_waiting: int) -> None:
        self._queue: queue.Queue[tuple[Callable[[], Any], Future[Any], bool] | None] = queue.Queue()
        self._max_waiting = max_waiting
        self._slots = threading.Semaphore(max_waiting)  # one per waiting job
        self._thread = threading.Thread(target=self._run, name="local-agent-model", daemon=True)
        self._stopping = False
        self.busy = False  # a job is running

    def start(self) -> None:
        self._thread.start()

    def submit(self, job: Callable[[], Any], *, force: bool = False) -> Future[Any]:
        """Queue `job`; its Future holds the result or the exception. QueueFull when
        `max_waiting` jobs are already waiting (unless `force`, for the server's own jobs)."""
        if self._stopping:
            raise QueueFull("the server is shutting down")
        counted = not force
        if counted and not self._slots.acquire(blocking=False):
            raise QueueFull(f"{self._max_waiting} requests are already waiting")
        future: Future[Any] = Future()
        self._queue.put((job, future, counted))
        return future

    @property
    def waiting(self) -> int:
        return self._queue.qsize()

    def stop(self, timeout: float | None = None) -> None:
        """Run what is queued, then end the thread."""
        self._stopping = True
        self._queue.put(None)
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            job, future, counted = item
            if counted:
                self._slots.release()
            if not future.set_running_or_notify_cancel():
                continue  # its client left while it waited
            self.busy = True
            try:
                future.set_result(job())
            except BaseException as exc:  # the job's own failure, reported to its request
                future.set_exception(exc)
            finally:
                self.busy = False
