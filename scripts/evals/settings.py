"""Settings for the evaluation and benchmark scripts."""

from __future__ import annotations

from typing import Any

from local_agent.config import Settings, load_settings


def dev_settings(flags: dict[str, Any] | None = None) -> Settings:
    """The user's settings with `flags` on top, incognito: a script that loads a model through
    them saves no llama.cpp prompt state (nor anything else) into the user's data dir."""
    return load_settings({**(flags or {}), "incognito": True})
