"""Shared fixtures: every test gets its own data dir and no user config leaks in; a scripted
model; one real embedder per test session and fresh memory stores on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from local_agent.config import CHECKOUT_MODELS_DIR
from tests.fakes import ScriptedBackend

if TYPE_CHECKING:
    from local_agent.memory.index.embedder import Embedder
    from local_agent.memory.store import MemoryStore

DEFAULT_GGUF = CHECKOUT_MODELS_DIR / "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data_dir = tmp_path / "data"
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(data_dir))
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", str(tmp_path / "no-config.toml"))
    for name in ("MODEL", "BACKEND", "DEVICE", "MAX_TOKENS", "TEMPERATURE", "CTX_SIZE", "MODELS_DIR",
                 "SERVER", "API_KEY"):  # a user's running server must not answer a test's `ask`
        monkeypatch.delenv("LOCAL_AGENT_" + name, raising=False)
    return data_dir


@pytest.fixture(scope="session")
def default_gguf() -> Path:
    if not DEFAULT_GGUF.is_file():
        pytest.fail(f"default model missing at {DEFAULT_GGUF}: run `make install`")
    return DEFAULT_GGUF


@pytest.fixture
def scripted() -> ScriptedBackend:
    """A scripted model that records its prompts. Give it to the app as its backend factory:
    `run_main(..., backend=scripted)`, `build_runtime(..., backend_factory=ScriptedFactory(scripted))`."""
    return ScriptedBackend(default="Scripted answer.")


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    from local_agent.memory.index.embedder import Embedder

    model = Embedder()
    model.embed(["load the model once"])
    return model


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def store(data_dir: Path, embedder: Embedder) -> Iterator[MemoryStore]:
    from local_agent.memory.store import MemoryStore

    opened = MemoryStore.open(data_dir, embedder)
    yield opened
    opened.close()
