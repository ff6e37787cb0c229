"""Saved llama.cpp states of a prompt's first message (the system prompt), across processes.

Within a process llama.cpp keeps the KV cache of the previous prompt and evaluates only what
changed. A new process (every `local-agent ask`) would evaluate the system prompt again; with
a saved state it loads the KV cache of exactly those tokens instead. A state is keyed by the
exact tokens (the system prompt holds today's date and the conversation summary, so it changes
as they do), the model file (path, size, modification time) and everything that shapes the KV
cache: the llama.cpp build, context size, batch sizes, flash attention. Files are private
(they hold the system prompt, summary included) and checked against their checksum before
llama.cpp reads them; the newest few are kept.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..files import atomic_write_bytes

MAGIC = b"local-agent llama state 1\n"
KEEP = 8  # newest files kept
MIN_TOKENS = 16  # shorter prefixes cost less to evaluate than to load


def model_identity(path: Path) -> str:
    """The model file as it is now: a changed or replaced file gets another identity."""
    status = path.stat()
    return f"{path.resolve()}:{status.st_size}:{status.st_mtime_ns}"


class PrefixStates:
    """States of token prefixes in `folder`, for one model and one context configuration."""

    def __init__(self, folder: Path, identity: dict[str, Any]) -> None:
        self.folder = folder
        self._identity = json.dumps(identity, sort_keys=True)

    def key(self, tokens: Sequence[int]) -> str:
        payload = json.dumps({"identity": self._identity, "tokens": list(tokens)})
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def path(self, tokens: Sequence[int]) -> Path:
        return self.folder / f"{self.key(tokens)}.state"

    def read(self, tokens: Sequence[int]) -> bytes | None:
        """The saved state of exactly `tokens`, or None (none saved, or a damaged file)."""
        try:
            data = self.path(tokens).read_bytes()
        except OSError:
            return None
        header = MAGIC + self.key(tokens).encode() + b"\n"
        if not data.startswith(header) or len(data) < len(header) + 65:
            return None
        digest, state = data[len(header): len(header) + 64], data[len(header) + 65:]
        return state if hashlib.sha256(state).hexdigest().encode() == digest else None

    def write(self, tokens: Sequence[int], state: bytes) -> None:
        header = MAGIC + self.key(tokens).encode() + b"\n" + hashlib.sha256(state).hexdigest().encode() + b"\n"
        atomic_write_bytes(self.path(tokens), header + state)
        self._prune()

    def _prune(self) -> None:
        files = sorted(self.folder.glob("*.state"), key=lambda file: file.stat().st_mtime_ns, reverse=True)
        for old in files[KEEP:]:
            old.unlink(missing_ok=True)

    # -- a llama-cpp-python Llama -------------------------------------------------------------
    def restore(self, lib: Any, llm: Any, tokens: Sequence[int]) -> bool:
        """Load the state of `tokens` into `llm`'s empty context; False when there is none
        or llama.cpp refuses it (the context is then emptied again)."""
        state = self.read(tokens)
        if state is None:
            return False
        buffer = (ctypes.c_uint8 * len(state)).from_buffer_copy(state)
        if lib.llama_state_set_data(llm.ctx, buffer, len(state)) != len(state):
            llm.n_tokens = 0  # the next evaluation clears the KV cache from here
            return False
        llm.input_ids[: len(tokens)] = tokens
        llm.n_tokens = len(tokens)
        os.utime(self.path(tokens))  # recently used: kept by _prune
        return True

    def save(self, lib: Any, llm: Any, tokens: Sequence[int]) -> None:
        """Save `llm`'s state, whose KV cache holds exactly `tokens`."""
        size = lib.llama_state_get_size(llm.ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = lib.llama_state_get_data(llm.ctx, buffer, size)
        self.write(tokens, bytes(buffer)[:written])
