"""Hashing model files ourselves: sha256, and the git blob id the hub gives for small files."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

CHUNK = 1 << 20


@dataclass(frozen=True)
class FileDigests:
    size: int
    sha256: str
    git_sha1: str  # git's blob id: sha1 of "blob <size>\0" + content, as the hub lists non-LFS files


def sha256_file(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def file_digests(path: Path) -> FileDigests:
    """The sha256 and git blob id of a file, in one read."""
    size = path.stat().st_size
    sha256 = hashlib.sha256()
    git = hashlib.sha1(f"blob {size}\0".encode(), usedforsecurity=False)
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            sha256.update(chunk)
            git.update(chunk)
    return FileDigests(size, sha256.hexdigest(), git.hexdigest())
