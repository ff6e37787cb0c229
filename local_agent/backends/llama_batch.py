"""A llama.cpp context that holds several sequences, and the batch it decodes: the native part
of batched decoding (llama_engine.py schedules the sequences, llama_parallel.py is the backend).

`Llama()` builds its context with one sequence. This one is made with `llama_init_from_model` on
the same loaded model, with `slots` sequences. By default each sequence has a KV stream of its
own, `window` cells long (n_ctx = window x slots), so each keeps the whole window and attends
over its own cells only: decode costs what it would alone. With `unified`, the sequences share
one buffer of that size (a shared prefix is then held once, but every token attends over every
sequence's cells).

llama.cpp splits a batch over separate streams into micro-batches of consecutive sequence ids
(llama_batch_allocr::split_equal): sequences 0, 1, 3 decode in two passes, 0-1 and 3. The
scheduler keeps busy sequences on low ids for that reason.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import BackendError


@dataclass
class Feed:
    """Tokens of one sequence for the next decode: `tokens` at positions `start`, start + 1, ...
    and whether the last one's logits are wanted (then `row` is its index in the batch)."""

    seq: int
    tokens: Sequence[int]
    start: int
    logits: bool
    row: int = -1


class BatchContext:
    """One llama.cpp context of `slots` sequences over `model`, and a batch of up to `batch`
    tokens. Close it (or use it as a context manager) to free both."""

    def __init__(self, lib: Any, model: Any, base_params: Any, *, slots: int, window: int, batch: int,
                 ubatch: int, threads: int, unified: bool = False) -> None:
        self._lib = lib
        params = type(base_params).from_buffer_copy(base_params)  # the Llama's own settings otherwise
        params.n_ctx = window * slots
        params.n_seq_max = slots
        params.n_batch = batch
        params.n_ubatch = ubatch
        params.n_threads = params.n_threads_batch = threads
        params.kv_unified = unified
        self.ctx = lib.llama_init_from_model(model, params)
        if not self.ctx:
            raise BackendError(f"llama.cpp could not make a context of {slots} sequences x {window} tokens")
        self.slots, self.window, self.capacity, self.unified = slots, window, batch, unified
        self._batch = lib.llama_batch_init(batch, 0, 1)
        self._memory = lib.llama_get_memory(self.ctx)
        self._token = np.ctypeslib.as_array(self._batch.token, shape=(batch,))
        self._pos = np.ctypeslib.as_array(self._batch.pos, shape=(batch,))
        self._logits = np.ctypeslib.as_array(self._batch.logits, shape=(batch,))
        np.ctypeslib.as_array(self._batch.n_seq_id, shape=(batch,))[:] = 1
        self._seq_ids = [self._batch.seq_id[i] for i in range(batch)]  # each token's one sequence id
        self.n_vocab = lib.llama_vocab_n_tokens(lib.llama_model_get_vocab(model))

    # -- decoding ---------------------------------------------------------------------------
    def decode(self, feeds: list[Feed]) -> None:
        """Evaluate every feed in one llama_decode call; each feed that wants logits gets its
        `row`, for `logits(row)` and llama_sampler_sample."""
        count = 0
        for feed in feeds:
            size = len(feed.tokens)
            end = count + size
            if end > self.capacity:
                raise BackendError(f"a batch of over {self.capacity} tokens")
            self._token[count:end] = feed.tokens
            self._pos[count:end] = np.arange(feed.start, feed.start + size, dtype=np.int32)
            self._logits[count:end] = 0
            for index in range(count, end):
                self._seq_ids[index][0] = feed.seq
            if feed.logits:
                self._logits[end - 1] = 1
                feed.row = end - 1
            count = end
        self._batch.n_tokens = count
        status = self._lib.llama_decode(self.ctx, self._batch)
        if status != 0:
            raise BackendError(f"llama.cpp could not decode the batch (llama_decode returned {status})")

    def logits(self, row: int) -> np.ndarray:
        """The logits of the batch's token `row` from the last decode (a view: copy to keep)."""
        pointer = self._lib.llama_get_logits_ith(self.ctx, row)
        return np.ctypeslib.as_array(pointer, shape=(self.n_vocab,))

    def set_threads(self, decode: int, prompt: int) -> None:
        self._lib.llama_set_n_threads(self.ctx, decode, prompt)

    # -- the KV cache of each sequence ------------------------------------------------------
    def keep(self, seq: int, length: int) -> None:
        """Keep the first `length` positions of `seq`, drop the rest (0: empty it)."""
        self._lib.llama_memory_seq_rm(self._memory, seq, length, -1)

    def copy_prefix(self, source: int, target: int, length: int) -> None:
        """Make `target` hold the first `length` positions of `source` (whatever it held is
        dropped). Between streams llama.cpp copies the whole buffer at the next decode, then
        the rest is dropped; in one buffer the cells are shared, nothing is copied."""
        self.keep(target, 0)
        if self.unified:
            self._lib.llama_memory_seq_cp(self._memory, source, target, 0, length)
        else:
            self._lib.llama_memory_seq_cp(self._memory, source, target, -1, -1)
            self.keep(target, length)

    def last_position(self, seq: int) -> int:
        """The highest position `seq` holds (-1 when empty)."""
        return int(self._lib.llama_memory_seq_pos_max(self._memory, seq))

    def save_sequence(self, seq: int) -> bytes:
        """The KV cache of `seq` as llama.cpp serializes one sequence."""
        size = self._lib.llama_state_seq_get_size(self.ctx, seq)
        buffer = (ctypes.c_uint8 * size)()
        written = self._lib.llama_state_seq_get_data(self.ctx, buffer, size, seq)
        return bytes(buffer)[:written]

    def load_sequence(self, seq: int, state: bytes, length: int) -> bool:
        """Load a sequence's saved KV cache into `seq` (emptied first); False, and `seq` left
        empty, when llama.cpp refuses it or it does not hold exactly `length` positions."""
        self.keep(seq, 0)
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        read = self._lib.llama_state_seq_set_data(self.ctx, buffer, len(state), seq) if state else 0
        if read != len(state) or self.last_position(seq) != length - 1:
            self.keep(seq, 0)
            return False
        return True

    # -- lifecycle --------------------------------------------------------------------------
    def close(self) -> None:
        """Free the batch and the context. Safe to call twice."""
        ctx, self.ctx = self.ctx, None
        if ctx:
            self._lib.llama_batch_free(self._batch)
            self._lib.llama_free(ctx)

    def __enter__(self) -> BatchContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
