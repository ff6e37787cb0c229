"""Helpers for tests that look at what reached the disk."""

from __future__ import annotations

from pathlib import Path


def all_bytes(folder: Path) -> bytes:
    """Every byte of every file under `folder` (to look for text that must be gone)."""
    return b"".join(path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file())
