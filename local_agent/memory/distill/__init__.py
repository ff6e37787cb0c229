"""The distill room: from a user's message to facts worth remembering.

The gate (could the message hold a durable fact?), clause splitting, the rules for common
statements, third-person rewriting, the checks every candidate passes, the few-shot model
call (distiller.py), and the save policy that adds, refreshes or supersedes (saving.py).

`Distiller` is imported lazily: the rules and checks can be used without the model's schema
machinery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .distiller import Distiller

__all__ = ["Distiller"]


def __getattr__(name: str) -> Any:
    if name == "Distiller":
        from .distiller import Distiller

        return Distiller
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
