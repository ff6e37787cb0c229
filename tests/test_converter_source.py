"""The llama-cpp-python source (its GGUF converter) is found where `make install` put it,
whatever HOME is when it is used; a missing one is one line naming the command that fetches it
(issue 44)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from local_agent.errors import ModelError
from local_agent.models import gguf_convert
from local_agent.models.gguf_convert import Conversion, convert_stand_ins, record_sdist, sdist_name, sdist_path

ROOT = Path(__file__).resolve().parent.parent


def test_the_installed_source_is_found_with_an_empty_home(tmp_path: Path) -> None:
    home = tmp_path / "empty-home"
    home.mkdir()
    probe = "from local_agent.models.gguf_convert import sdist_path; print(sdist_path())"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False, cwd=ROOT,
                          env={**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    found = Path(done.stdout.strip())
    assert found.is_file() and not found.is_relative_to(home), f"{found}: run `make install`"


def test_the_install_records_where_it_kept_the_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gguf_convert, "SDIST_RECORD", tmp_path / "venv" / "record.json")
    (tmp_path / "venv").mkdir()
    kept = tmp_path / "kept" / sdist_name()
    kept.parent.mkdir()
    kept.write_bytes(b"an archive")
    monkeypatch.setenv("HOME", str(tmp_path / "elsewhere"))
    record_sdist(kept)
    assert sdist_path() == kept and sdist_path(tmp_path / "c") == tmp_path / "c" / sdist_name()
    (tmp_path / "venv" / "record.json").write_text('{"path": "/old/llama_cpp_python-0.0.1.tar.gz"}')
    assert sdist_path() == tmp_path / "elsewhere" / ".cache" / "local-agent" / "sdist" / sdist_name()


@pytest.mark.parametrize("record", ['{"path": "/gone/NAME"}', "not json", None])
def test_a_missing_source_is_one_line_naming_the_command(record: str | None, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "record.json"
    if record is not None:
        path.write_text(record.replace("NAME", sdist_name()), encoding="utf-8")
    monkeypatch.setattr(gguf_convert, "SDIST_RECORD", path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(ModelError) as caught:
        convert_stand_ins([Conversion(tmp_path / "folder", tmp_path / "out.gguf")])
    message = str(caught.value)
    assert "`make install (scripts/convert_embedder.py)` fetches it" in message and "\n" not in message
