"""Shared fixtures: the whole run lives in a private home (HOME, the XDG folders and every
LOCAL_AGENT_* path point into a temporary folder) and fails if the user's real data or config
folder changed; every test gets its own data dir and no user config leaks in; a scripted
model; one real embedder per test session and fresh memory stores on it."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import platformdirs
import pytest

from local_agent.config import APP_NAME, CHECKOUT_MODELS_DIR, ENV_PREFIX
from tests.fakes import ScriptedBackend

if TYPE_CHECKING:
    from local_agent.memory.index.embedder import Embedder
    from local_agent.memory.store import MemoryStore
    from tests.tiny_models import TinyModel

DEFAULT_GGUF = CHECKOUT_MODELS_DIR / "SmolLM2-135M-Instruct.Q4_1.gguf"
XDG_FOLDERS = {"XDG_DATA_HOME": ".local/share", "XDG_CONFIG_HOME": ".config", "XDG_CACHE_HOME": ".cache",
               "XDG_STATE_HOME": ".local/state"}
_REAL_FOLDERS = pytest.StashKey[dict[Path, object]]()


def real_folders() -> list[Path]:
    """The user's own data and config of local-agent, as this environment names them."""
    folders = [Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
               Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))]
    for name in ("DATA_DIR", "CONFIG"):
        if os.environ.get(ENV_PREFIX + name, "").strip():
            folders.append(Path(os.environ[ENV_PREFIX + name]).expanduser())
    return folders


def fingerprint(path: Path) -> object:
    """What changes when anything in `path` is added, removed or written (None: no such path)."""
    if not os.path.lexists(path):
        return None
    if not path.is_dir() or path.is_symlink():
        info = path.lstat()
        return (info.st_size, info.st_mtime_ns)
    seen = []
    for folder, subfolders, names in os.walk(path):
        for name in sorted(subfolders + names):
            entry = Path(folder) / name
            info = entry.lstat()
            seen.append((str(entry.relative_to(path)), info.st_size, info.st_mtime_ns))
    return sorted(seen)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_REAL_FOLDERS] = {folder: fingerprint(folder) for folder in real_folders()}


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when the user's real data or config folder changed while it ran."""
    before = session.config.stash.get(_REAL_FOLDERS, {})
    changed = [str(folder) for folder, print_ in before.items() if fingerprint(folder) != print_]
    if changed:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        line = f"the test run changed the user's own local-agent folder(s): {', '.join(changed)}"
        if reporter is not None:
            reporter.write_line(line, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session", autouse=True)
def private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """HOME, the XDG folders and every LOCAL_AGENT_* path in a temporary folder for the whole
    run (subprocesses inherit it): no test reads or writes the user's own files."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        for name, below in XDG_FOLDERS.items():
            patch.setenv(name, str(home / below))
        for name in [name for name in os.environ if name.startswith(ENV_PREFIX)]:
            patch.delenv(name)
        patch.setenv(ENV_PREFIX + "DATA_DIR", str(home / "data"))
        patch.setenv(ENV_PREFIX + "CONFIG", str(home / "no-config.toml"))
        yield home


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


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, TinyModel]:
    """Tiny random-weight llama, qwen2 and gemma3 models (folder and GGUF), built once per session."""
    from tests.tiny_models import build_tiny_models

    return build_tiny_models(tmp_path_factory.mktemp("tiny-models"))


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
