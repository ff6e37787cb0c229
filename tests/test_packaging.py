"""The built wheel: the package and its data files, and none of the repository's development
tools (the evaluation harnesses live in scripts/evals/, outside the package)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    # Built from a copy: setuptools writes build/ and *.egg-info beside the sources it builds.
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("wheel")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "local_agent", source / "local_agent",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(out), str(source)], check=True, capture_output=True, timeout=300)
    (wheel,) = out.glob("local_agent-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def test_wheel_holds_no_evaluation_harness_tests_or_scripts(wheel_names: list[str]) -> None:
    tops = {name.split("/")[0] for name in wheel_names}
    assert tops == {"local_agent", next(top for top in tops if top.endswith(".dist-info"))}
    assert not [name for name in wheel_names if "evals" in name.split("/")]


def test_wheel_carries_the_package_data(wheel_names: list[str]) -> None:
    for needed in ("local_agent/data/recall_ranker.json", "local_agent/data/distill_gate.json",
                   "local_agent/data/problem_ranker.json", "local_agent/reading/problems/solve.py",
                   "local_agent/prompts/distill.txt", "local_agent/server/static/index.html"):
        assert needed in wheel_names
