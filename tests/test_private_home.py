"""Issue 23, item 6: a fresh clone's `make test` left saved llama.cpp states in the user's own
data folder. The run now lives in a private home (tests/conftest.py), and a run that changes
the real data or config folder anyway fails at its end."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import platformdirs

from local_agent.config import APP_NAME, Settings, default_data_dir, load_settings

from .server_helpers import ROOT

LEAK = '''
import os
from pathlib import Path

from local_agent.config import Settings
from local_agent.memory.store.datadir import claim_data_dir


def test_private() -> None:
    claim_data_dir(Settings().data_dir)  # what a test that forgets --data-dir does


def test_leaks() -> None:
    if os.environ.get("LEAK"):
        folder = Path(os.environ["REAL_SHARE"]) / "local-agent" / "cache"
        folder.mkdir(parents=True)
        (folder / "left-behind").write_text("x")
'''


def test_this_run_lives_in_a_private_home(private_home: Path) -> None:
    for path in (Path.home(), default_data_dir(), Settings().data_dir, load_settings().data_dir,
                 Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))):
        assert path.is_relative_to(private_home.parent), path
    assert not any(name.startswith("LOCAL_AGENT_") and not name.endswith(("DATA_DIR", "CONFIG"))
                   for name in os.environ)


def _inner_run(tmp_path: Path, leak: bool) -> subprocess.CompletedProcess[str]:
    """pytest with our conftest over LEAK, in a home of its own that it takes for the user's."""
    (tmp_path / "test_inner.py").write_text(textwrap.dedent(LEAK))
    env = {name: value for name, value in os.environ.items() if not name.startswith("LOCAL_AGENT_")}
    env.update(HOME=str(tmp_path / "user"), XDG_DATA_HOME=str(tmp_path / "user-share"),
               XDG_CONFIG_HOME=str(tmp_path / "user-config"), REAL_SHARE=str(tmp_path / "user-share"),
               LEAK="1" if leak else "", PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest",
               str(tmp_path / "test_inner.py")]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_a_run_that_writes_into_the_real_data_folder_fails(tmp_path: Path) -> None:
    done = _inner_run(tmp_path, leak=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "changed the user's own local-agent folder" in done.stdout
    assert "2 passed" in done.stdout  # the tests passed; the run did not


def test_a_run_that_keeps_to_its_private_home_passes(tmp_path: Path) -> None:
    done = _inner_run(tmp_path, leak=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / "user-share").exists() and not (tmp_path / "user").exists()
