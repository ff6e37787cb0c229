"""Each runtime's name and how to load a model into it: the one place a backend registers.

The names are declared in types.BACKEND_NAMES, low enough for config to check them; every
name there has its loader here. Each loader imports its runtime module (and so its heavy
libraries) only when that runtime is chosen.
"""

from __future__ import annotations

from collections.abc import Callable

from ..config import Settings
from ..errors import ModelError
from ..models import ModelSpec, ensure_hf_folder
from ..types import BACKEND_NAMES
from .base import Backend

# (model, settings, device, context size) -> the loaded backend
Loader = Callable[[ModelSpec, Settings, str, int], Backend]


def _llama_cpp(spec: ModelSpec, settings: Settings, device: str, context: int) -> Backend:
    from .llama_cpp import LlamaCppBackend
    from .llama_state import state_dir

    if spec.gguf_path is None:  # the probe only picks llama-cpp for a model with a GGUF
        raise ModelError(f"model {spec.name} has no .gguf file for the llama-cpp backend")
    # Saved system-prompt states (llama_state.py) live in the data dir; incognito writes none.
    states = None if settings.incognito else state_dir(settings.data_dir)
    return LlamaCppBackend(spec.gguf_path, model_name=spec.name, context_size=context,
                           threads=settings.threads, device=device, seed=settings.seed, state_dir=states)


def _transformers(spec: ModelSpec, settings: Settings, device: str, context: int) -> Backend:
    from .hf import TransformersBackend

    return TransformersBackend(ensure_hf_folder(spec), model_name=spec.name, context_size=context,
                               device=device, threads=settings.threads)


def _transformers_4bit(spec: ModelSpec, settings: Settings, device: str, context: int) -> Backend:
    from .hf import Transformers4BitBackend

    return Transformers4BitBackend(ensure_hf_folder(spec), model_name=spec.name, context_size=context,
                                   device=device, threads=settings.threads)


LOADERS: dict[str, Loader] = {
    "llama-cpp": _llama_cpp,
    "transformers": _transformers,
    "transformers-4bit": _transformers_4bit,
}
if tuple(LOADERS) != BACKEND_NAMES:  # a runtime named in types.py but not registered here
    raise RuntimeError(f"backend loaders {tuple(LOADERS)} do not match types.BACKEND_NAMES {BACKEND_NAMES}")


def load_backend(name: str, spec: ModelSpec, settings: Settings, *, device: str, context: int) -> Backend:
    """Load `spec` into the runtime called `name`, on `device`, with a `context`-token window."""
    return LOADERS[name](spec, settings, device, context)
