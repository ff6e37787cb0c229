"""The data dir and its marker: local-agent only uses, and deletes in, a folder it made.

The data dir holds `.local-agent`, a small JSON marker written when local-agent creates the
folder or first uses it. A folder without the marker is used only when it is empty (or
missing), or when it holds nothing but what an earlier local-agent wrote there (memory/,
sessions/, chat_history, models/, cache/llama-state/, each with only its own files): the marker is then added and
nothing is lost on upgrade. Any other folder is refused with one line, so that `forget` can
never delete a user's own files. Links are refused too: the app's own folders and files
inside the data dir must be what they seem (the data dir itself may be a link).
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable
from pathlib import Path

from ...backends.llama_state import CACHE_DIR_NAME, STATE_DIR_NAME, is_state_file
from ...errors import DataDirError, StoreError
from ...process.files import atomic_write_json, ensure_private_dir, refuse_symlink
from .layout import LOCK_NAME, MEMORY_DIR_NAME, is_own_file

log = logging.getLogger(__name__)

MARKER_NAME = ".local-agent"
MARKER_FORMAT = "local-agent data dir"
MARKER_VERSION = 1
SESSIONS_DIR_NAME = "sessions"
HISTORY_NAME = "chat_history"
MODELS_DIR_NAME = "models"  # model files fetched into the default data dir: never deleted
EPOCH_NAME = "epoch"  # the forget epoch and the lock of session writes: see sessions/epoch.py
SESSIONS_LOCK_NAME = "sessions.lock"
USERS_DIR_NAME = "users"  # the server's memory namespaces, a data dir each (server/namespaces.py)
TOOL_CACHE_NAME = "tool-cache"  # the notes index: chunks and vectors of the user's notes (tools/notes_index.py)
NAMESPACE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a namespace's folder name in users/
OWN_TOP_FILES = frozenset({HISTORY_NAME, EPOCH_NAME, SESSIONS_LOCK_NAME})
# a session file (the name rule of sessions/format.py) or an atomic write of one
SESSION_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\.json")
SESSION_TEMP = re.compile(r"\.[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\.json\.[a-z0-9_]+\.tmp")
MARKER_TEMP = re.compile(r"\.?" + re.escape(MARKER_NAME) + r"\.[a-z0-9_]+\.tmp")  # files.atomic_write_stream
SHOWN = 4  # foreign entries named in the error


def namespace_data_dir(data_dir: Path, name: str | None) -> Path:
    """Where a memory namespace lives: the data dir itself for the default (None), else
    users/NAME (the server's `user`, a batch record's `user`)."""
    if name is None:
        return Path(data_dir)
    if not NAMESPACE_NAME.fullmatch(name):
        raise ValueError(f"a namespace name is 1-64 of A-Z, a-z, 0-9, _ and -, not {name!r}")
    return Path(data_dir) / USERS_DIR_NAME / name


def claim_data_dir(data_dir: Path) -> Path:
    """Make sure `data_dir` is local-agent's: create it (0700) with its marker when missing or
    empty, adopt a data dir of an earlier local-agent, refuse anything else (DataDirError).
    Returns the path. StoreError when the folder cannot be read or written."""
    data_dir = Path(data_dir).expanduser()
    try:
        _claim(data_dir)
    except OSError as exc:
        raise StoreError(f"cannot use the data dir {data_dir}: {exc.strerror or exc}") from exc
    return data_dir


def _claim(data_dir: Path) -> None:
    if not data_dir.exists():
        ensure_private_dir(data_dir)
    elif not data_dir.is_dir():
        raise DataDirError(f"the data dir {data_dir} is not a folder")
    marker = data_dir / MARKER_NAME
    refuse_symlink(marker)
    if marker.exists():
        check_marker(marker)
    else:
        # Another process may mark the folder between the check above and this listing.
        foreign = [name for name in foreign_entries(data_dir) if name != MARKER_NAME or not marker.is_file()]
        if foreign:
            raise DataDirError(_not_ours(data_dir, foreign))
        held = [entry.name for entry in os.scandir(data_dir) if not MARKER_TEMP.fullmatch(entry.name)]
        atomic_write_json(marker, {"format": MARKER_FORMAT, "version": MARKER_VERSION})
        if held_data(data_dir):
            log.warning("marked %s as a local-agent data dir (it was made by an earlier version)", data_dir)
        elif held:  # only caches, models or empty folders: nothing a user said
            log.warning("marked %s as a new local-agent data dir", data_dir)
    for name in (MEMORY_DIR_NAME, SESSIONS_DIR_NAME, HISTORY_NAME, CACHE_DIR_NAME):
        refuse_symlink(data_dir / name)


def held_data(data_dir: Path) -> bool:
    """Whether an earlier local-agent kept something of the user's in `data_dir`: memories,
    session files or the chat's line history (saved states, models and locks are not)."""
    memory, sessions = data_dir / MEMORY_DIR_NAME, data_dir / SESSIONS_DIR_NAME
    return ((data_dir / HISTORY_NAME).is_file()
            or (memory.is_dir() and any(is_own_file(path) and path.name != LOCK_NAME for path in memory.iterdir()))
            or (sessions.is_dir() and any(_is_session_file(path) for path in sessions.iterdir())))


def namespace_dirs(data_dir: Path) -> list[Path]:
    """The server's namespace data dirs in `data_dir`/users, sorted: the folders there that hold
    a marker (anything else there is not local-agent's and is left alone). DataDirError for a
    link, found before anything is done with them."""
    users = Path(data_dir) / USERS_DIR_NAME
    refuse_symlink(users)
    if not users.is_dir():
        return []
    found = []
    for path in sorted(users.iterdir()):
        refuse_symlink(path)
        if path.is_dir() and (path / MARKER_NAME).is_file():
            refuse_symlink(path / MARKER_NAME)
            found.append(path)
    return found


def check_marker(marker: Path) -> None:
    """DataDirError unless `marker` is a marker this local-agent reads."""
    try:
        data = json.loads(marker.read_bytes())
        readable = isinstance(data, dict) and data.get("format") == MARKER_FORMAT
        version = data.get("version") if readable else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        readable, version = False, None
    if not readable or isinstance(version, bool) or not isinstance(version, int):
        raise DataDirError(f"{marker} is not a local-agent data dir marker; "
                           "move it away if this folder is yours to give to local-agent")
    if version > MARKER_VERSION:
        raise DataDirError(f"{marker.parent} was made by a newer local-agent (data dir version {version}); "
                           "upgrade local-agent")


def _not_ours(data_dir: Path, foreign: list[str]) -> str:
    named = ", ".join(foreign[:SHOWN]) + (f" and {len(foreign) - SHOWN} more" if len(foreign) > SHOWN else "")
    return (f"{data_dir} is not a local-agent data dir: it holds files local-agent did not make ({named}); "
            "choose an empty or new folder with --data-dir or LOCAL_AGENT_DATA_DIR")


def foreign_entries(data_dir: Path) -> list[str]:
    """What in `data_dir` an earlier local-agent did not write (relative names, sorted)."""
    foreign: list[str] = []
    for entry in sorted(os.scandir(data_dir), key=lambda e: e.name):
        path = Path(entry.path)
        if entry.is_symlink():
            foreign.append(f"{entry.name} (a link)")
        elif entry.name == MEMORY_DIR_NAME and entry.is_dir():
            foreign += [f"{entry.name}/{name}" for name in _foreign_in(path, is_own_file)]
        elif entry.name == SESSIONS_DIR_NAME and entry.is_dir():
            foreign += [f"{entry.name}/{name}" for name in _foreign_in(path, _is_session_file)]
        elif entry.name == CACHE_DIR_NAME and entry.is_dir():
            foreign += [f"{entry.name}/{name}" for name in _foreign_in_cache(path)]
        elif entry.name in OWN_TOP_FILES and entry.is_file():
            continue
        elif entry.name == MODELS_DIR_NAME and entry.is_dir():
            continue  # local-agent never deletes there
        elif not MARKER_TEMP.fullmatch(entry.name):
            foreign.append(entry.name + ("/" if entry.is_dir() else ""))
    return foreign


def _foreign_in(folder: Path, ours: Callable[[Path], bool]) -> list[str]:
    return sorted(path.name + ("/" if path.is_dir() and not path.is_symlink() else "")
                  for path in folder.iterdir() if not ours(path))


def _foreign_in_cache(cache: Path) -> list[str]:
    """What in cache/ is not llama-state/ holding saved states (backends/llama_state.py)."""
    foreign = _foreign_in(cache, lambda path: path.name == STATE_DIR_NAME and path.is_dir() and not path.is_symlink())
    states = cache / STATE_DIR_NAME
    if states.is_dir() and not states.is_symlink():
        foreign += [f"{STATE_DIR_NAME}/{name}" for name in _foreign_in(states, _is_state)]
    return foreign


def _is_state(path: Path) -> bool:
    return is_state_file(path) and path.is_file() and not path.is_symlink()


def _is_session_file(path: Path) -> bool:
    """A session file an earlier local-agent wrote: its name, and JSON holding turns."""
    if path.is_symlink() or not path.is_file():
        return False
    if SESSION_TEMP.fullmatch(path.name):
        return True
    if not SESSION_FILE.fullmatch(path.name):
        return False
    try:
        data = json.loads(path.read_bytes())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and "version" in data and isinstance(data.get("turns"), list)


def is_session_file(path: Path) -> bool:
    """Named like a session file or a temp file of one (what `forget --all` deletes)."""
    return (SESSION_FILE.fullmatch(path.name) or SESSION_TEMP.fullmatch(path.name)) is not None


def delete_session_files(folder: Path) -> None:
    """Delete the session files in `folder` (and the folder if that empties it). Links are
    refused before anything is deleted; a file that cannot be deleted is an error, never a
    silent success."""
    refuse_symlink(folder)
    if not folder.exists():
        return
    doomed = [path for path in sorted(folder.iterdir())
              if is_session_file(path) and (path.is_symlink() or path.is_file())]
    for path in doomed:
        refuse_symlink(path)
    failed = []
    for path in doomed:
        try:
            path.unlink(missing_ok=True)
        except OSError as exc:
            failed.append(f"{path.name} ({exc.strerror or exc})")
    if failed:
        raise StoreError(f"could not delete {len(failed)} session file(s) in {folder}: {', '.join(failed)}")
    left = sorted(path.name for path in folder.iterdir())
    if left:
        log.warning("left %d file(s) in %s that local-agent did not make: %s", len(left), folder,
                    ", ".join(left[:SHOWN]))
    else:
        folder.rmdir()
