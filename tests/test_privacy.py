"""Privacy, end to end on the real default model: no network from any code path, data files
0600 and folders 0700, and `memory forget --all --yes` leaves no byte of what was said."""

from __future__ import annotations

import json
import socket
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from local_agent.cli import cli

SECRET = "Zorblatt Quexington"  # a name no file holds unless we stored it

pytestmark = pytest.mark.model


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    attempts: list[str] = []

    def refuse(name):
        def raiser(*args, **kwargs):
            attempts.append(f"{name}{args[:2]!r}")
            raise OSError(f"network access attempted in a test: {name}")
        return raiser

    real_connect = socket.socket.connect

    def connect(self, address):
        if self.family == getattr(socket, "AF_UNIX", None):
            return real_connect(self, address)  # local IPC is not network
        return refuse("socket.connect")(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("socket.connect_ex"))
    monkeypatch.setattr(socket, "create_connection", refuse("socket.create_connection"))
    monkeypatch.setattr(socket, "getaddrinfo", refuse("socket.getaddrinfo"))
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE", "DO_NOT_TRACK"):
        monkeypatch.delenv(name, raising=False)  # no telemetry switch is needed
    return attempts


def _run(*args: str, input: str | None = None):
    arguments = [*args, "--max-tokens", "8"] if args[0] in ("ask", "batch", "chat") else list(args)
    result = CliRunner().invoke(cli, arguments, input=input, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def _check_private(data_dir: Path) -> int:
    checked = 0
    for path in [data_dir, *data_dir.rglob("*")]:
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), f"{path} has mode {oct(mode)}"
        checked += 1
    return checked


def test_offline_private_and_forgettable(isolated_dirs: Path, no_network: list[str], tmp_path: Path) -> None:
    data_dir = isolated_dirs
    _run("ask", f"Hello! My name is {SECRET} and I live in Lisbon.")
    batch = tmp_path / "in.jsonl"
    batch.write_text(json.dumps({"session": "b1", "input": f"Please remember that {SECRET} likes green tea."}) + "\n")
    _run("batch", str(batch), "--quiet", "-o", str(tmp_path / "out.jsonl"))
    _run("chat", "--new-session", input=f"I am {SECRET}, a nurse.\n/exit\n")
    _run("memory", "add", f"{SECRET} plays the cello.")
    assert SECRET in _run("memory", "list", "--kind", "all").output
    _run("memory", "search", "cello")
    _run("memory", "doctor")
    assert no_network == []
    assert _check_private(data_dir) > 5
    everything = lambda: b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())  # noqa: E731
    assert SECRET.encode() in everything()
    memory = data_dir / "memory"
    journal = memory / "journal.jsonl"
    (memory / "journal.jsonl.corrupt-20260101T000000").write_bytes(journal.read_bytes())  # a kept backup
    (memory / "memories.json.v0.bak").write_bytes(journal.read_bytes())
    _run("memory", "forget", "--all", "--yes")
    leftovers = [p for p in data_dir.rglob("*") if p.is_file() and (SECRET.encode() in p.read_bytes()
                                                                    or SECRET.split()[0].encode() in p.read_bytes())]
    assert leftovers == []
    assert not (data_dir / "sessions").exists() or not any((data_dir / "sessions").iterdir())
    assert _run("memory", "list", "--kind", "all").output.strip() in ("", "no memories")
    assert no_network == []
