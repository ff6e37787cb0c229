"""The line that says the default model is tiny, and which bigger ones this machine can run.

With the 135M default, answers are often unsure. `chat`'s banner, `info` and the page say so in
one line, with two registry models to pull: the largest GGUF chat models (llama.cpp runs them on
any machine) whose estimated memory fits what is available now. Nothing names a model here: the
candidates and their sizes come from the registry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..config import DEFAULT_MODEL
from .registry import RegistryEntry, load_registry

# Peak RSS over file size of the bigger models, measured in docs/models.md: 1.3 to 2.1.
MEMORY_PER_FILE_SIZE = 2.1
OVERHEAD_MB = 600  # besides the chat model: the embedder, the default model that distills, Python
SUGGESTED = 2


@dataclass(frozen=True)
class ModelAdvice:
    """What `info --json` and the page's info carry as `model_note`."""

    text: str  # the one line shown
    suggested: tuple[str, ...]  # registry names to pull, largest first
    available_mb: int  # the memory they were chosen for

    def to_dict(self) -> dict[str, Any]:
        return asdict(self) | {"suggested": list(self.suggested)}


def needed_mb(entry: RegistryEntry) -> float:
    """About how much memory a chat with this model takes (its file size, when the registry has it)."""
    return (entry.size_mb or float("inf")) * MEMORY_PER_FILE_SIZE + OVERHEAD_MB


def fitting_models(registry: Mapping[str, RegistryEntry], available_mb: float,
                   count: int = SUGGESTED) -> list[str]:
    """The `count` largest pullable GGUF chat models, bigger than the default, that fit."""
    default = registry.get(DEFAULT_MODEL)
    smallest = (default.size_mb or 0.0) if default is not None else 0.0
    fitting = [entry for entry in registry.values()
               if entry.kind == "chat" and entry.format == "gguf" and entry.pullable and not entry.gated
               and entry.name != DEFAULT_MODEL and (entry.size_mb or 0.0) > smallest
               and needed_mb(entry) <= available_mb]
    fitting.sort(key=lambda entry: (-(entry.size_mb or 0.0), entry.name))
    return [entry.name for entry in fitting[:count]]


def uses_default_model(model: str, registry: Mapping[str, RegistryEntry]) -> bool:
    """Whether a `--model` value is the default model, by its name or its file."""
    default = registry.get(DEFAULT_MODEL)
    return model == DEFAULT_MODEL or (default is not None and bool(default.file) and Path(model).name == default.file)


def available_mb() -> int:
    """The memory available now (MiB), as the kernel counts what can be taken without swapping."""
    import psutil

    return int(psutil.virtual_memory().available // 2**20)


def model_advice(model: str, models_dir: Path, memory_mb: int | None = None) -> ModelAdvice | None:
    """The line to show when `model` is the tiny default, or None for any other model."""
    registry = load_registry(models_dir)
    if not uses_default_model(model, registry):
        return None
    memory = available_mb() if memory_mb is None else memory_mb
    names = fitting_models(registry, memory)
    text = "The default model is tiny (135M parameters): its answers will often be unsure. "
    if not names:
        text += f"No bigger model in the registry fits the {memory / 1024:.1f} GB of memory free now."
    else:
        others = "".join(f" (or {name})" for name in names[1:])
        text += f"For better ones: local-agent models pull {names[0]}{others}, then run with --model NAME."
    return ModelAdvice(text, tuple(names), memory)
