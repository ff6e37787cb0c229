"""Every path into the models folder that comes from outside: a hub's answer (its commit id,
its file names), a pull record (its `name`, its `files[].name`) or the registry (its keys,
`file`, `hf_folder`, `pair`).

A name is checked as written (`safe_name`): a relative POSIX path of plain parts, no `..` or
`.`, no empty part (so no absolute path), no backslash, no control character. Then `inside`
joins it to its root, resolves the folder it lands in (symlinks followed) and checks that
folder is the root or below it. Every staging, download, landing, listing and removal goes
through `inside`, and `remove_tree` deletes only what `inside` gave. The last part itself is
not followed: a model file may be the user's own link to elsewhere, and a link is replaced,
never written through, by the atomic writes and refused by `shutil.rmtree`.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from ..errors import ModelError

COMMIT_ID = re.compile(r"[0-9a-f]{40}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_SHOWN = 60  # characters of a refused value shown in an error


class UnsafeName(ValueError):
    """A name that would leave its folder, or is not a plain relative path."""


def shown(value: object) -> str:
    """A refused value, short and on one line."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def safe_name(value: object, *, folders: bool = True) -> str:
    """`value` when it is a plain relative path (one part only, unless `folders`); else UnsafeName."""
    if not isinstance(value, str) or not value:
        raise UnsafeName(f"{shown(value)} is not a name")
    if "\\" in value or _CONTROL.search(value):
        raise UnsafeName(f"{shown(value)} holds a backslash or a control character")
    parts = value.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise UnsafeName(f"{shown(value)} is not a relative path of plain names (no '..', '.', or leading '/')")
    if len(parts) > 1 and not folders:
        raise UnsafeName(f"{shown(value)} has a '/'; a single name is expected")
    return value


def commit_id(value: object) -> str:
    """A hub commit id: 40 lowercase hexadecimal digits, or ModelError."""
    if not isinstance(value, str) or not COMMIT_ID.fullmatch(value):
        raise ModelError(f"the hub answered a commit id that is not 40 hexadecimal digits: {shown(value)}; "
                         "nothing was downloaded")
    return value


def inside(root: Path, *names: str) -> Path:
    """`root/names...` once each name is safe and the folder it lands in resolves inside
    `root`; ModelError otherwise."""
    path = Path(root)
    try:
        for name in names:
            path = path / safe_name(name)
    except UnsafeName as exc:
        raise ModelError(f"refused a path in {root}: {exc}") from None
    base = Path(root).resolve()
    folder = path.parent.resolve()
    if path == Path(root) or not (folder == base or folder.is_relative_to(base)):
        raise ModelError(f"refused a path in {root}: {shown('/'.join(names))} leads outside it")
    return path


def remove_tree(root: Path, *names: str, ignore_errors: bool = False) -> None:
    """Delete the folder `root/names...` (checked by `inside`); nothing when it is not there."""
    path = inside(root, *names)
    if path.is_symlink():
        raise ModelError(f"refused to delete {path}: it is a link")
    if path.exists():
        shutil.rmtree(path, ignore_errors=ignore_errors)
