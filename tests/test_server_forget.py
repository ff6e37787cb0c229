"""`memory forget --all` forgets the server's namespaces too (`<data_dir>/users/NAME`), each a
memory store of its own, while the server runs; links there are refused before anything goes."""

from __future__ import annotations

from pathlib import Path

import httpx
from click.testing import CliRunner

from local_agent.cli import cli
from local_agent.config import load_settings

from .fakes import ScriptedBackend, scripted_cli_obj
from .server_helpers import chat_body, running_server

WORD = "Quorrimax"  # no file holds it unless we stored it


def files_with(data_dir: Path, word: str) -> list[str]:
    return sorted(str(p.relative_to(data_dir)) for p in data_dir.rglob("*")
                  if p.is_file() and word.encode() in p.read_bytes())


def tell(url: str, user: str | None, text: str) -> None:
    headers = {"X-Local-Agent-User": user} if user else {}
    response = httpx.post(url + "/v1/chat/completions", json=chat_body(text), headers=headers, timeout=60)
    assert response.status_code == 200, response.text


def listed(url: str, user: str) -> list[str]:
    response = httpx.get(url + "/v1/memories", params={"kind": "all"}, headers={"X-Local-Agent-User": user})
    return [record["text"] for record in response.json()["data"]]


def forget_all(scripted: ScriptedBackend) -> None:
    result = CliRunner().invoke(cli, ["memory", "forget", "--all", "--yes"], obj=scripted_cli_obj(scripted),
                                catch_exceptions=False)
    assert result.exit_code == 0 and result.output == "all memory forgotten\n"


def test_forget_all_reaches_every_namespace(scripted: ScriptedBackend) -> None:
    data_dir = load_settings().data_dir
    with running_server(load_settings(), scripted) as server:
        tell(server.url, "alice", f"My name is {WORD}.")
        tell(server.url, "bob", f"I live in {WORD}.")
        tell(server.url, None, f"My name is {WORD}.")
        httpx.post(server.url + "/v1/memories", json={"text": f"The user owns a {WORD}."},
                   headers={"X-Local-Agent-User": "carol"}).raise_for_status()
        assert any(WORD in text for text in listed(server.url, "alice"))
        holders = files_with(data_dir, WORD)
        assert {h.split("/")[1] for h in holders if h.startswith("users/")} == {"alice", "bob", "carol"}
        assert any(not h.startswith("users/") for h in holders)  # and the default namespace
        forget_all(scripted)
        assert files_with(data_dir, WORD) == []
        for user in ("alice", "bob", "carol"):  # the server's open stores see it too
            assert listed(server.url, user) == []
        tell(server.url, "alice", "I play the cello.")  # and the namespace keeps working
        assert "The user plays the cello." in listed(server.url, "alice")
    assert files_with(data_dir, WORD) == []


def test_a_link_among_the_namespaces_is_refused_before_anything_goes(scripted: ScriptedBackend,
                                                                      tmp_path: Path) -> None:
    data_dir = load_settings().data_dir
    with running_server(load_settings(), scripted) as server:
        tell(server.url, None, f"My name is {WORD}.")
        tell(server.url, "alice", f"My name is {WORD}.")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (data_dir / "users" / "mallory").symlink_to(elsewhere, target_is_directory=True)
    result = CliRunner().invoke(cli, ["memory", "forget", "--all", "--yes"], obj=scripted_cli_obj(scripted))
    assert result.exit_code != 0 and "symbolic link" in str(result.exception)
    assert len(files_with(data_dir, WORD)) >= 2  # nothing was forgotten, in neither place


def test_folders_in_users_that_are_not_namespaces_are_left_alone(scripted: ScriptedBackend) -> None:
    data_dir = load_settings().data_dir
    with running_server(load_settings(), scripted) as server:
        tell(server.url, "alice", f"My name is {WORD}.")
    mine = data_dir / "users" / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text(f"{WORD} is mine")
    forget_all(scripted)
    assert files_with(data_dir, WORD) == ["users/notes/todo.txt"]


def test_the_server_loads_its_models_without_saved_states(tmp_path: Path) -> None:
    """A request's prompt may hold a namespace's memories: the server's llama.cpp backends save
    no state of it in the data dir's cache (the loaders read `incognito` for that alone)."""
    from local_agent.server.engine import Engine

    from .fakes import ScriptedFactory
    from .server_helpers import server_settings

    seen: list[bool] = []
    factory = ScriptedFactory(ScriptedBackend())

    def recording(settings, *, model=None):
        seen.append(settings.incognito)
        return factory(settings, model=model)

    engine = Engine(server_settings(tmp_path / "data"), memory=False, backend_factory=recording)
    engine.load()
    engine.close()
    assert seen and all(seen)
