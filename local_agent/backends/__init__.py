"""Backends: one protocol (base.Backend), one module per runtime, and the probe that picks one.

`create_backend` is the only entry point the rest of the package needs. Each runtime module
(and its heavy libraries) is imported only when it is chosen.
"""

from __future__ import annotations

from ..config import Settings
from ..models import ensure_hf_folder, resolve_model
from .base import Backend
from .probe import BackendChoice, choose_backend, probe_hardware

__all__ = ["Backend", "BackendChoice", "create_backend"]

def create_backend(settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]:
    """Resolve the model (`settings.model` unless `model` is given, e.g. a separate distiller
    model), probe the hardware, choose a runtime and device, and load the model into it.

    Raises ModelError (model not on disk) or BackendError (runtime cannot run here).
    """
    spec = resolve_model(model or settings.model, settings.models_dir)
    choice = choose_backend(probe_hardware(), spec, settings.backend, settings.device)
    context = min(settings.ctx_size, spec.context_length)
    if choice.backend == "llama-cpp" and spec.gguf_path is not None:  # always a GGUF here
        from .llama_cpp import LlamaCppBackend

        backend: Backend = LlamaCppBackend(
            spec.gguf_path, model_name=spec.name, context_size=context,
            threads=settings.threads, device=choice.device, seed=settings.seed,
        )
        return backend, choice
    from .hf import Transformers4BitBackend, TransformersBackend

    runtime = Transformers4BitBackend if choice.backend == "transformers-4bit" else TransformersBackend
    backend = runtime(
        ensure_hf_folder(spec), model_name=spec.name, context_size=context,
        device=choice.device, threads=settings.threads,
    )
    return backend, choice
