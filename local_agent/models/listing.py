"""What `local-agent models` and `info` list: the registry's installed models (checksums
verified), the pulled models (size and where they came from), and what else can be pulled."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .checksums import sha256_file
from .paths import inside
from .pulled import PulledModel, list_pulled
from .registry import RegistryEntry, load_registry


@dataclass(frozen=True)
class ModelStatus:
    name: str
    description: str
    path: Path
    present: bool
    size_bytes: int  # on disk; for a model not pulled yet, the registry's estimate
    checksum_ok: bool | None  # None: absent, or a pulled model not re-checked (see `check`)
    backend: str = "llama-cpp"
    origin: str = ""  # where the files came from, or where a pull would fetch them
    pulled: bool = False
    license: str = ""


def list_models(models_dir: Path, check: bool = False) -> list[ModelStatus]:
    """Installed registry models, then pulled models, then registry models one can pull.
    `check` hashes pulled files again against their pull record (slow for big models)."""
    registry = load_registry(models_dir)
    pulled = list_pulled(models_dir)
    installed = [_installed(e, Path(models_dir)) for e in registry.values() if not e.pullable]
    here = [_pulled(p, registry.get(p.name), check) for p in pulled]
    names = {p.name for p in pulled}
    available = [_available(e, Path(models_dir)) for e in registry.values() if e.pullable and e.name not in names]
    return installed + here + available


def _installed(entry: RegistryEntry, models_dir: Path) -> ModelStatus:
    path = inside(models_dir, entry.file)
    present = path.is_file()
    return ModelStatus(
        name=entry.name, description=entry.description, path=path, present=present,
        size_bytes=path.stat().st_size if present else 0,
        checksum_ok=(sha256_file(path) == entry.sha256) if present else None,
        backend=entry.serves if entry.kind == "chat" else "memory embedder",
        origin=f"pypi {entry.pypi}" if entry.pypi else "made at install", license=entry.license,
    )


def _pulled(model: PulledModel, entry: RegistryEntry | None, check: bool) -> ModelStatus:
    return ModelStatus(
        name=model.name, description=entry.description if entry else model.source, path=model.folder,
        present=True, size_bytes=model.size_bytes, checksum_ok=_recheck(model) if check else None,
        backend=entry.serves if entry else ("llama-cpp" if model.format == "gguf" else "transformers-4bit"),
        origin=model.origin, pulled=True, license=model.license,
    )


def _available(entry: RegistryEntry, models_dir: Path) -> ModelStatus:
    return ModelStatus(
        name=entry.name, description=entry.description, path=inside(models_dir, entry.name), present=False,
        size_bytes=int((entry.size_mb or 0) * 1e6), checksum_ok=None, backend=entry.serves,
        origin=f"hf:{entry.hub_repo}" + (" (gated)" if entry.gated else ""), license=entry.license,
    )


def _recheck(model: PulledModel) -> bool:
    for pulled_file in model.files:
        path = model.file_path(pulled_file.name)
        if not path.is_file() or sha256_file(path) != pulled_file.sha256:
            return False
    return True
