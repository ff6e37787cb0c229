"""Fixtures for the memory store tests: one real embedder per test session, fresh stores."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from local_agent.memory.index.embedder import Embedder
from local_agent.memory.store import MemoryStore


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    model = Embedder()
    model.embed(["load the model once"])
    return model


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def store(data_dir: Path, embedder: Embedder) -> Iterator[MemoryStore]:
    opened = MemoryStore.open(data_dir, embedder)
    yield opened
    opened.close()


def all_bytes(folder: Path) -> bytes:
    """Every byte of every file under `folder` (to look for text that must be gone)."""
    return b"".join(path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file())
