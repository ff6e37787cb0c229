"""Saved llama.cpp states of a prompt's first message (the system prompt), across processes.

Within a process llama.cpp keeps the KV cache of the previous prompt and evaluates only what
changed. A new process (every `local-agent ask`) would evaluate the system prompt again; with
a saved state it loads the KV cache of exactly those tokens instead. A state is keyed by the
exact tokens (the system prompt holds today's date and the conversation summary, so it changes
as they do), the model file (path, size, modification time) and everything that shapes the KV
cache: the llama.cpp build, context size, batch sizes, flash attention. Files are private
(they hold the system prompt, summary included), written atomically, and checked against their
checksum before llama.cpp reads them: a damaged, cut or foreign file is passed over and written
anew. The newest few are kept. They live in the data dir's `cache/llama-state/`, which the data
dir's rules know (memory/store/datadir.py, privacy.py) and `forget` empties (`delete_states`).
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import DataDirError, LocalAgentError
from ..process.files import atomic_write_bytes, read_own_file, refuse_symlink

log = logging.getLogger(__name__)

CACHE_DIR_NAME = "cache"  # in the data dir
STATE_DIR_NAME = "llama-state"  # in cache/
STATE_FILE = re.compile(r"[0-9a-f]{64}\.state")
STATE_TEMP = re.compile(r"\.[0-9a-f]{64}\.state\.[a-z0-9_]+\.tmp")  # files.atomic_write_stream
MAGIC = b"local-agent llama state 1\n"
KEEP = 8  # newest files kept
MIN_TOKENS = 16  # shorter prefixes cost less to evaluate than to load


def state_dir(data_dir: Path) -> Path:
    """Where the saved states of a data dir live."""
    return data_dir / CACHE_DIR_NAME / STATE_DIR_NAME


def is_state_file(path: Path) -> bool:
    """Named like a saved state or an atomic write of one (what `delete_states` deletes)."""
    return (STATE_FILE.fullmatch(path.name) or STATE_TEMP.fullmatch(path.name)) is not None


def delete_states(data_dir: Path) -> None:
    """Delete the saved states of `data_dir`, and cache/ when that empties it. Links are refused
    before anything is deleted; files local-agent did not make are left (with the folders)."""
    cache = data_dir / CACHE_DIR_NAME
    folder = cache / STATE_DIR_NAME
    for path in (cache, folder):
        refuse_symlink(path)
    if not folder.is_dir():
        return
    doomed = [path for path in folder.iterdir() if is_state_file(path)]
    for path in doomed:
        refuse_symlink(path)
    for path in doomed:
        path.unlink(missing_ok=True)
    for empty in (folder, cache):
        if not any(empty.iterdir()):
            empty.rmdir()


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
        path = self.path(tokens)
        try:
            data = read_own_file(path)  # not through a link, not waiting on a FIFO
        except (OSError, DataDirError):
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
        files = sorted(self.folder.glob("*.state"), key=_modified, reverse=True)
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
        read = lib.llama_state_set_data(llm.ctx, buffer, len(state)) if state else 0
        # Read whole, and the KV cache now holds exactly positions 0..len(tokens)-1.
        if read != len(state) or lib.llama_memory_seq_pos_max(lib.llama_get_memory(llm.ctx), 0) != len(tokens) - 1:
            lib.llama_memory_clear(lib.llama_get_memory(llm.ctx), True)
            llm.n_tokens = 0
            return False
        llm.input_ids[: len(tokens)] = tokens
        llm.n_tokens = len(tokens)
        with contextlib.suppress(OSError):
            os.utime(self.path(tokens))  # recently used: kept by _prune
        return True

    def save(self, lib: Any, llm: Any, tokens: Sequence[int]) -> None:
        """Save `llm`'s state, whose KV cache holds exactly `tokens`. A cache: when it cannot
        be written the answer does not change, so that is logged, never raised."""
        size = lib.llama_state_get_size(llm.ctx)
        buffer = (ctypes.c_uint8 * size)()
        written = lib.llama_state_get_data(llm.ctx, buffer, size)
        try:
            self.write(tokens, bytes(buffer)[:written])
        except (OSError, LocalAgentError) as exc:
            log.debug("could not save the llama.cpp state in %s: %s", self.folder, exc)


def _modified(path: Path) -> int:
    try:
        return path.stat().st_mtime_ns
    except OSError:  # deleted meanwhile (another process pruned it)
        return 0
