"""The llama.cpp backend for several conversations at once: calls from any number of threads,
decoded together in one batch (continuous batching, llama_engine.py) on one loaded model.

`ParallelLlamaBackend` wraps a loaded `LlamaCppBackend`: prompts are rendered and tokenized
there, as for a single conversation, and the answers are written by the engine, each sequence
with its own settings, sampler, grammar and stop strings. Its greedy answers are the single
backend's, whatever else is in the batch (llama_engine.py says how; docs/performance.md has
the measurement).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ..types import GenerationSettings, Message
from .base import Backend, check_context
from .cpu_share import CoreShare, available_cores, fitting_threads
from .generation import Usage
from .llama_batch import BatchContext
from .llama_cpp import LlamaCppBackend
from .llama_engine import PROMPT_CHUNK, BatchEngine
from .llama_sequence import Request, Vocabulary
from .llama_state import PrefixStates, model_identity

T = TypeVar("T")


class ParallelLlamaBackend(Backend):
    """`slots` conversations decoded together; safe to call from several threads at once."""

    name = "llama-cpp"
    concurrent = True

    def __init__(self, base: LlamaCppBackend, slots: int, *, chunk: int = PROMPT_CHUNK,
                 unified: bool = False) -> None:
        super().__init__(base.model_name, base.context_size)
        import llama_cpp as lib  # loaded already: the wrapped backend runs on it

        self.base, self.slots = base, slots
        llm, batch = base.llama, base.batch_size
        ctx = BatchContext(lib, llm.model, llm.context_params, slots=slots, window=base.context_size,
                           batch=max(batch, slots), ubatch=batch, threads=base.threads, unified=unified)
        vocab = Vocabulary(lib, lib.llama_model_get_vocab(llm.model), base.piece, base.spelling, base.char_tokens,
                           llm.token_eos(), llm.n_vocab())
        self._share = CoreShare() if base.follows_load else None
        self._threads_now = base.threads
        states = self._states(lib, base, batch, slots, unified)
        self.engine = BatchEngine(ctx, vocab, chunk=chunk, single_batch=batch, fit_threads=self._fit_threads,
                                  states=states)

    @staticmethod
    def _states(lib: Any, base: LlamaCppBackend, batch: int, slots: int, unified: bool) -> PrefixStates | None:
        """Saved sequence states: another format than the single backend's whole-context
        states, so another identity."""
        folder = base.state_folder
        if folder is None:
            return None
        return PrefixStates(folder, {
            "model": model_identity(Path(base.llama.model_path)), "llama_cpp": lib.__version__,
            "build": lib.llama_print_system_info().decode("utf-8", "replace"), "n_ctx": base.context_size,
            "n_batch": batch, "n_ubatch": batch, "flash_attn": False, "device": base.device,
            "sequence_state": True, "slots": slots, "kv_unified": unified})

    # -- prompt and tokens: the wrapped backend's ----------------------------------------------
    def format_prompt(self, messages: Sequence[Message]) -> str:
        return self.base.format_prompt(messages)

    def count_tokens(self, text: str) -> int:
        return self.base.count_tokens(text)

    @property
    def special_tokens(self) -> list[str]:
        return self.base.special_tokens

    # -- generation --------------------------------------------------------------------------
    def _stream(self, messages: Sequence[Message], settings: GenerationSettings,
                json_schema: dict[str, Any] | None, usage: Usage) -> Iterator[str]:
        tokens = self.base.prompt_tokens(messages)
        usage.prompt_tokens = len(tokens)
        check_context(len(tokens), settings.max_tokens, self.context_size)
        constrained = json_schema is not None and settings.greedy and settings.repeat_penalty == 1.0 \
            and not settings.stop
        request = Request(tokens, settings, grammar=self.base.grammar(json_schema) if json_schema else None,
                          constrained=constrained, state_prefix=self.base.system_prefix(messages, tokens))
        self.engine.submit(request)
        parts: list[str] = []
        try:
            while True:
                event = request.events.get()
                if event[0] == "text":
                    parts.append(event[1])
                    yield event[1]
                elif event[0] == "done":
                    usage.finish_reason = event[1]
                    break
                else:
                    raise event[1]
        finally:
            request.cancelled.set()  # a caller that stopped early (or failed) frees its slot
        if constrained:
            usage.completion_tokens = event[2]
        else:  # counted as the single backend counts: the answer re-tokenized, plus the end of turn
            ended_on_eog = usage.finish_reason == "stop" and not settings.stop
            usage.completion_tokens = self.count_tokens("".join(parts)) + int(ended_on_eog)

    def score(self, messages: Sequence[Message], continuations: Sequence[str]) -> list[float]:
        """The wrapped backend's scores (its own context), computed on the model's thread
        between two decode steps."""
        return self.engine.call(lambda: self.base.score(messages, continuations))

    def call(self, job: Callable[[], T]) -> T:
        """Run `job` on the model's thread between two decode steps (other llama.cpp work, such
        as the memory's embedder: one OpenMP thread team then runs every model)."""
        return self.engine.call(job)

    def _fit_threads(self, ctx: BatchContext) -> None:
        """As the single backend does (LlamaCppBackend._fit_threads): decode with the cores
        other programs leave free."""
        others = self._share.others_busy() if self._share is not None else None
        if others is None:
            return
        threads = fitting_threads(self.base.threads, available_cores(), others)
        if threads != self._threads_now:
            ctx.set_threads(threads, self.base.threads)
            self._threads_now = threads

    # -- lifecycle ---------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {**self.base.describe(), "parallel": self.slots}

    def close(self) -> None:
        engine = getattr(self, "engine", None)
        if engine is not None:
            engine.close()
        self.base.close()


def parallel_backend(backend: Backend, slots: int) -> Backend:
    """`backend` serving `slots` conversations at once where its runtime can (llama.cpp);
    otherwise `backend` itself, one call at a time."""
    if slots <= 1 or not isinstance(backend, LlamaCppBackend):
        return backend
    try:
        return ParallelLlamaBackend(backend, slots)
    except BaseException:
        backend.close()
        raise
