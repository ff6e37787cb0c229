"""Backends: one protocol (base.Backend), one module per runtime, and the probe that picks one.

`create_backend` is the only entry point the rest of the package needs. Each runtime module
(and its heavy libraries) is imported only when it is chosen (see registry.py).
"""

from __future__ import annotations

from ..config import Settings
from ..models import resolve_model
from .base import Backend
from .generation import Generation
from .probe import BackendChoice, choose_backend, context_size, probe_hardware
from .registry import load_backend

__all__ = ["Backend", "BackendChoice", "Generation", "create_backend"]


def create_backend(settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]:
    """Resolve the model (`settings.model` unless `model` is given, e.g. a separate distiller
    model), probe the hardware, choose a runtime and device, and load the model into it.

    Raises ModelError (model not on disk) or BackendError (runtime cannot run here).
    """
    spec = resolve_model(model or settings.model, settings.models_dir)
    choice = choose_backend(probe_hardware(), spec, settings.backend, settings.device)
    context = context_size(settings, spec)
    return load_backend(choice.backend, spec, settings, device=choice.device, context=context), choice
