"""Shared fixtures: every test gets its own data dir and no user config leaks in."""

from __future__ import annotations

from pathlib import Path

import pytest

from local_agent.config import CHECKOUT_MODELS_DIR

DEFAULT_GGUF = CHECKOUT_MODELS_DIR / "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data_dir = tmp_path / "data"
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(data_dir))
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", str(tmp_path / "no-config.toml"))
    for name in ("MODEL", "BACKEND", "DEVICE", "MAX_TOKENS", "TEMPERATURE", "CTX_SIZE", "MODELS_DIR"):
        monkeypatch.delenv("LOCAL_AGENT_" + name, raising=False)
    return data_dir


@pytest.fixture(scope="session")
def default_gguf() -> Path:
    if not DEFAULT_GGUF.is_file():
        pytest.fail(f"default model missing at {DEFAULT_GGUF}: run `make install`")
    return DEFAULT_GGUF


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch):
    """Every backend the app creates is one scripted model that records its prompts."""
    from local_agent.backends.probe import BackendChoice
    from tests.fakes import ScriptedBackend

    backend = ScriptedBackend(default="Scripted answer.")
    choice = BackendChoice(backend="scripted", device="cpu", reason="test")
    monkeypatch.setattr("local_agent.app.create_backend", lambda settings, model=None: (backend, choice))
    return backend
