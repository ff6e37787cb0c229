"""Work done after a turn (storing and distilling it, reading the dialogue ahead): jobs run one
after another on a thread that ends as soon as no job is left.

Not a ThreadPoolExecutor, whose thread stays alive between jobs: llama.cpp's OpenMP keeps a
thread team for every thread that has run a computation, and with the worker's team alive beside
the main thread's, libgomp counts more threads than cores and throttles how long its threads
wait for work. Decode on the main thread then ran at about a third of its speed (31 against 90
tokens/s on 2 cores). A thread that ends takes its team with it, and the thread that hands
work over lets its own team go (omp_env.release_thread_team): one team at a time.
"""

from __future__ import annotations

import functools
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from .omp_env import release_thread_team

T = TypeVar("T")


class Background:
    """Jobs in order, each on the same short-lived thread while any are queued."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._changed = threading.Condition()
        self._jobs: deque[tuple[Callable[[], Any], Future[Any]]] = deque()
        self._thread: threading.Thread | None = None
        self._running = False
        self._closed = False

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        future: Future[T] = Future()
        release_thread_team()  # the caller's OpenMP team, so the job's runs unthrottled
        with self._changed:
            if self._closed:
                raise RuntimeError("cannot submit work after shutdown")
            self._jobs.append((functools.partial(fn, *args), future))
            if not self._running:
                self._running = True
                # Not a daemon: the interpreter waits for memory work before it exits.
                self._thread = threading.Thread(target=self._run, name=self._name)
                self._thread.start()
        return future

    def settle(self) -> None:
        """Wait until every job is done and the thread has ended (its OpenMP team with it)."""
        with self._changed:
            while self._running:
                self._changed.wait()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def shutdown(self) -> None:
        """Take no more jobs; wait for those queued."""
        with self._changed:
            self._closed = True
        self.settle()

    def _run(self) -> None:
        while True:
            with self._changed:
                if not self._jobs:
                    self._running = False
                    self._changed.notify_all()
                    return
                job, future = self._jobs.popleft()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(job())
                except BaseException as exc:  # handed to whoever waits on the future
                    future.set_exception(exc)
