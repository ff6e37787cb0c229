"""Evaluation and benchmark scripts leave the user's data dir alone: a script that loads a
model does it incognito, so llama.cpp saves no prompt state under the user's cache."""

from __future__ import annotations

import re
from pathlib import Path

from evals.settings import dev_settings

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


def test_dev_settings_are_incognito_and_keep_the_flags() -> None:
    settings = dev_settings({"max_tokens": 7})
    assert settings.incognito is True
    assert settings.max_tokens == 7


def test_every_script_that_loads_a_model_does_it_incognito() -> None:
    loaders = [path for path in sorted(SCRIPTS.rglob("*.py")) if "create_backend(" in path.read_text(encoding="utf-8")]
    assert loaders, "no script loads a model: the scan looks in the wrong place"
    careless = [path.name for path in loaders
                if not re.search(r"dev_settings\(|incognito", path.read_text(encoding="utf-8"))]
    assert careless == []
