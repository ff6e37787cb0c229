"""How `ask` finds a warm server, and when it may use it.

A running server listens on a Unix socket in the data dir, `<data_dir>/server.sock` (the data
dir is 0700, so only its owner can connect; the socket holds no message text). A data dir
whose path is too long for a socket address (about 100 bytes) gets its socket in a private
folder instead, `<tmp>/local-agent-<uid>/<hash of the data dir>.sock`, which must be 0700 and
ours. `LOCAL_AGENT_SERVER=URL` names a server explicitly (TCP; the API key comes from
LOCAL_AGENT_API_KEY).

`ask` uses a server only when the settings that decide what gets loaded match: see
`load_identity`. The settings of one call travel with the request (`CALL_SETTINGS`).
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from ..config import Settings

SOCKET_NAME = "server.sock"
SERVER_ENV = "LOCAL_AGENT_SERVER"
MAX_SOCKET_PATH = 100  # sun_path holds 108 bytes on Linux, 104 on macOS
ASK_PATH = "/v1/local-agent/ask"
# What one `ask` may set per call; everything else must match the server (load_identity).
CALL_SETTINGS = ("max_tokens", "temperature", "top_p", "repeat_penalty", "seed", "recall_k",
                 "memory_tokens", "summary_after_turns", "keep_recent_turns", "incognito")


def load_identity(settings: Settings) -> dict[str, Any]:
    """The settings that decide what a process loads: a server answers an `ask` only when
    these are the same for both."""
    return {
        "model": settings.model,
        "distill_model": settings.distill_model,
        "backend": settings.backend,
        "device": settings.device,
        "ctx_size": settings.ctx_size,
        "data_dir": str(Path(settings.data_dir).expanduser().resolve()),
        "models_dir": str(Path(settings.models_dir).expanduser().resolve()),
    }


def call_settings(settings: Settings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in CALL_SETTINGS}


def mismatch(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """The load-time settings that differ (names only)."""
    return sorted(name for name in actual if expected.get(name) != actual[name])


def socket_path(data_dir: Path) -> Path:
    """Where the server for `data_dir` listens (see the module docstring)."""
    resolved = Path(data_dir).expanduser().resolve()
    path = resolved / SOCKET_NAME
    if len(os.fsencode(str(path))) <= MAX_SOCKET_PATH:
        return path
    digest = hashlib.sha256(os.fsencode(str(resolved))).hexdigest()[:16]
    return private_socket_dir() / f"{digest}.sock"


def private_socket_dir() -> Path:
    return Path(tempfile.gettempdir()) / f"local-agent-{os.getuid()}"


def safe_socket_dir(folder: Path) -> bool:
    """The folder is a real directory, ours, and closed to everyone else."""
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and stat.S_IMODE(info.st_mode) & 0o077 == 0


def is_socket(path: Path) -> bool:
    try:
        return stat.S_ISSOCK(os.lstat(path).st_mode)
    except OSError:
        return False
