"""Resolving a `--model` value to files on disk: a registry name, a pulled model (by its short
name or the NAME it was pulled as), a .gguf file, or a Hugging Face model folder.

Nothing here downloads: a model that is not on disk is a ModelError that names the command
that fetches it (`local-agent models pull`, or `make install` for the default).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError
from .derived import derived_folder
from .paths import inside
from .pulled import PulledModel, find_pulled, read_pulled
from .registry import DEFAULT_CONTEXT_LENGTH, RegistryEntry, load_registry
from .targets import HF_ID, HF_PREFIX

_LOCAL_HINT = "or point --model at a local .gguf file or a model folder (config.json + .safetensors)"


@dataclass(frozen=True)
class ModelSpec:
    """A resolved model: where its weights are and how long a context it was trained for.
    `hf_folder` is where the transformers backends read it; it may not exist yet when a GGUF
    can be converted into it (see derive.ensure_hf_folder). `other_format` names what to pull
    for the backends this model has no files for (its registry pair), or is empty."""

    name: str
    gguf_path: Path | None
    hf_folder: Path | None
    context_length: int
    other_format: str = ""


def resolve_model(spec: str, models_dir: Path) -> ModelSpec:
    """Turn a `--model` value into files. Raises ModelError when nothing usable is on disk."""
    models_dir = Path(models_dir)
    registry = load_registry(models_dir)
    entry = registry.get(spec)
    if entry is not None and entry.kind == "embedding":
        raise ModelError(f"model {spec!r} embeds memories; it is not a chat model (see `local-agent models`)")
    if entry is not None:
        return _registry_spec(entry, registry, models_dir)
    pulled = find_pulled(models_dir, spec)
    if pulled is not None:
        return pulled_spec(pulled, registry, models_dir)
    if spec.startswith(HF_PREFIX):
        raise ModelError(f"{spec} is not here: `local-agent models pull {spec}` downloads it once "
                         "(every other command runs offline)")
    path = Path(spec).expanduser()
    if path.is_file():
        return _gguf_file_spec(path, models_dir)
    if path.is_dir():
        return _hf_folder_spec(path)
    if HF_ID.fullmatch(spec) and not spec.endswith(".gguf"):
        raise ModelError(f"{spec!r} looks like a Hugging Face model id, but it is not here and local-agent runs "
                         f"offline: `local-agent models pull hf:{spec}` downloads it once, {_LOCAL_HINT}")
    raise ModelError(f"model {spec!r} is neither a registry name, a pulled model nor a file or folder on disk; "
                     f"local-agent runs offline: `local-agent models` lists the models it knows and "
                     f"`local-agent models pull NAME` fetches one, {_LOCAL_HINT}")


def _registry_spec(entry: RegistryEntry, registry: dict[str, RegistryEntry], models_dir: Path) -> ModelSpec:
    if entry.pullable:
        pulled = read_pulled(inside(models_dir, entry.name))
        if pulled is None:
            size = f"about {entry.size_mb:,.0f} MB " if entry.size_mb else ""
            raise ModelError(f"model {entry.name} is not here: `local-agent models pull {entry.name}` downloads it "
                             f"once ({size}from {entry.hub_repo}; every other command runs offline)")
        return pulled_spec(pulled, registry, models_dir)
    gguf_path = inside(models_dir, entry.file)
    if not gguf_path.is_file():
        raise ModelError(f"model {entry.name}: file {gguf_path} is missing; run `make install` to fetch it")
    hf_folder = inside(models_dir, entry.hf_folder) if entry.hf_folder else None
    return ModelSpec(entry.name, gguf_path, hf_folder, entry.context_length)


def pulled_spec(pulled: PulledModel, registry: dict[str, RegistryEntry], models_dir: Path) -> ModelSpec:
    """A pulled model's files, with those of its registry pair (the same model in the other
    format) when that is pulled too."""
    entry = registry.get(pulled.name)
    pair_name = entry.pair if entry is not None and entry.pair else ""
    pair = read_pulled(inside(models_dir, pair_name)) if pair_name else None
    missing = [f.name for f in pulled.files if not pulled.file_path(f.name).is_file()]
    if missing:
        raise ModelError(f"pulled model {pulled.name} lacks {missing[0]}; `local-agent models rm {pulled.name}` "
                         "and pull it again")
    if pulled.format == "gguf":
        gguf = pulled.file_path(pulled.files[0].name)
        hf = pair.folder if pair is not None else None
        return ModelSpec(pulled.name, gguf, hf, gguf_context_length(gguf), "" if hf else pair_name)
    pair_gguf = pair.gguf_path if pair is not None else None
    folder = _hf_folder_spec(pulled.folder)
    return ModelSpec(pulled.name, pair_gguf, pulled.folder, folder.context_length, "" if pair_gguf else pair_name)


def _gguf_file_spec(path: Path, models_dir: Path) -> ModelSpec:
    if path.suffix.lower() != ".gguf":
        raise ModelError(f"model file {path} is not a .gguf file (point --model at a .gguf file or a model folder)")
    path = path.resolve()
    return ModelSpec(path.stem, path, derived_folder(path, models_dir), gguf_context_length(path))


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
    text = config.get("text_config") or {}  # a multimodal config keeps the language model's apart
    context = int(config.get("max_position_embeddings") or text.get("max_position_embeddings")
                  or DEFAULT_CONTEXT_LENGTH)
    path = path.resolve()
    return ModelSpec(path.name, None, path, context)


def gguf_context_length(path: Path) -> int:
    """The training context length stored in a GGUF's metadata (`<arch>.context_length`), read
    by llama.cpp loading the vocabulary only: a tenth of a second, where gguf-py's reader builds
    every field (seconds for the 150,000-token vocabularies of pulled models, at every start)."""
    import ctypes

    import llama_cpp
    from llama_cpp import _logger

    _logger.set_verbose(False)  # as Llama(verbose=False) does: no load report on stderr
    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    model = llama_cpp.llama_model_load_from_file(str(path).encode(), params)
    if not model:
        raise ModelError(f"{path} is not a readable GGUF file")
    try:
        values: list[str] = []
        for key in ("general.architecture", "{}.context_length"):
            buffer = ctypes.create_string_buffer(256)
            found = llama_cpp.llama_model_meta_val_str(model, key.format(*values).encode(), buffer, len(buffer))
            values.append(buffer.value.decode("utf-8", "replace") if found >= 0 else "")
    finally:
        llama_cpp.llama_model_free(model)
    return int(values[1]) if values[1].isdigit() else DEFAULT_CONTEXT_LENGTH
