"""The page's import of past conversations as a job: progress, cancel, and chat answering
meanwhile.

The upload is read and parsed off the model's thread (conversations/chat_import.py, the code
`memory import-chats` uses). Storing it then runs on the model's thread a slice at a time:
each slice stores whole sessions for about STEP_S seconds (conversations/chat_history.py) and
queues the next slice behind whatever came in meanwhile, so a chat question waits for one
slice at most, not for the whole import. Cancelling stops before the next session; what was
stored stays, and importing the same file again adds only the rest.

One import runs at a time; the last one is kept so a reloaded page sees how it ended.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import LocalAgentError
from .worker import QueueFull

if TYPE_CHECKING:
    from ..conversations.chat_history import HistoryImport
    from ..conversations.chat_import import ChatImport, ImportedMessage, ImportProblem
    from .state import ServerState

log = logging.getLogger(__name__)
STEP_S = 0.25  # how long one slice may hold the model's thread (a digest may take longer: one session)
SHOWN_PROBLEMS = 5


class ImportBusy(Exception):
    """An import is already running."""


@dataclass
class ImportJob:
    """One import: what was read from the file, and how far storing it went. The messages are
    let go once planned (the plan holds those still to store), so a finished job keeps only
    its counts."""

    name: str
    messages: tuple[ImportedMessage, ...]
    format: str
    problems: tuple[ImportProblem, ...]
    digests: bool
    id: str = field(default_factory=lambda: f"import-{secrets.token_hex(6)}")
    state: str = "queued"  # queued, running, done, cancelled, failed
    started: float = field(default_factory=time.time)
    finished: float | None = None
    done_messages: int = 0
    error: str | None = None
    plan: HistoryImport | None = None
    cancel_asked: threading.Event = field(default_factory=threading.Event)
    messages_total: int = field(init=False)

    def __post_init__(self) -> None:
        self.messages_total = len(self.messages)

    @classmethod
    def of(cls, name: str, chats: ChatImport, *, digests: bool) -> ImportJob:
        return cls(name=name, messages=chats.messages, format=chats.format, problems=chats.problems, digests=digests)

    @property
    def running(self) -> bool:
        return self.state in ("queued", "running")

    def to_dict(self) -> dict[str, Any]:
        plan = self.plan
        counts = plan.counts if plan is not None else None
        skipped = counts.skipped_existing if counts else 0
        return {
            "object": "import", "id": self.id, "name": self.name, "format": self.format, "state": self.state,
            "digests": self.digests, "started": self.started, "finished": self.finished,
            "messages_total": self.messages_total, "messages_done": skipped + self.done_messages,
            "skipped_existing": skipped, "sessions_done": len(counts.sessions) if counts else 0,
            "sessions_total": len(counts.sessions) + len(plan.pending) if counts and plan else None,
            "turns": counts.turns if counts else 0, "facts": counts.facts if counts else 0,
            "digests_saved": counts.digests if counts else 0, "bad_lines": len(self.problems),
            "problems": [{"line": p.line, "message": p.message} for p in self.problems[:SHOWN_PROBLEMS]],
            "error": self.error,
        }


class Imports:
    """The server's import jobs: the running one, or the last one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.last: ImportJob | None = None

    def start(self, state: ServerState, name: str, chats: ChatImport, *, digests: bool) -> ImportJob:
        """Queue the first slice of a new import; ImportBusy while one runs."""
        with self._lock:
            if self.last is not None and self.last.running:
                raise ImportBusy(f"an import ({self.last.name}) is already running")
            job = ImportJob.of(name, chats, digests=digests)
            self.last = job
        try:
            state.worker.submit(lambda: _slice(state, job), force=True)
        except QueueFull:  # the server is shutting down
            _finish(job, "failed", "the server is shutting down")
            raise
        return job

    def get(self, ident: str) -> ImportJob | None:
        job = self.last
        return job if job is not None and job.id == ident else None


def _slice(state: ServerState, job: ImportJob) -> None:
    """Store sessions for up to STEP_S seconds, then queue the next slice (on the model's thread)."""
    if job.cancel_asked.is_set():
        _finish(job, "cancelled")
        return
    try:
        if job.plan is None:
            job.state = "running"
            job.plan = state.engine.plan_chat_import(job.messages, digests=job.digests)
            job.messages = ()  # the plan holds what is left to store
        deadline = time.perf_counter() + STEP_S
        while not job.plan.done and not job.cancel_asked.is_set():
            job.done_messages += job.plan.step()
            if time.perf_counter() > deadline:
                break
    except Exception as exc:  # reported on the job, as the CLI would print it
        if not isinstance(exc, LocalAgentError):
            log.error("import failed: %s", type(exc).__name__, exc_info=log.isEnabledFor(logging.DEBUG))
        _finish(job, "failed", " ".join(str(exc).split()) or type(exc).__name__)
        return
    if job.cancel_asked.is_set():
        _finish(job, "cancelled")
    elif job.plan.done:
        _finish(job, "done")
    else:
        try:
            state.worker.submit(lambda: _slice(state, job), force=True)
        except Exception:  # the server is shutting down: what was stored stays
            _finish(job, "cancelled", "the server stopped; import the file again to add the rest")


def _finish(job: ImportJob, outcome: str, error: str | None = None) -> None:
    job.state, job.error, job.finished = outcome, error, time.time()
