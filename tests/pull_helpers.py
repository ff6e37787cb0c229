"""What the `models pull` tests share: the stand-in hub's repositories, the settings that point
huggingface_hub at it, pull as a command in this process or as a process of its own, and the
check that nothing the loader would take for a model was left."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from local_agent.models import list_pulled
from local_agent.models.pulled import RECORD, STAGING
from tests.cli_helpers import run_main
from tests.hub_standin import Repo, StandinHub

ROOT = Path(__file__).resolve().parent.parent
GGUF_REPO, FOLDER_REPO = "test-org/tiny-GGUF", "test-org/tiny-chat"
GGUF_NAME = "tiny-chat-q4_k_m.gguf"
WEIGHTS = os.urandom(600_000)  # a stand-in GGUF: pull never loads it
FOLDER = {"config.json": b'{"model_type": "llama", "max_position_embeddings": 4096}',
          "model.safetensors": os.urandom(200_000), "tokenizer.json": b'{"version": "1.0"}',
          "tokenizer_config.json": b"{}", "pytorch_model.bin": b"a pickle, never fetched", "README.md": b"# tiny"}


def serve_repos() -> StandinHub:
    """The stand-in hub, started, with a GGUF repository and a model folder repository."""
    served = StandinHub().start()
    served.repos[GGUF_REPO] = Repo({GGUF_NAME: WEIGHTS, "other-q8_0.gguf": b"x" * 10, "README.md": b"hi"})
    served.repos[FOLDER_REPO] = Repo(dict(FOLDER), commit="fedcba9876543210fedcba9876543210fedcba98")
    return served


def point_at(hub: StandinHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The models folder, and huggingface_hub's settings pointed at the stand-in (inherited by
    the child process that downloads); no token from the user's own login."""
    folder = tmp_path / "models"
    monkeypatch.setenv("LOCAL_AGENT_MODELS_DIR", str(folder))
    monkeypatch.setenv("HF_ENDPOINT", hub.url)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    return folder


def pull(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    return run_main(["models", "pull", *args], capsys, monkeypatch)


def pull_process(*args: str, limit_bytes: int | None = None,
                 env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """`local-agent models pull ARGS --yes` as its own process (its own process group), Ctrl-C
    reaching it; with `limit_bytes`, files it and its children write past that size fail with
    EFBIG: a full disk."""
    command = [sys.executable, "-m", "local_agent", "models", "pull", *args, "--yes"]
    # Ctrl-C as a terminal delivers it, whatever the runner's own: a job a non-interactive shell
    # starts in the background inherits SIGINT ignored, and Python then leaves it ignored.
    setup = "signal.signal(signal.SIGINT, signal.SIG_DFL)"
    if limit_bytes is not None:
        setup += f"; resource.setrlimit(resource.RLIMIT_FSIZE, ({limit_bytes}, {limit_bytes}))"
    start = f"import os, resource, signal, sys; {setup}; os.execv(sys.executable, sys.argv[1:])"
    command = [sys.executable, "-c", start, *command]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            start_new_session=True, env={**os.environ, **(env or {})})


def nothing_usable(models_dir: Path) -> bool:
    """No folder the loader would take for a model: no pull record anywhere outside staging."""
    return list_pulled(models_dir) == [] and not any(p.name == RECORD for p in models_dir.rglob("*")
                                                      if STAGING not in p.parts)


def wait_for(ready: object, process: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not ready():  # type: ignore[operator]
        if process.poll() is not None:
            raise AssertionError(f"the pull ended early: {process.communicate()}")
        if time.monotonic() > deadline:
            raise AssertionError("the pull did not get there in time")
        time.sleep(0.05)
