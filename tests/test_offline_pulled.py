"""With a pulled model present, nothing but `pull` opens a network connection: `ask`, `chat`,
`batch`, `memory` and `serve` run on it with outbound connections refused (listening on
loopback allowed, and connecting to what this process itself listens on)."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from local_agent.cli import cli
from local_agent.config import load_settings
from local_agent.server.options import ServerOptions
from local_agent.server.run import LocalServer
from tests.hub_standin import Repo, StandinHub
from tests.server_helpers import wait_ready
from tests.tiny_models import TinyModel

pytestmark = pytest.mark.model
NAME = "tiny-llama"  # the short name of hf:test-org/tiny-llama-GGUF/tiny-llama.gguf


@pytest.fixture
def pulled(tiny_models: dict[str, TinyModel], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny llama GGUF, pulled from a stand-in hub that is gone again afterwards."""
    hub = StandinHub().start()
    hub.repos["test-org/tiny-llama-GGUF"] = Repo({"tiny-llama.gguf": tiny_models["llama"].gguf.read_bytes()})
    models_dir = tmp_path / "models"
    for key, value in {"LOCAL_AGENT_MODELS_DIR": str(models_dir), "HF_ENDPOINT": hub.url,
                       "HF_HOME": str(tmp_path / "hf-home"), "HF_HUB_DISABLE_PROGRESS_BARS": "1"}.items():
        monkeypatch.setenv(key, value)
    try:
        run("models", "pull", "hf:test-org/tiny-llama-GGUF/tiny-llama.gguf", "--yes")
    finally:
        hub.stop()
    return models_dir


@pytest.fixture
def no_outbound(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Refuse every connection but to a socket this process listens on, and every name lookup
    but of loopback."""
    attempts: list[str] = []
    listening: set[Any] = set()
    real_listen, real_connect, real_lookup = socket.socket.listen, socket.socket.connect, socket.getaddrinfo

    def listen(self: socket.socket, *args: Any) -> None:
        listening.add(self.getsockname())
        real_listen(self, *args)

    def connect(self: socket.socket, address: Any) -> None:
        if self.family == getattr(socket, "AF_UNIX", None) or address in listening:
            return real_connect(self, address)
        attempts.append(f"connect {address!r}")
        raise OSError(f"outbound connection attempted: {address!r}")

    def refuse(name: str) -> Any:
        def raiser(*args: Any, **kwargs: Any) -> Any:
            attempts.append(f"{name} {args[:2]!r}")
            raise OSError(f"network access attempted: {name}")
        return raiser

    monkeypatch.setattr(socket.socket, "listen", listen)
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("connect_ex"))
    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host in ("127.0.0.1", "localhost", "::1"):  # no name service asked: the address itself
            return real_lookup(host, *args, **kwargs)
        return refuse("getaddrinfo")(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", lookup)
    for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        monkeypatch.delenv(name, raising=False)  # the package needs no switch from outside
    return attempts


def run(*args: str, input: str | None = None) -> Any:
    result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_every_front_end_runs_a_pulled_model_without_the_network(pulled: Path, no_outbound: list[str],
                                                                   tmp_path: Path) -> None:
    # the guard holds: an outbound attempt fails and is recorded
    with pytest.raises(OSError, match="network access attempted"):
        socket.create_connection(("192.0.2.1", 443), timeout=1)
    assert len(no_outbound) == 1
    no_outbound.clear()
    model = ["--model", NAME, "--max-tokens", "6"]
    assert json.loads(run("ask", "--json", "I'm Priya and I live in Porto.", *model).stdout)["model"] == NAME
    run("chat", "--new-session", *model, input="Hello!\nMy daughter Lena is seven.\n/exit\n")
    lines = tmp_path / "in.jsonl"
    lines.write_text(json.dumps({"session": "b", "input": "I work as a marine biologist."}) + "\n")
    run("batch", str(lines), "-o", str(tmp_path / "out.jsonl"), "--quiet", *model)
    run("memory", "add", "The user plays the cello.")
    assert "Porto" in run("memory", "list", "--kind", "all").output
    run("memory", "search", "cello")
    serve_one_answer(tmp_path)
    assert no_outbound == []


def serve_one_answer(tmp_path: Path) -> None:
    settings = load_settings({"model": NAME, "max_tokens": 6})
    server = LocalServer(settings, ServerOptions(port=0))
    server.bind()
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_ready(server.url)
        body = {"model": NAME, "messages": [{"role": "user", "content": "Where do I live?"}], "max_tokens": 6}
        answer = httpx.post(server.url + "/v1/chat/completions", json=body, timeout=120)
        assert answer.status_code == 200 and answer.json()["model"] == NAME
    finally:
        server.stop()
        thread.join(60)
