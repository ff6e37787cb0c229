"""Continuous batching: the generations of many callers decoded together on one thread.

Callers (the server's requests, batch sessions, each on a thread of its own) put a `Request`
to the engine and read its events. The engine's thread runs steps; a step is one llama_decode
call holding, for each sequence, what it has to evaluate next:
- a sequence that is answering gives its last token (with a JSON grammar, also the text the
  grammar forces after it), and gets the next one from the logits;
- a sequence reading its prompt gives the next chunk of it, at most `chunk` tokens a step for
  all such sequences together, so the others wait at most one chunk between their tokens.
A request joins between steps, as soon as a slot is free, and leaves when it is done or its
caller has gone.

Each slot is one llama.cpp sequence and keeps its KV cache after its request ends. A new request
takes the free slot whose cache shares the longest prefix with its prompt; when another slot,
busy or not, shares a longer one (the system prompt every request starts with), that prefix is
copied over instead of evaluated again. Among equal choices the lowest slot wins, which keeps
busy sequences on consecutive ids (llama_batch.py says why that matters).

The design follows llama.cpp's own server (tools/server: slots, a prompt cache found by the
longest common prefix, prompts read in batches of n_batch); it is written here for this
package's needs: one thread, per-sequence samplers of llama_sequence.py, and work of other
models (the memory's embedder) run on the same thread between steps, so that one OpenMP thread
team runs every model (process/background.py says why a second team slows decode down).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..errors import BackendError
from .llama_batch import BatchContext, Feed
from .llama_sequence import Request, Sequence, Vocabulary
from .llama_state import MIN_TOKENS, PrefixStates

log = logging.getLogger(__name__)
T = TypeVar("T")
PROMPT_CHUNK = 128  # prompt tokens a step, for all sequences reading their prompt together
MIN_COPY = 16  # a shorter prefix is evaluated rather than copied from another slot


@dataclass(frozen=True)
class StepRecord:
    """One step: the sequences in it, the tokens they wrote, the prompt tokens read, and its
    wall time (from the top of the engine's loop to the last token picked)."""

    sequences: int
    written: int
    prompt_tokens: int
    seconds: float


@dataclass
class EngineStats:
    """What the engine has done so far (tests and benchmarks read it)."""

    steps: int = 0  # llama_decode calls
    prompt_tokens: int = 0  # prompt tokens evaluated
    reused_tokens: int = 0  # prompt tokens a slot's own cache already held
    copied_tokens: int = 0  # prompt tokens copied from another slot's cache
    loaded_tokens: int = 0  # prompt tokens loaded from a saved state
    most_prompt_tokens_in_a_step: int = 0
    log: list[StepRecord] | None = None  # each step's record, when a list is put here


@dataclass
class Slot:
    """One sequence id: what its KV cache holds, and the request using it (None: free)."""

    seq: int
    cached: list[int] = field(default_factory=list)
    sequence: Sequence | None = None


def shared_prefix(one: list[int], two: list[int]) -> int:
    """How many leading tokens `one` and `two` share."""
    for index, (a, b) in enumerate(zip(one, two)):
        if a != b:
            return index
    return min(len(one), len(two))


class BatchEngine:
    """The thread, the slots and the queue of waiting requests. `fit_threads` (called before
    each step) may change the context's threads; `states` are saved system-prompt states, tried
    for the first request as the single-sequence backend does; `single_batch` is that backend's
    batch size (llama_sequence.chunk_size says why it matters)."""

    def __init__(self, ctx: BatchContext, vocab: Vocabulary, *, chunk: int = PROMPT_CHUNK, single_batch: int = 512,
                 fit_threads: Callable[[BatchContext], None] | None = None,
                 states: PrefixStates | None = None) -> None:
        self.ctx, self.vocab, self.chunk, self.single_batch = ctx, vocab, chunk, single_batch
        self._fit_threads = fit_threads
        self._states = states
        self._slots = [Slot(seq) for seq in range(ctx.slots)]
        self._waiting: deque[Request] = deque()
        self._jobs: deque[tuple[Callable[[], Any], Future[Any]]] = deque()
        self._reading: list[Sequence] = []  # sequences still reading their prompt, first come first
        self._save_later: tuple[PrefixStates, list[int], Sequence] | None = None  # a state to save, once read
        self._changed = threading.Condition()
        self._closed = False
        self.stats = EngineStats()
        self._thread = threading.Thread(target=self._run, name="local-agent-batch", daemon=True)
        self._thread.start()

    # -- what callers use (any thread) -------------------------------------------------------
    def submit(self, request: Request) -> None:
        with self._changed:
            if self._closed:
                raise BackendError("the model has been closed")
            self._waiting.append(request)
            self._changed.notify()

    def call(self, job: Callable[[], T]) -> T:
        """Run `job` on the engine's thread between two steps and return what it returns."""
        if threading.current_thread() is self._thread:
            return job()
        future: Future[T] = Future()
        with self._changed:
            if self._closed:
                raise BackendError("the model has been closed")
            self._jobs.append((job, future))
            self._changed.notify()
        return future.result()

    @property
    def busy(self) -> int:
        """Sequences being decoded now."""
        return sum(slot.sequence is not None for slot in self._slots)

    def close(self) -> None:
        """Stop: waiting and running requests end with an error. Safe to call twice."""
        with self._changed:
            self._closed = True
            self._changed.notify()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join()
        self.ctx.close()

    # -- the engine's thread -----------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._changed:
                while not (self._closed or self._jobs or self._waiting or self.busy):
                    self._changed.wait()
                began = time.perf_counter()
                if self._closed:
                    break
                jobs = list(self._jobs)
                self._jobs.clear()
                admitted = [self._waiting.popleft() for _ in range(min(len(self._waiting), self._free()))]
            for job, future in jobs:
                _run_job(job, future)
            for request in admitted:
                try:
                    self._admit(request)
                except Exception as exc:  # this request fails; the others go on
                    log.exception("the batch engine could not take a request")
                    request.events.put(("error", exc))
            try:
                self._leave_cancelled()
                if self.busy:
                    self._step(began)
            except Exception as exc:  # a fault of the engine's own: its requests fail, later ones go on
                log.exception("the batch engine failed a step")
                self._fail_all(exc)
        self._shut_down()

    def _free(self) -> int:
        return sum(slot.sequence is None for slot in self._slots)

    def _admit(self, request: Request) -> None:
        """Give `request` the best free slot, with what its cache can offer of the prompt."""
        if request.cancelled.is_set():
            request.events.put(("done", "stop", 0))
            return
        target = max((slot for slot in self._slots if slot.sequence is None),
                     key=lambda slot: (self._usable(slot, request.tokens), -slot.seq))
        kept, save = self._saved_state(request, target, self._reuse(target, request.tokens))
        target.cached = request.tokens[:kept]
        try:
            sequence = Sequence(request, target.seq, kept, self.vocab, self.single_batch)
        except Exception as exc:  # a grammar llama.cpp refuses: this request fails, not the engine
            request.events.put(("error", exc))
            return
        target.sequence = sequence
        if save is not None:
            self._save_later = (*save, sequence)
        if sequence.done:  # the grammar's forced text finished it before any decode
            self._leave(target)
        else:
            self._reading.append(sequence)

    @staticmethod
    def _usable(slot: Slot, tokens: list[int]) -> int:
        """Leading prompt tokens the slot's cache holds (the last is always evaluated, for its logits)."""
        return min(shared_prefix(slot.cached, tokens), len(tokens) - 1)

    def _reuse(self, target: Slot, tokens: list[int]) -> int:
        """Keep the prefix `target` shares with `tokens`, or copy a longer one from another slot;
        returns the positions `target` now holds."""
        kept = self._usable(target, tokens)
        source = max((slot for slot in self._slots if slot is not target),
                     key=lambda slot: self._usable(slot, tokens), default=None)
        copied = self._usable(source, tokens) if source is not None else 0
        if source is not None and copied >= kept + MIN_COPY:
            self.ctx.copy_prefix(source.seq, target.seq, copied)
            self.stats.copied_tokens += copied
            return copied
        self.ctx.keep(target.seq, kept)
        self.stats.reused_tokens += kept
        return kept

    def _saved_state(self, request: Request, slot: Slot,
                     kept: int) -> tuple[int, tuple[PrefixStates, list[int]] | None]:
        """For the engine's first request only (as the single-sequence backend, once per
        process): load the saved state of its system prompt when no cache holds it, or say
        to save it once read. Returns the positions the slot now holds, and what to save."""
        states, self._states = self._states, None
        prefix = request.tokens[: request.state_prefix]
        if states is None or len(prefix) < MIN_TOKENS or kept >= len(prefix):
            return kept, None
        state = states.read(prefix)
        if state is not None and self.ctx.load_sequence(slot.seq, state, len(prefix)):
            self.stats.loaded_tokens += len(prefix)
            return len(prefix), None
        self.ctx.keep(slot.seq, kept)
        return kept, (states, prefix)

    def _step(self, began: float) -> None:
        """One step: every answering sequence's pending tokens, then prompt chunks.

        Lone tokens (each answering sequence's last) go in one llama_decode; every feed of two
        or more tokens (a prompt chunk, a token with the text a grammar forces after it) in one
        of its own. llama.cpp would split a mixed batch anyway (one token of every sequence in a
        micro-batch, then the rest), and a prompt token split off alone is computed with the
        one-token attention kernel, which sums in another order than the kernel the single
        backend reads prompts with: greedy answers would then depend on the batch."""
        if self._fit_threads is not None:
            self._fit_threads(self.ctx)
        feeds = self._feeds()
        prompt = sum(len(feed.tokens) for seq, feed in feeds if seq in self._reading)
        self.stats.prompt_tokens += prompt
        self.stats.most_prompt_tokens_in_a_step = max(self.stats.most_prompt_tokens_in_a_step, prompt)
        lone = sorted((pair for pair in feeds if len(pair[1].tokens) == 1), key=lambda pair: pair[1].seq)
        calls = ([lone] if lone else []) + [[pair] for pair in feeds if len(pair[1].tokens) > 1]
        written = sum(seq.generated for seq, _ in feeds)
        for call in calls:
            try:
                self.ctx.decode([feed for _, feed in call])
            except BackendError as exc:
                self._fail_all(exc)
                return
            self.stats.steps += 1
            for seq, feed in call:  # before the next decode, which replaces the logits
                self._after_decode(seq, feed)
        if self.stats.log is not None:
            written = sum(seq.generated for seq, _ in feeds) - written
            self.stats.log.append(StepRecord(len(feeds), written, prompt, time.perf_counter() - began))

    def _feeds(self) -> list[tuple[Sequence, Feed]]:
        """What each sequence evaluates this step: answering ones all they have pending, those
        reading a prompt (first come first) up to `chunk` tokens together."""
        running = [slot.sequence for slot in self._slots if slot.sequence is not None]
        feeds = [(seq, seq.feed(min(seq.pending, self.ctx.capacity))) for seq in running if seq not in self._reading]
        room = self.chunk
        for seq in list(self._reading):
            if room <= 0:
                break
            feeds.append((seq, seq.feed(self._prompt_room(seq, room))))
            room -= len(feeds[-1][1].tokens)
        return [(seq, feed) for seq, feed in feeds if feed.tokens]

    def _prompt_room(self, seq: Sequence, room: int) -> int:
        """A chunk stops where a system prompt whose state is to be saved ends."""
        if self._save_later is not None and self._save_later[2] is seq and seq.past < len(self._save_later[1]):
            return min(room, max(len(self._save_later[1]) - seq.past, 2))
        return room

    def _after_decode(self, seq: Sequence, feed: Feed) -> None:
        slot = self._slots[seq.slot]
        slot.cached = seq.context[: seq.past]
        if self._save_later is not None and self._save_later[2] is seq and seq.past == len(self._save_later[1]):
            self._save_state(seq.slot)
            seq.begin_evaluation()  # the single backend reads the rest in an evaluation of its own
        if not feed.logits:
            return
        if seq in self._reading:
            self._reading.remove(seq)
        try:
            seq.advance(self.ctx.ctx, self.ctx, feed.row)
        except Exception as exc:  # the grammar allows nothing: this request fails
            seq.request.events.put(("error", exc))
            self._release(slot)
            return
        if seq.done:
            self._leave(slot)

    def _save_state(self, seq: int) -> None:
        assert self._save_later is not None
        states, prefix, _ = self._save_later
        self._save_later = None
        try:
            states.write(prefix, self.ctx.save_sequence(seq))
        except Exception as exc:  # a cache: the answer does not change
            log.debug("could not save the llama.cpp sequence state in %s: %s", states.folder, exc)

    def _leave_cancelled(self) -> None:
        for slot in self._slots:
            if slot.sequence is not None and slot.sequence.request.cancelled.is_set():
                slot.sequence.finish_reason = slot.sequence.finish_reason or "stop"
                self._leave(slot)

    def _leave(self, slot: Slot) -> None:
        """The slot's request is done: tell its caller, free the slot (its cache stays)."""
        seq = slot.sequence
        assert seq is not None
        seq.request.events.put(("done", seq.finish_reason, seq.completion_tokens()))
        self._release(slot)

    def _release(self, slot: Slot) -> None:
        seq, slot.sequence = slot.sequence, None
        if seq is None:
            return
        if seq in self._reading:
            self._reading.remove(seq)
        if self._save_later is not None and self._save_later[2] is seq:
            self._save_later = None
        slot.cached = seq.context[: seq.past]
        seq.close()

    def _fail_all(self, exc: Exception) -> None:
        """A decode failed: every running request ends with the error, every cache is emptied."""
        for slot in self._slots:
            if slot.sequence is not None:
                slot.sequence.request.events.put(("error", exc))
                self._release(slot)
            slot.cached = []
            self.ctx.keep(slot.seq, 0)

    def _shut_down(self) -> None:
        closed = BackendError("the model has been closed")
        with self._changed:
            waiting, jobs = list(self._waiting), list(self._jobs)
            self._waiting.clear()
            self._jobs.clear()
        for request in waiting:
            request.events.put(("error", closed))
        for _, future in jobs:
            with contextlib.suppress(Exception):
                future.set_exception(closed)
        for slot in self._slots:
            if slot.sequence is not None:
                slot.sequence.request.events.put(("error", closed))
                self._release(slot)


def _run_job(job: Callable[[], Any], future: Future[Any]) -> None:
    if not future.set_running_or_notify_cancel():
        return
    try:
        future.set_result(job())
    except BaseException as exc:  # handed to the caller waiting on it
        future.set_exception(exc)
