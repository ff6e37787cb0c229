"""The user's notes folder, read safely: only regular .txt and .md files whose real path
(symlinks resolved) lies inside the folder. A FIFO, device or folder is never opened, so
listing or reading cannot hang; every file is opened without following links and checked
again on the open descriptor, so one swapped in after the listing is refused too."""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from ..errors import ToolError

log = logging.getLogger(__name__)

NOTE_SUFFIXES = frozenset({".txt", ".md", ".markdown"})
MAX_NOTE_BYTES = 1 << 20
MAX_NOTES = 5000
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class NoteFile:
    """A note: its path relative to the folder (with '/'), its real path, and what says
    whether it changed since it was indexed."""

    relative: str
    path: Path
    mtime_ns: int
    size: int


def notes_root(folder: Path) -> Path:
    """The folder's real path; ToolError when it is not a folder."""
    root = Path(folder).expanduser().resolve()
    if not root.is_dir():
        raise ToolError(f"the notes folder {folder} does not exist or is not a folder")
    return root


def inside(path: Path, root: Path) -> bool:
    return path == root or path.is_relative_to(root)


def list_notes(root: Path) -> list[NoteFile]:
    """The notes under `root` (a resolved folder), hidden files and folders left out, sorted
    by relative path; at most MAX_NOTES."""
    notes: list[NoteFile] = []
    for folder, subfolders, names in os.walk(root, followlinks=False):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        for name in sorted(names):
            note = _note(root, Path(folder) / name)
            if note is not None:
                notes.append(note)
                if len(notes) == MAX_NOTES:
                    log.warning("notes folder %s holds more than %d notes; the rest are left out", root, MAX_NOTES)
                    return notes
    return notes


def _note(root: Path, candidate: Path) -> NoteFile | None:
    if candidate.name.startswith(".") or candidate.suffix.lower() not in NOTE_SUFFIXES:
        return None
    try:
        real = candidate.resolve(strict=True)
        info = real.stat()  # the resolved path: stat only, never open
    except (OSError, RuntimeError):  # a dangling link or a symlink loop
        return None
    if not inside(real, root):
        log.info("note %s points outside the notes folder; refused", candidate)
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_NOTE_BYTES:
        return None
    return NoteFile(candidate.relative_to(root).as_posix(), real, info.st_mtime_ns, info.st_size)


def read_note(note: NoteFile, root: Path) -> str:
    """The note's text (UTF-8; undecodable bytes replaced). ToolError when the file is no
    longer a regular file inside the folder or has grown past the size cap."""
    if not inside(note.path.resolve(), root):
        raise ToolError(f"note {note.relative} is outside the notes folder")
    try:
        fd = os.open(note.path, _OPEN_FLAGS)
    except OSError as exc:
        raise ToolError(f"cannot open note {note.relative}: {exc.strerror}") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_NOTE_BYTES:
            raise ToolError(f"note {note.relative} is not a regular file within {MAX_NOTE_BYTES} bytes")
        data = handle.read(MAX_NOTE_BYTES + 1)[:MAX_NOTE_BYTES]
    return data.decode("utf-8", errors="replace")
