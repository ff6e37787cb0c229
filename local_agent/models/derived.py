"""Which GGUF a derived transformers folder was made from: `ensure_hf_folder` (derive.py)
leaves a small record in the folder it makes, and `--model FILE.gguf` (resolve.py) takes
`models/<stem>-hf` only when it is free or was made from that very file. Another folder of that
name (the user's, or the copy of another GGUF with the same stem) is never used nor deleted:
the file's copy gets a name of its own."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from .paths import inside

RECORD = "local-agent-derived.json"


def identity(gguf: Path) -> dict[str, Any]:
    """What tells this GGUF apart: where it is and how big it is."""
    return {"gguf": str(gguf.resolve()), "size": gguf.stat().st_size}


def made_from(folder: Path) -> dict[str, Any] | None:
    """The identity recorded in a derived folder, or None."""
    try:
        data = json.loads((folder / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def derived_folder(gguf: Path, models_dir: Path) -> Path:
    """Where the transformers copy of `gguf` (a file given as --model) lives."""
    plain = inside(models_dir, f"{gguf.stem}-hf")
    if not (plain.exists() or plain.is_symlink()) or made_from(plain) == identity(gguf):
        return plain
    key = json.dumps(identity(gguf), sort_keys=True).encode()
    return inside(models_dir, f"{gguf.stem}-{hashlib.sha256(key).hexdigest()[:10]}-hf")
