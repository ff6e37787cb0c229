"""`memory doctor`'s checks of the data dir itself: who owns it, who may write in it, links
inside it, and files or folders others could read (memory/, sessions/ and cache/llama-state/
included). The store's own files are checked in health.py; models/ holds no personal data and
is not checked."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ...backends.llama_state import CACHE_DIR_NAME, STATE_DIR_NAME, is_state_file
from ...errors import DataDirError
from ...process.files import PRIVATE_DIR, PRIVATE_FILE
from .datadir import (
    HISTORY_NAME,
    MARKER_NAME,
    MODELS_DIR_NAME,
    SESSIONS_DIR_NAME,
    check_marker,
    foreign_entries,
    is_session_file,
)
from .layout import MEMORY_DIR_NAME, is_own_file

OTHERS = 0o077  # any permission for group or others
OTHERS_WRITE = 0o022


def data_dir_problems(data_dir: Path) -> list[str]:
    """What makes the data dir less than private, or not local-agent's, one line each."""
    data_dir = Path(data_dir).expanduser()
    if not data_dir.exists():
        return []
    if not data_dir.is_dir():
        return [f"{data_dir}: not a folder (the data dir must be a folder)"]
    problems = _folder_problems(data_dir) + _marker_problems(data_dir)
    for path in _entries(data_dir):
        problems += _entry_problems(path)
    return problems


def repair_modes(data_dir: Path) -> list[str]:
    """Make local-agent's own files 0600 and its folders 0700; returns what was changed.
    Links, a foreign owner and other people's files are left for the user."""
    data_dir = Path(data_dir).expanduser()
    if not data_dir.is_dir():
        return []
    actions = []
    for path, wanted in _own_paths(data_dir):
        if stat.S_IMODE(path.stat().st_mode) != wanted and path.stat().st_uid == os.getuid():
            os.chmod(path, wanted)
            actions.append(f"{path}: made readable by you only ({oct(wanted)[2:]})")
    return actions


def _folder_problems(data_dir: Path) -> list[str]:
    info = data_dir.stat()
    problems = []
    if info.st_uid != os.getuid():
        problems.append(f"{data_dir}: owned by another user (uid {info.st_uid}); the data dir must be yours")
    mode = stat.S_IMODE(info.st_mode)
    if mode & OTHERS_WRITE:
        problems.append(f"{data_dir}: writable by group or others (mode {oct(mode)[2:]}); "
                        "they could replace its files: chmod 700 it")
    elif mode & OTHERS:
        problems.append(f"{data_dir}: mode {oct(mode)[2:]}, should be 700 (others can list it)")
    return problems


def _marker_problems(data_dir: Path) -> list[str]:
    marker = data_dir / MARKER_NAME
    if marker.is_symlink():
        return []  # reported with the other links
    if marker.exists():
        try:
            check_marker(marker)
        except (DataDirError, OSError) as exc:
            return [str(exc)]
        return []
    foreign = foreign_entries(data_dir)
    if foreign:
        return [(f"{data_dir}: not a local-agent data dir (no {MARKER_NAME}, and files it did not make: "
                 f"{', '.join(foreign[:4])}); local-agent will not use it")]
    return []


OWN_DIRS = (MEMORY_DIR_NAME, SESSIONS_DIR_NAME, CACHE_DIR_NAME)


def _entries(data_dir: Path) -> list[Path]:
    """Everything in the data dir and in its memory/, sessions/, cache/ and
    cache/llama-state/ folders (not models/)."""
    found = []
    for path in sorted(data_dir.iterdir()):
        if path.name == MODELS_DIR_NAME:
            continue
        found.append(path)
        if path.name in OWN_DIRS and _real_dir(path):
            found += sorted(path.iterdir())
        if path.name == CACHE_DIR_NAME and _real_dir(path / STATE_DIR_NAME):
            found += sorted((path / STATE_DIR_NAME).iterdir())
    return found


def _real_dir(path: Path) -> bool:
    return path.is_dir() and not path.is_symlink()


def _entry_problems(path: Path) -> list[str]:
    if path.is_symlink():
        return [f"{path}: a symbolic link to {os.readlink(path)}; local-agent refuses links in its data dir"]
    info = path.stat()
    mode = stat.S_IMODE(info.st_mode)
    problems = []
    if mode & OTHERS:
        wanted = PRIVATE_DIR if path.is_dir() else PRIVATE_FILE
        problems.append(f"{path}: mode {oct(mode)[2:]}, should be {oct(wanted)[2:]} (others can read it)")
    if info.st_uid != os.getuid():
        problems.append(f"{path}: owned by another user (uid {info.st_uid})")
    return problems


def _own_paths(data_dir: Path) -> list[tuple[Path, int]]:
    """local-agent's own folders and files in the data dir, with the mode each should have."""
    own: list[tuple[Path, int]] = [(data_dir, PRIVATE_DIR)]
    for path in _entries(data_dir):
        if path.is_symlink():
            continue
        if path.parent == data_dir:
            if path.name in OWN_DIRS and path.is_dir():
                own.append((path, PRIVATE_DIR))
            elif path.name in (MARKER_NAME, HISTORY_NAME) and path.is_file():
                own.append((path, PRIVATE_FILE))
        elif path.parent.name == CACHE_DIR_NAME:
            if path.name == STATE_DIR_NAME and path.is_dir():
                own.append((path, PRIVATE_DIR))
        elif _own_in_folder(path):
            own.append((path, PRIVATE_FILE))
    return own


def _own_in_folder(path: Path) -> bool:
    """A file of ours inside memory/, sessions/ or cache/llama-state/."""
    if path.parent.name == MEMORY_DIR_NAME:
        return is_own_file(path)
    if path.parent.name == STATE_DIR_NAME:
        return is_state_file(path) and path.is_file()
    return path.parent.name == SESSIONS_DIR_NAME and is_session_file(path) and path.is_file()
