"""The model's threads: jobs start in the order they came, from a bounded queue.

Everything that touches the model, the embedder or a memory store runs on these threads. With
one thread (the default until the model is loaded, and always for a model that takes one call
at a time) jobs run one after another, and a turn's memory work (part of its job) is done
before the next job starts. `serve --parallel N` gives a model that decodes several
conversations at once N threads (`widen`): N requests are answered together, and the engine
keeps each memory namespace's work in order (engine.py). A full queue refuses at once (the
route answers 429); a job whose client left before it started is skipped. An `exclusive` job
(forgetting everything, which closes every namespace's store) runs alone: it starts once the
jobs under way have ended, and the jobs after it wait until it is done.
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
        self._queue: queue.Queue[tuple[Callable[[], Any], Future[Any], bool, bool] | None] = queue.Queue()
        self._max_waiting = max_waiting
        self._slots = threading.Semaphore(max_waiting)  # one per waiting job
        self._threads = [self._thread(0)]
        self._stopping = False
        self._running = 0  # jobs running now
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # a job started or ended
        self._alone = 0  # exclusive jobs running or waiting for the others to end

    def _thread(self, number: int) -> threading.Thread:
        return threading.Thread(target=self._run, name=f"local-agent-model-{number}", daemon=True)

    def start(self) -> None:
        self._threads[0].start()

    def widen(self, threads: int) -> None:
        """Run up to `threads` jobs at once from now on."""
        with self._lock:
            while len(self._threads) < threads and not self._stopping:
                self._threads.append(self._thread(len(self._threads)))
                self._threads[-1].start()

    @property
    def threads(self) -> int:
        return len(self._threads)

    def submit(self, job: Callable[[], Any], *, force: bool = False, exclusive: bool = False) -> Future[Any]:
        """Queue `job`; its Future holds the result or the exception. QueueFull when
        `max_waiting` jobs are already waiting (unless `force`, for the server's own jobs)."""
        if self._stopping:
            raise QueueFull("the server is shutting down")
        counted = not force
        if counted and not self._slots.acquire(blocking=False):
            raise QueueFull(f"{self._max_waiting} requests are already waiting")
        future: Future[Any] = Future()
        self._queue.put((job, future, counted, exclusive))
        return future

    @property
    def waiting(self) -> int:
        return self._queue.qsize()

    @property
    def busy(self) -> bool:
        """Whether a job is running."""
        return self._running > 0

    @property
    def running(self) -> int:
        return self._running

    def stop(self, timeout: float | None = None) -> None:
        """Run what is queued, then end the threads."""
        with self._lock:
            self._stopping = True
            threads = list(self._threads)
        for _ in threads:
            self._queue.put(None)
        for thread in threads:
            if thread.is_alive():
                thread.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            job, future, counted, exclusive = item
            if counted:
                self._slots.release()
            if not future.set_running_or_notify_cancel():
                continue  # its client left while it waited
            self._enter(exclusive)
            try:
                future.set_result(job())
            except BaseException as exc:  # the job's own failure, reported to its request
                future.set_exception(exc)
            finally:
                self._leave(exclusive)

    def _enter(self, exclusive: bool) -> None:
        """Wait until the job may run: an exclusive one until no other runs, any other until
        no exclusive one runs or waits."""
        with self._changed:
            if exclusive:
                self._alone += 1
                self._changed.wait_for(lambda: self._running == 0)
            else:
                self._changed.wait_for(lambda: self._alone == 0)
            self._running += 1

    def _leave(self, exclusive: bool) -> None:
        with self._changed:
            self._running -= 1
            if exclusive:
                self._alone -= 1
            self._changed.notify_all()
