"""Where the memory store keeps its files, and the small helpers every file module shares.

    <data_dir>/memory/
        memories.json        snapshot: every record, human-readable, with a format version
        vectors-<gen>.npy    one float32 row per snapshot record (the generation is in the name,
                             so a compaction never overwrites the vectors a reader is loading)
        columns-<gen>.bin    the snapshot's records as columns, indexing their lines in
                             memories.json (derived: rebuilt when it does not match; columns.py)
        lexical-<gen>.bin    the BM25 index over the snapshot's records (derived, like columns;
                             see lexical_file.py; lexical-<gen>.npz was its earlier format)
        hnsw-<gen>.faiss     the approximate dense index of a large store (derived, like lexical;
                             hnsw-<gen>.npz was its earlier format, still deleted as ours)
        journal.jsonl        operations since the snapshot, one JSON object a line
        write.lock           serializes writers across processes (always empty)
        <name>.corrupt-<t>   a damaged file doctor kept aside; memories.json.v<N>.bak: a
                             snapshot in its old format, kept when it was migrated
        .<name>.<x>.tmp      an atomic write in progress (or cut short by a crash)

Only files with these names are ever deleted: anything else in the folder is not ours.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ...errors import StoreCorruptError, StoreError
from ...process.files import ensure_private_dir

MEMORY_DIR_NAME = "memory"
SNAPSHOT_NAME = "memories.json"
JOURNAL_NAME = "journal.jsonl"
LOCK_NAME = "write.lock"
VECTORS_PREFIX = "vectors-"
LEXICAL_PREFIX = "lexical-"
APPROX_PREFIX = "hnsw-"
COLUMNS_PREFIX = "columns-"
CORRUPT_MARK = ".corrupt-"
DOCTOR_HINT = "run `local-agent memory doctor --repair`"

_GENERATIONAL = (rf"{re.escape(VECTORS_PREFIX)}\d+\.npy"
                 rf"|(?:{re.escape(LEXICAL_PREFIX)}|{re.escape(APPROX_PREFIX)})\d+\.npz"
                 rf"|{re.escape(APPROX_PREFIX)}\d+\.faiss"
                 rf"|(?:{re.escape(LEXICAL_PREFIX)}|{re.escape(COLUMNS_PREFIX)})\d+\.bin")
_LIVE = rf"(?:{re.escape(SNAPSHOT_NAME)}|{re.escape(JOURNAL_NAME)}|{_GENERATIONAL})"
LIVE_FILE = re.compile(rf"{_LIVE}|{re.escape(LOCK_NAME)}")
BACKUP_FILE = re.compile(
    rf"{re.escape(SNAPSHOT_NAME)}\.v\d+\.bak|{_LIVE}{re.escape(CORRUPT_MARK)}\d{{8}}T\d{{6}}(?:-\d+)?"
)
# atomic writes use tempfile.mkstemp(prefix=".<name>.", suffix=".tmp")
TEMP_FILE = re.compile(rf"\.(?:{LIVE_FILE.pattern}|{BACKUP_FILE.pattern})\.[a-z0-9_]+\.tmp")

FileIdentity = tuple[int, int, int, int]  # (device, inode, size, mtime_ns)


class FileDamage(ValueError):
    """A store file that cannot be read as what it should be."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path
        self.problem = problem


class NewerFormat(FileDamage):
    """A file written by a newer local-agent: not damaged, and not ours to repair."""


def corrupt(damage: FileDamage) -> StoreError:
    """The error a command reports for a damaged file: it names the repair."""
    if isinstance(damage, NewerFormat):
        return StoreError(str(damage))
    return StoreCorruptError(f"{damage}; {DOCTOR_HINT}")


@dataclass(frozen=True)
class StorePaths:
    root: Path

    @classmethod
    def for_data_dir(cls, data_dir: Path) -> StorePaths:
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

    def lexical(self, generation: int) -> Path:
        return self.root / f"{LEXICAL_PREFIX}{generation}.bin"

    def columns(self, generation: int) -> Path:
        return self.root / f"{COLUMNS_PREFIX}{generation}.bin"

    def approx(self, generation: int) -> Path:
        return self.root / f"{APPROX_PREFIX}{generation}.faiss"

    def create(self) -> None:
        ensure_private_dir(self.root)

    def own_files(self) -> list[Path]:
        """The files of the memory folder that local-agent makes, found by their names (sorted):
        never a subfolder, a link, or a file someone else put there."""
        if not self.root.is_dir():
            return []
        return sorted(path for path in self.root.iterdir() if is_own_file(path))

    def files(self) -> list[Path]:
        """Every file under the memory folder (sorted), or [] when there is no folder."""
        if not self.root.is_dir():
            return []
        return sorted(path for path in self.root.rglob("*") if path.is_file())


def is_own_file(path: Path) -> bool:
    """A regular file (not a link) named like one local-agent writes in the memory folder."""
    name = path.name
    ours = any(pattern.fullmatch(name) for pattern in (LIVE_FILE, BACKUP_FILE, TEMP_FILE))
    return ours and path.is_file() and not path.is_symlink()


def is_kept_copy(path: Path) -> bool:
    """A backup or a leftover temp file: not rewritten by compaction, so forget checks them."""
    return (BACKUP_FILE.fullmatch(path.name) or TEMP_FILE.fullmatch(path.name)) is not None


def identity(path: Path) -> FileIdentity | None:
    """What tells a replaced or grown file from the one we read (None: no file)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


@contextmanager
def os_errors_as_store_errors(paths: StorePaths) -> Iterator[None]:
    """A full disk or a permission problem becomes one StoreError line, not a traceback."""
    try:
        yield
    except OSError as exc:
        raise StoreError(f"cannot use the memory store in {paths.root}: {exc.strerror or exc}") from exc
