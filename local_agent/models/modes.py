"""File modes for model files: they are not personal data, so they get the usual umask modes
(mkdtemp and safetensors make owner-only files), like any download."""

from __future__ import annotations

import os
from pathlib import Path


def umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def public_file_mode() -> int:
    return 0o666 & ~umask()


def make_readable(folder: Path) -> None:
    """Give `folder` and everything in it the usual umask modes."""
    mask = umask()
    folder.chmod(0o777 & ~mask)
    for path in folder.rglob("*"):
        path.chmod((0o777 if path.is_dir() else 0o666) & ~mask)
