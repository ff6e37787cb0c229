"""Memory namespaces: `X-Local-Agent-User` (or the body's `user`) picks one.

The default namespace (no name given) is the local user's own memory: the data dir itself,
the one the CLI uses. A named namespace is a data dir of its own, `<data_dir>/users/<name>/`,
with its own memory store, made on first use (0700, like the data dir). Namespaces keep
people's memories apart; they are not access control: whoever can call the server can name
any namespace. `local-agent --data-dir <data_dir>/users/<name> memory list` reads one.
"""

from __future__ import annotations

import re
from pathlib import Path

from .errors import APIError

USERS_DIR = "users"
NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
USER_HEADER = "x-local-agent-user"
MEMORY_HEADER = "x-local-agent-memory"
_ON, _OFF = {"on", "true", "1", "yes"}, {"off", "false", "0", "no"}


def select_namespace(header: str | None, body_user: str | None) -> str | None:
    """The namespace a request names (the header wins over the body), None for the default.
    APIError 400 for a name outside [A-Za-z0-9_-]{1,64}."""
    name = header if header is not None else body_user
    if name is None:
        return None
    if not NAME.fullmatch(name):
        source = "X-Local-Agent-User" if header is not None else "user"
        raise APIError(400, f"{source}: a namespace name is 1-64 of A-Z, a-z, 0-9, _ and -",
                       code="invalid_namespace", param=source)
    return name


def memory_enabled(header: str | None, body_flag: bool | None) -> bool:
    """False when the body says `"memory": false` or the header says off."""
    if header is not None:
        value = header.strip().lower()
        if value not in _ON | _OFF:
            raise APIError(400, "X-Local-Agent-Memory: use on or off", code="invalid_memory_flag",
                           param="X-Local-Agent-Memory")
        if value in _OFF:
            return False
    return body_flag is not False


def namespace_dir(data_dir: Path, name: str | None) -> Path:
    """Where a namespace's data lives: the data dir itself for the default."""
    return Path(data_dir) if name is None else Path(data_dir) / USERS_DIR / name
