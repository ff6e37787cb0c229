"""Pulled models on disk: one folder per model in the models folder, with its pull record.

`models_dir/<name>/` holds the model's files and `local-agent-pull.json`, the record of where
they came from (repository, commit, endpoint) and the sha256 of each file as checked at the
pull. A folder is only taken for a pulled model when it has that record, and the record is
written before the folder appears under its name (see `land`), so a half-downloaded model is
never taken for a good one. Downloads in progress live in `models_dir/.pulling/`.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelError
from ..process.files import atomic_write_stream, fsync_dir
from .modes import make_readable, public_file_mode
from .paths import commit_id, inside, remove_tree, safe_name, shown

RECORD = "local-agent-pull.json"
RECORD_VERSION = 1
STAGING = ".pulling"
SHORT_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,95}")


@dataclass(frozen=True)
class PulledFile:
    name: str  # path inside the repository (and inside the model's folder)
    size: int
    sha256: str
    checked_against: str  # "registry sha256", "hub LFS sha256" or "hub git blob id"


@dataclass(frozen=True)
class PulledModel:
    name: str  # the folder's name: what `models` shows and `--model` takes
    source: str  # the NAME given to `pull`: a registry name, hf:OWNER/REPO or hf:OWNER/REPO/FILE.gguf
    repo: str
    format: str  # "gguf" or "hf"
    endpoint: str
    revision: str
    commit: str
    pulled_at: str
    license: str
    files: tuple[PulledFile, ...]
    folder: Path

    @property
    def gguf_path(self) -> Path | None:
        return self.file_path(self.files[0].name) if self.format == "gguf" else None

    def file_path(self, name: str) -> Path:
        """Where one of its files is: inside its folder, or ModelError."""
        return inside(self.folder, name)

    @property
    def size_bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def origin(self) -> str:
        """Where it came from, in one short phrase."""
        return f"{self.endpoint.rstrip('/')}/{self.repo} at {self.commit[:12]}"

    def record(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("folder")
        return {"version": RECORD_VERSION, **data}


def read_pulled(folder: Path) -> PulledModel | None:
    """The pulled model in `folder`, or None when it has no pull record."""
    path = folder / RECORD
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.pop("version") != RECORD_VERSION:
            raise ValueError("an unknown record version")
        files = tuple(_pulled_file(f) for f in data.pop("files"))
        return _checked(PulledModel(**data, files=files, folder=folder))
    except (ValueError, TypeError, KeyError, AttributeError, UnicodeDecodeError) as exc:
        raise ModelError(f"the pull record {path} is damaged ({exc}); `local-agent models rm "
                         f"{folder.name}` and pull it again") from None


def _checked(model: PulledModel) -> PulledModel:
    """`model` when its record is sound (ValueError otherwise): its name is its folder's, it
    lists a file, and its text fields are text."""
    if model.name != safe_name(model.folder.name, folders=False) or not model.files:
        raise ValueError(f"its name is {shown(model.name)}, not its folder's, or it lists no file")
    texts = (model.source, model.repo, model.endpoint, model.revision, model.commit, model.pulled_at, model.license)
    if not all(isinstance(text, str) for text in texts) or model.format not in ("gguf", "hf"):
        raise ValueError("a field has the wrong type, or the format is neither gguf nor hf")
    return model


def _pulled_file(data: dict[str, Any]) -> PulledFile:
    """One `files[]` entry of a record; its name a relative path inside the model's folder
    (UnsafeName, a ValueError, otherwise)."""
    entry = PulledFile(**data)
    safe_name(entry.name)
    if not isinstance(entry.size, int) or not isinstance(entry.sha256, str):
        raise ValueError(f"file {entry.name} has a bad size or sha256")
    return entry


def list_pulled(models_dir: Path) -> list[PulledModel]:
    """Every pulled model in the models folder, by name; damaged records are left out."""
    found = []
    folders = sorted(p for p in Path(models_dir).iterdir() if p.is_dir()) if Path(models_dir).is_dir() else []
    for folder in folders:
        try:
            pulled = read_pulled(folder)
        except ModelError:
            continue
        if pulled is not None:
            found.append(pulled)
    return found


def find_pulled(models_dir: Path, name: str) -> PulledModel | None:
    """The pulled model called `name` (its folder) or pulled as `name` (the NAME given to pull)."""
    if SHORT_NAME.fullmatch(name):
        pulled = read_pulled(inside(Path(models_dir), name))
        if pulled is not None:
            return pulled
    return next((p for p in list_pulled(models_dir) if p.source == name), None)


# -- staging, landing and removing ----------------------------------------------------------
def staging_dir(models_dir: Path, name: str, commit: object) -> Path:
    """Where the files of `name` at `commit` download; kept across interrupted pulls. The
    commit is the hub's word: 40 hexadecimal digits, or ModelError."""
    return inside(Path(models_dir), STAGING, name, commit_id(commit))


@contextmanager
def pull_lock(models_dir: Path, name: str, waiting: Any = None) -> Iterator[None]:
    """One pull or removal of `name` at a time; `waiting()` is called when another holds it."""
    from filelock import FileLock, Timeout

    named = inside(Path(models_dir), STAGING, name)
    lock_path = named.with_name(f"{named.name}.lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(lock_path))
    try:
        lock.acquire(timeout=0)
    except Timeout:
        if waiting is not None:
            waiting()
        lock.acquire()
    try:
        yield
    finally:
        lock.release()


def land(staging: Path, model: PulledModel) -> PulledModel:
    """Write the pull record into `staging` and rename it to the model's folder: the folder
    appears whole, or not at all. Leftovers of earlier pulls of the same name are removed.
    `staging` must be the model's own staging folder (`staging_dir`)."""
    models_dir = model.folder.parent
    target = inside(models_dir, model.name)
    if staging != staging_dir(models_dir, model.name, model.commit) or target != model.folder:
        raise ModelError(f"refused to land {staging} as {model.folder}: not the staging folder of {model.name}")
    if target.exists():
        raise ModelError(f"{target} already exists and is not a pull of {model.source}; move it away first")
    make_readable(staging)
    body = json.dumps(model.record(), indent=1) + "\n"
    with tempfile.TemporaryFile() as handle:
        handle.write(body.encode("utf-8"))
        handle.seek(0)
        atomic_write_stream(staging / RECORD, handle, mode=public_file_mode(), private_folder=False)
    os.replace(staging, target)
    fsync_dir(target.parent)
    remove_tree(models_dir, STAGING, model.name, ignore_errors=True)  # other commits' leftovers
    return model


def remove_pulled(model: PulledModel) -> None:
    """Delete a pulled model: renamed out of sight first, so it is never half there."""
    models_dir = model.folder.parent
    folder, doomed = inside(models_dir, model.name), f".removing-{model.name}-{os.getpid()}"
    if folder.is_symlink():
        raise ModelError(f"{folder} is a link; local-agent does not delete through it (remove the link yourself)")
    os.replace(folder, inside(models_dir, doomed))
    fsync_dir(models_dir)
    remove_tree(models_dir, doomed)
    remove_tree(models_dir, STAGING, model.name, ignore_errors=True)


def now_text() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
