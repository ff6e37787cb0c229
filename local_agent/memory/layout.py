"""Where the memory store keeps its files, and the small helpers every file module shares.

    <data_dir>/memory/
        memories.json        snapshot: every record, human-readable, with a format version
        vectors-<gen>.npy    one float32 row per snapshot record (the generation is in the name,
                             so a compaction never overwrites the vectors a reader is loading)
        journal.jsonl        operations since the snapshot, one JSON object a line
        write.lock           serializes writers across processes (always empty)
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ..files import PRIVATE_FILE, ensure_private_dir

MEMORY_DIR_NAME = "memory"
SESSIONS_DIR_NAME = "sessions"  # beside memory/ in the data dir (sessions.py)
SNAPSHOT_NAME = "memories.json"
JOURNAL_NAME = "journal.jsonl"
LOCK_NAME = "write.lock"
VECTORS_PREFIX = "vectors-"
CORRUPT_MARK = ".corrupt-"
DOCTOR_HINT = "run `local-agent memory doctor --repair`"

FileIdentity = tuple[int, int, int, int]  # (device, inode, size, mtime_ns)


class FileDamage(ValueError):
    """A store file that cannot be read as what it should be."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class NewerFormat(FileDamage):
    """A file written by a newer local-agent: not damaged, and not ours to repair."""


@dataclass(frozen=True)
class StorePaths:
    root: Path

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> "StorePaths":
        return cls(Path(data_dir).expanduser() / MEMORY_DIR_NAME)

    @property
    def snapshot(self) -> Path:
        return self.root / SNAPSHOT_NAME

    @property
    def journal(self) -> Path:
        return self.root / JOURNAL_NAME

    @property
    def lock(self) -> Path:
        return self.root / LOCK_NAME

    def vectors(self, generation: int) -> Path:
        return self.root / f"{VECTORS_PREFIX}{generation}.npy"

    def create(self) -> None:
        ensure_private_dir(self.root)

    def files(self) -> list[Path]:
        """Every file under the memory folder (sorted), or [] when there is no folder."""
        if not self.root.is_dir():
            return []
        return sorted(path for path in self.root.rglob("*") if path.is_file())


def identity(path: Path) -> FileIdentity | None:
    """What tells a replaced or grown file from the one we read (None: no file)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def make_private(path: Path) -> None:
    os.chmod(path, PRIVATE_FILE)


def notice(message: str) -> None:
    """A one-line note on stderr about something the store did on its own."""
    print(f"local-agent: {message}", file=sys.stderr, flush=True)
