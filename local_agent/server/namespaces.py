"""Memory namespaces: `X-Local-Agent-User` (or the body's `user`) picks one.

Every route that reads or writes memory picks it the same way (`select_namespace`): the header,
or the body's `user` where the route has a body; both are checked alike, and when both are
given they must name the same namespace. The warm ask (the CLI's own, always in the default
memory) refuses a namespace instead (`refuse_namespace`).

The default namespace (no name given) is the local user's own memory: the data dir itself,
the one the CLI uses. A named namespace is a data dir of its own, `<data_dir>/users/<name>/`,
with its own memory store, made on first use (0700, like the data dir). Namespaces keep
people's memories apart; they are not access control: whoever can call the server can name
any namespace. `local-agent --data-dir <data_dir>/users/<name> memory list` reads one;
`local-agent memory forget --all` forgets them all with the default one.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..memory.store.datadir import USERS_DIR_NAME as USERS_DIR
from .errors import APIError

NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
USER_HEADER = "x-local-agent-user"
HEADER_NAME = "X-Local-Agent-User"  # as errors name it
MEMORY_HEADER = "x-local-agent-memory"
_ON, _OFF = {"on", "true", "1", "yes"}, {"off", "false", "0", "no"}


def select_namespace(header: str | None, body_user: str | None) -> str | None:
    """The namespace a request names in the header or the body's `user`, None for the default.
    APIError 400 for a name outside [A-Za-z0-9_-]{1,64} in either, or for two different names."""
    named = {source: _checked(source, name) for source, name in ((HEADER_NAME, header), ("user", body_user))
             if name is not None}
    if len(set(named.values())) > 1:
        raise APIError(400, f"{HEADER_NAME} and user name different namespaces: give one, or the same in both",
                       code="invalid_namespace", param="user")
    return next(iter(named.values()), None)


def refuse_namespace(header: str | None, body_user: str | None) -> None:
    """APIError 400 when a request for the default memory only (the warm ask) names a namespace."""
    for source, name in ((HEADER_NAME, header), ("user", body_user)):
        if name is not None:
            raise APIError(400, f"{source}: the warm ask answers in the server's own memory only; "
                           "use /v1/chat/completions for a namespace", code="invalid_namespace", param=source)


def _checked(source: str, name: str) -> str:
    if not NAME.fullmatch(name):
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
