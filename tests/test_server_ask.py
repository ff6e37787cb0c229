"""The warm `ask`: through a running server when its load-time settings match, with the same
output as in-process (timings apart); in-process otherwise, or with --no-server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from local_agent.cli import cli
from local_agent.config import load_settings
from local_agent.errors import InputError
from local_agent.server.discovery import socket_path

from .fakes import ScriptedBackend, scripted_cli_obj
from .server_helpers import running_server

KEY = "ask-key-0123456789"


def run(backend: ScriptedBackend, *args: str) -> Any:
    """`local-agent ARGS` in this process, on the scripted model when it answers here."""
    return CliRunner().invoke(cli, list(args), obj=scripted_cli_obj(backend), catch_exceptions=False)


@pytest.fixture
def in_process(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Counts the asks answered in this process (build_runtime loads a model)."""
    import local_agent.app as app

    calls: list[str] = []
    real = app.build_runtime

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append("loaded")
        return real(*args, **kwargs)

    monkeypatch.setattr(app, "build_runtime", counted)
    return calls


def comparable(data: dict[str, Any]) -> dict[str, Any]:
    """An `ask --json` record without what differs between two runs: timings, session name, ids."""
    data = {k: v for k, v in data.items() if k not in ("timings", "session")}
    data["memories_saved"] = [{k: v for k, v in m.items() if k != "id"} for m in data["memories_saved"]]
    data["memories_recalled"] = [{k: v for k, v in m.items() if k != "id"} for m in data["memories_recalled"]]
    return data


def test_ask_uses_the_warm_server_with_the_same_output(scripted, in_process, tmp_path: Path) -> None:
    with running_server(load_settings(), scripted) as server:
        assert server.socket_path == socket_path(load_settings().data_dir)
        warm = run(scripted, "ask", "--json", "My name is Ada.")
        assert warm.exit_code == 0 and in_process == []
        elsewhere = run(scripted, "ask", "--json", "--data-dir", str(tmp_path / "other"), "My name is Ada.")
        assert in_process == ["loaded"]
        assert comparable(json.loads(warm.stdout)) == comparable(json.loads(elsewhere.stdout))
        assert json.loads(warm.stdout)["memories_saved"][0]["text"] == "The user's name is Ada."
        again = json.loads(run(scripted, "ask", "--json", "What is my name?").stdout)
        assert "The user's name is Ada." in [hit["text"] for hit in again["memories_recalled"]]
        plain = run(scripted, "ask", "What is my name?")  # "Scripted answer." says nothing of it: said back
        assert "Ada" in plain.stdout and "Scripted answer." not in plain.stdout and in_process == ["loaded"]
        sessions = sorted(p.stem for p in (server.settings.data_dir / "sessions").glob("*.json"))
        assert len(sessions) == 3  # each ask is a session of its own, written as in-process


def test_ask_resumes_a_named_session_through_the_server(scripted, in_process) -> None:
    with running_server(load_settings(), scripted):
        run(scripted, "ask", "--session", "work", "First message.")
        run(scripted, "ask", "--session", "work", "Second message.")
    assert in_process == []
    prompt = scripted.prompts[-1]
    # The prompt opens with the few-shot exchanges (prompt.DEFAULT_EXAMPLES); the session's own
    # first message follows them.
    assert "First message." in [m.content for m in prompt if m.role == "user"]


@pytest.mark.parametrize("flags", [["--no-server"], ["--ctx-size", "1024"], ["--model", "other-model"]])
def test_ask_answers_in_process_when_told_or_when_settings_differ(scripted, in_process, flags: list[str]) -> None:
    with running_server(load_settings(), scripted):
        result = CliRunner().invoke(cli, ["ask", *flags, "tell me a story"], obj=scripted_cli_obj(scripted))
    assert in_process == ["loaded"], result.output


def test_errors_come_back_as_the_same_one_line(scripted, in_process) -> None:
    with running_server(load_settings(), scripted):
        result = CliRunner().invoke(cli, ["ask", "--session", "../bad", "a story"], obj=scripted_cli_obj(scripted))
    assert result.exit_code != 0 and in_process == []
    assert isinstance(result.exception, InputError) and "session name" in str(result.exception)


@pytest.mark.parametrize(("change", "param"), [
    ({"session": "../evil-SECRET"}, "session"),
    ({"session": "x" * 65}, "session"),
    ({"settings": {"SECRET_setting": 1}}, "settings"),
    ({"settings": {"temperature": "SECRET"}}, "settings.temperature"),
    ({"settings": {"max_tokens": -7}}, "settings.max_tokens"),
    ({"message": "SECRET " * 5000}, "message"),
    ({"system": "SECRET " * 5000}, "system"),
])
def test_the_ask_route_answers_a_refusal_with_a_4xx_that_echoes_nothing(scripted, change: dict[str, Any],
                                                                           param: str) -> None:
    """Issue 44: an invalid session name was an HTTP 200 with the error as a body line, and the
    error repeated the name sent."""
    from local_agent.server.discovery import ASK_PATH, load_identity

    settings = load_settings()
    body = {"message": "a story", "expect": load_identity(settings), **change}
    with running_server(settings, scripted) as server:
        response = httpx.post(server.url + ASK_PATH, json=body, timeout=30)
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["param"] == param and error["code"] == "InputError"
        assert "SECRET" not in response.text and "evil" not in response.text
        assert httpx.post(server.url + ASK_PATH, json={"message": "a story", "expect": load_identity(settings)},
                          timeout=30).status_code == 200
    assert scripted.prompts == [] or all("SECRET" not in m.content for p in scripted.prompts for m in p)


def test_local_agent_server_url_with_a_key(scripted, in_process, monkeypatch: pytest.MonkeyPatch) -> None:
    with running_server(load_settings(), scripted, api_key=KEY, socket=False) as server:
        monkeypatch.setenv("LOCAL_AGENT_SERVER", server.url)
        monkeypatch.setenv("LOCAL_AGENT_API_KEY", KEY)
        assert run(scripted, "ask", "tell me a story").stdout == "Scripted answer.\n"
        assert in_process == []


def test_a_named_server_that_refuses_the_key_is_an_error(scripted, in_process, monkeypatch, capsys) -> None:
    """Issue 23: with LOCAL_AGENT_SERVER named and a wrong key, `ask` answered in-process
    without a word. The user named that server: its refusal is a one-line error, exit 1."""
    from .cli_helpers import error_line, run_main

    with running_server(load_settings(), scripted, api_key=KEY, socket=False) as server:
        monkeypatch.setenv("LOCAL_AGENT_SERVER", server.url)
        for key in ("wrong-key-0000", ""):
            monkeypatch.setenv("LOCAL_AGENT_API_KEY", key)
            code, out, err = run_main(["ask", "tell me a story"], capsys, monkeypatch, backend=scripted)
            line = error_line(err)
            assert code == 1 and out == "" and in_process == []
            assert server.url in line and "LOCAL_AGENT_API_KEY" in line and len(err.strip().splitlines()) == 1


def test_a_stale_socket_is_ignored(scripted, in_process) -> None:
    import socket

    from local_agent.memory.store.datadir import claim_data_dir

    path = socket_path(claim_data_dir(load_settings().data_dir))  # a server claimed it, then was killed
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # a socket file nobody listens on, as a killed server leaves
    assert run(scripted, "ask", "tell me a story").exit_code == 0
    assert in_process == ["loaded"]


def test_a_server_without_memory_leaves_memory_asks_to_the_cli(scripted, in_process) -> None:
    with running_server(load_settings(), scripted, memory=False):
        run(scripted, "ask", "--no-memory", "tell me a story")
        assert in_process == []
        run(scripted, "ask", "tell me a story")
    assert in_process == ["loaded"]


def test_the_cli_and_the_server_share_one_store(scripted) -> None:
    import httpx

    with running_server(load_settings(), scripted) as server:
        assert run(scripted, "memory", "add", "The user grows tomatoes.").exit_code == 0
        listed = httpx.get(server.url + "/v1/memories").json()["data"]
        assert [r["text"] for r in listed] == ["The user grows tomatoes."]
        added = httpx.post(server.url + "/v1/memories", json={"text": "The user keeps a cat."})
        assert added.status_code == 200
        texts = [r["text"] for r in json.loads(run(scripted, "memory", "list", "--json").stdout)]
        assert sorted(texts) == ["The user grows tomatoes.", "The user keeps a cat."]


def test_a_long_data_dir_gets_its_socket_in_a_private_folder(scripted, in_process, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "data"
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(deep))
    path = socket_path(deep)
    assert path.parent.name.startswith("local-agent-") and len(str(path)) < 100
    with running_server(load_settings(), scripted) as server:
        assert server.socket_path == path and oct(path.parent.stat().st_mode & 0o777) == "0o700"
        assert run(scripted, "ask", "tell me a story").stdout == "Scripted answer.\n"
    assert in_process == [] and not path.exists()


def test_plain_ask_returns_with_the_answer_and_the_server_finishes_the_memory_work(scripted, in_process) -> None:
    import httpx

    with running_server(load_settings(), scripted) as server:
        # An introduction is acknowledged by the program (turn/acknowledge.py), not the model.
        assert run(scripted, "ask", "My name is Ada.").stdout == "Nice to meet you, Ada!\n"
        listed = httpx.get(server.url + "/v1/memories").json()["data"]  # queued behind the memory work
    assert [record["text"] for record in listed] == ["The user's name is Ada."]
    assert in_process == []


HEAVY = ("numpy", "faiss", "llama_cpp", "pydantic", "bm25s", "scipy", "fastapi", "uvicorn")
CLIENT = """
import json, sys
from local_agent.cli import main
sys.argv = ["local-agent", "ask", "--max-tokens", "8", "tell me a story"]
try:
    main()
except SystemExit as exc:
    assert not exc.code, exc.code
heavy = sorted(name for name in sys.modules if name.split(".")[0] in {heavy!r})
print(json.dumps(heavy), file=sys.stderr)
"""


def test_a_warm_ask_imports_nothing_heavy(scripted) -> None:
    """`ask` answered by the server loads none of the model, vector or web libraries, so that it
    starts in a fraction of a second (the commands are imported lazily, the client is stdlib)."""
    import subprocess
    import sys

    from .server_helpers import ROOT

    with running_server(load_settings(), scripted):
        done = subprocess.run([sys.executable, "-c", CLIENT.format(heavy=set(HEAVY))], check=False,
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Scripted answer.\n"
    assert json.loads(done.stderr.splitlines()[-1]) == []


def test_help_lists_every_command_with_its_short_help() -> None:
    """The lazy command table names every command, and --help still lists each one."""
    import importlib

    from local_agent.cli.group import COMMAND_MODULES

    for module in set(COMMAND_MODULES.values()):
        importlib.import_module(f"local_agent.cli.{module}")
    assert sorted(cli.commands) == sorted(COMMAND_MODULES)
    listing = CliRunner().invoke(cli, ["--help"]).output.split("Commands:")[1]
    for name, command in cli.commands.items():
        assert f"  {name} " in listing and command.get_short_help_str(limit=30)[:20] in listing
