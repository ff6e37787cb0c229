"""What a `models pull NAME` names: a registry entry, `hf:OWNER/REPO` (a Hugging Face folder
for the transformers backends) or `hf:OWNER/REPO/FILE.gguf` (one GGUF for llama.cpp), and the
short name the pulled model goes by."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError
from .paths import inside
from .pulled import SHORT_NAME, read_pulled
from .registry import RegistryEntry

HF_PREFIX = "hf:"
_PART = r"[A-Za-z0-9][\w.-]*"
HF_ID = re.compile(rf"{_PART}/{_PART}")
_HF_NAME = re.compile(rf"hf:(?P<repo>{_PART}/{_PART})(?:/(?P<file>(?:{_PART}/)*{_PART}\.gguf))?", re.IGNORECASE)
NAME_HELP = "a registry name (`local-agent models` lists them), hf:OWNER/REPO or hf:OWNER/REPO/FILE.gguf"


@dataclass(frozen=True)
class PullTarget:
    source: str  # the NAME as given to pull
    name: str  # the short name: the folder it lands in, what --model takes
    repo: str
    revision: str
    file: str | None  # the GGUF inside the repository; None: the repository's model folder
    entry: RegistryEntry | None = None

    @property
    def format(self) -> str:
        return "gguf" if self.file else "hf"

    @property
    def license(self) -> str:
        return self.entry.license if self.entry else ""


def pull_target(name: str, registry: dict[str, RegistryEntry], models_dir: Path) -> PullTarget:
    """Read a pull NAME; a hub name that is also a registry entry is that entry."""
    if name in registry:
        return _registry_target(registry[name])
    match = _HF_NAME.fullmatch(name)
    if match is None:
        hint = f" (did you mean hf:{name}?)" if HF_ID.fullmatch(name) or name.endswith(".gguf") else ""
        raise ModelError(f"cannot pull {name!r}: give {NAME_HELP}{hint}")
    repo, file = match["repo"], match["file"]
    for entry in registry.values():
        same_repo = (entry.hub_repo or "").lower() == repo.lower()
        if same_repo and (entry.file if entry.format == "gguf" else None) == file:
            return _registry_target(entry)
    return PullTarget(name, _short_name(name, repo, file, registry, models_dir), repo, "main", file)


def _registry_target(entry: RegistryEntry) -> PullTarget:
    if entry.hub_repo is None:
        raise ModelError(f"{entry.name} is not pulled from a hub: `make install` fetches it")
    return PullTarget(entry.name, entry.name, entry.hub_repo, entry.revision,
                      entry.file if entry.format == "gguf" else None, entry)


def hub_source(repo: str, file: str | None) -> str:
    return f"{HF_PREFIX}{repo}/{file}" if file else f"{HF_PREFIX}{repo}"


def _short_name(source: str, repo: str, file: str | None, registry: dict[str, RegistryEntry],
                models_dir: Path) -> str:
    """The file's stem or the repository's name, lowercased; prefixed with the owner when a
    registry entry or another pulled model already goes by it."""
    base = (Path(file).stem if file else repo.split("/")[1]).lower()
    owner = repo.split("/")[0].lower()
    for candidate in (base, f"{owner}--{base}"):
        if not SHORT_NAME.fullmatch(candidate) or candidate in registry:
            continue
        folder = inside(models_dir, candidate)
        held = read_pulled(folder) if folder.is_dir() else None
        if folder.exists() and (held is None or held.source != source):
            continue
        return candidate
    raise ModelError(f"no free short name for {source} in {models_dir} (tried {base} and {owner}--{base})")
