"""Private, atomic file writes: everything we store is personal data."""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, BinaryIO

from ..errors import DataDirError, InputError, NotFoundError

PRIVATE_FILE = 0o600
PRIVATE_DIR = 0o700


def ensure_private_dir(path: Path) -> Path:
    """Create `path` readable by the user only, and any missing parents too (the data dir
    itself must not be left world-readable); folders that already existed keep their mode."""
    missing = [folder for folder in [path, *path.parents] if not folder.exists()]
    for folder in reversed(missing):
        folder.mkdir(exist_ok=True, mode=PRIVATE_DIR)
        os.chmod(folder, PRIVATE_DIR)
    os.chmod(path, PRIVATE_DIR)
    return path


def refuse_symlink(path: Path) -> None:
    """DataDirError when `path` is a symbolic link: what the data dir holds is written and
    deleted in place, never through a link to somewhere else."""
    if path.is_symlink():
        raise DataDirError(f"{path} is a symbolic link; local-agent does not follow links inside its data dir "
                           "(replace it with the real file or folder)")


def refuse_odd_file(path: Path) -> None:
    """refuse_symlink, and DataDirError for a FIFO, device or socket: a FIFO would block its
    reader forever, a device would be read as data. (Folders are left to the caller.)"""
    refuse_symlink(path)
    mode = path.lstat().st_mode
    if not stat.S_ISDIR(mode):
        _refuse_special(path, mode)


def read_own_file(path: Path) -> bytes:
    """A data-dir file's bytes, never through a link and never waiting on a FIFO: DataDirError
    for either, or for a device. FileNotFoundError when there is no file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            refuse_symlink(path)
        raise
    with os.fdopen(fd, "rb") as handle:
        _refuse_special(path, os.fstat(fd).st_mode)
        return handle.read()


def _refuse_special(path: Path, mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise DataDirError(f"{path} is not a regular file; local-agent keeps only its own files there (move it away)")


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_stream(path: Path, source: IO[bytes], *, mode: int = PRIVATE_FILE, private_folder: bool = True) -> str:
    """Copy `source` to `path` via a temp file in the same folder, fsync, rename: readers see
    the old file or the new one, never a half-written one, even if the process dies mid-write.
    `private_folder` makes the folder 0700 (our data dir), and refuses to replace a link there;
    leave it off for a user's folder. Returns the sha256 of what was written."""
    digest = hashlib.sha256()
    with atomic_file(path, mode=mode, private_folder=private_folder) as handle:
        while chunk := source.read(1 << 20):
            digest.update(chunk)
            handle.write(chunk)
    return digest.hexdigest()


@contextmanager
def atomic_file(path: Path, *, mode: int = PRIVATE_FILE, private_folder: bool = True) -> Iterator[BinaryIO]:
    """A file to write that replaces `path` when the block ends (as atomic_write_stream does:
    temp file, fsync, rename), for a writer that pushes its bytes (a large file written in
    pieces, never held whole); nothing is replaced if the block fails."""
    if private_folder:
        refuse_symlink(path)
        ensure_private_dir(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)


def atomic_write_bytes(path: Path, data: bytes, *, private_folder: bool = True) -> None:
    atomic_write_stream(path, io.BytesIO(data), private_folder=private_folder)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def read_user_file(path: Path, max_bytes: int, what: str = "import") -> bytes:
    """A file the user named (an import, a batch), whole, within `max_bytes`: InputError naming
    the file and the problem (a folder, a device such as /dev/zero, over the limit, unreadable),
    or NotFoundError. A pipe is read, up to the limit."""
    limit = f"the {max_bytes / 2**20:.0f} MiB {what} limit; split it into smaller files"
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{path}: is a folder, not a file")
        if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode):
            raise InputError(f"{path}: is a device, not a file")
        if info.st_size > max_bytes:
            raise InputError(f"{path}: {info.st_size / 2**20:.0f} MiB is over {limit}")
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise NotFoundError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:  # it grew while we looked, or a pipe
        raise InputError(f"{path}: over {limit}")
    return data
