"""`local-agent models pull` against a stand-in hub on 127.0.0.1 (tests/hub_standin.py) through
the real huggingface_hub code path: complete, interrupted and resumed, corrupted, missing,
gated, a full disk, two at once; `models` and `models rm`; the names `--model` takes after."""

from __future__ import annotations

import hashlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from local_agent.errors import ModelError
from local_agent.models import find_pulled, list_pulled, resolve_model
from local_agent.models.pulled import RECORD, STAGING
from tests.cli_helpers import error_line, run_main
from tests.hub_standin import Repo, StandinHub
from tests.pull_helpers import (
    FOLDER_REPO,
    GGUF_NAME,
    GGUF_REPO,
    WEIGHTS,
    nothing_usable,
    point_at,
    pull,
    pull_process,
    serve_repos,
    wait_for,
)


@pytest.fixture
def hub() -> Iterator[StandinHub]:
    served = serve_repos()
    yield served
    served.stop()


@pytest.fixture
def models_dir(tmp_path: Path, hub: StandinHub, monkeypatch: pytest.MonkeyPatch) -> Path:
    return point_at(hub, tmp_path, monkeypatch)


# -- a complete pull ------------------------------------------------------------------------
def test_a_gguf_pull_says_what_where_and_how_much_then_lands_verified(
        models_dir: Path, hub: StandinHub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = pull(capsys, monkeypatch, f"hf:{GGUF_REPO}/{GGUF_NAME}", "--yes")
    assert code == 0, err
    first, done = out.strip().splitlines()
    assert f"{len(WEIGHTS):,} bytes" in first and f"{hub.url}/{GGUF_REPO}" in first and "0123456789ab" in first
    assert "pulled tiny-chat-q4_k_m" in done and "hub LFS sha256" in done
    folder = models_dir / "tiny-chat-q4_k_m"
    assert (folder / GGUF_NAME).read_bytes() == WEIGHTS
    record = json.loads((folder / RECORD).read_text())
    assert record["commit"] == Repo({}).commit and record["repo"] == GGUF_REPO and record["endpoint"] == hub.url
    assert record["files"] == [{"name": GGUF_NAME, "size": len(WEIGHTS), "sha256": hashlib.sha256(WEIGHTS).hexdigest(),
                                "checked_against": "hub LFS sha256"}]
    assert not (models_dir / STAGING / "tiny-chat-q4_k_m").exists()
    assert [r.path.rsplit("/", 1)[-1] for r in hub.log if r.method == "GET" and "/resolve/" in r.path] == [GGUF_NAME]


def test_a_pulled_model_answers_to_its_name_and_its_short_name(
        models_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    source = f"hf:{GGUF_REPO}/{GGUF_NAME}"
    assert pull(capsys, monkeypatch, source, "--yes")[0] == 0
    for name in (source, "tiny-chat-q4_k_m"):
        found = find_pulled(models_dir, name)
        assert found is not None and found.gguf_path == models_dir / "tiny-chat-q4_k_m" / GGUF_NAME
    out = run_main(["models"], capsys, monkeypatch)[1]
    line = next(line for line in out.splitlines() if line.startswith("tiny-chat-q4_k_m"))
    assert "llama-cpp" in line and "0.6 MB" in line and GGUF_REPO in line
    rows = json.loads(run_main(["models", "--json", "--check"], capsys, monkeypatch)[1])
    row = next(r for r in rows if r["name"] == "tiny-chat-q4_k_m")
    assert row["pulled"] and row["checksum_ok"] and row["size_mb"] == 0.6
    assert pull(capsys, monkeypatch, "tiny-chat-q4_k_m", "--yes")[0] != 0  # a short name is no pull NAME
    again = pull(capsys, monkeypatch, source, "--yes")
    assert again[0] == 0 and "already here" in again[1]


def test_a_folder_pull_fetches_the_model_files_only_and_checks_small_ones_by_git_id(
        models_dir: Path, hub: StandinHub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = pull(capsys, monkeypatch, f"hf:{FOLDER_REPO}", "--yes")
    assert code == 0, err
    folder = models_dir / "tiny-chat"
    wanted = {"config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json"}
    assert {p.name for p in folder.iterdir()} == wanted | {RECORD}
    checks = {f["name"]: f["checked_against"] for f in json.loads((folder / RECORD).read_text())["files"]}
    assert checks == {"config.json": "hub git blob id", "model.safetensors": "hub LFS sha256",
                      "tokenizer.json": "hub git blob id", "tokenizer_config.json": "hub git blob id"}
    spec = resolve_model(f"hf:{FOLDER_REPO}", models_dir)
    assert spec.gguf_path is None and spec.hf_folder == folder and spec.context_length == 4096


def test_a_registry_name_pulls_its_entry_and_checks_the_registry_sha256(
        models_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    write_registry(models_dir, hashlib.sha256(WEIGHTS).hexdigest())
    code, out, err = pull(capsys, monkeypatch, "tiny-q4", "--yes")
    assert code == 0, err
    assert "license apache-2.0" in out and "registry sha256" in out
    pulled = find_pulled(models_dir, "tiny-q4")
    assert pulled is not None and pulled.gguf_path == models_dir / "tiny-q4" / GGUF_NAME


def write_registry(models_dir: Path, sha256: str = "") -> None:
    models_dir.mkdir(parents=True, exist_ok=True)
    checksum = f'sha256 = "{sha256}"\n' if sha256 else ""
    (models_dir / "registry.toml").write_text(
        f'[tiny-q4]\nformat = "gguf"\nfile = "{GGUF_NAME}"\nsource = {{ hf = "{GGUF_REPO}" }}\n'
        f'license = "apache-2.0"\nsize_mb = 0.6\n{checksum}', encoding="utf-8")


# -- failures: one line, a non-zero exit, nothing the loader would take --------------------
def test_a_corrupted_file_is_refused_and_deleted(
        models_dir: Path, hub: StandinHub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    hub.repos[GGUF_REPO].corrupt.add(GGUF_NAME)
    code, _, err = pull(capsys, monkeypatch, f"hf:{GGUF_REPO}/{GGUF_NAME}", "--yes")
    assert code == 1
    assert "does not match its hub LFS sha256" in error_line(err) and "nothing was installed" in err
    assert nothing_usable(models_dir)
    assert not any(p.name.startswith(GGUF_NAME) for p in models_dir.rglob("*"))  # nor its part
    with pytest.raises(ModelError, match="models pull"):
        resolve_model(f"hf:{GGUF_REPO}/{GGUF_NAME}", models_dir)


def test_a_folder_in_the_way_is_named_before_anything_is_downloaded(
        models_dir: Path, hub: StandinHub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    write_registry(models_dir)
    (models_dir / "tiny-q4").mkdir()
    (models_dir / "tiny-q4" / "notes.txt").write_text("mine")
    code, _, err = pull(capsys, monkeypatch, "tiny-q4", "--yes")
    assert code == 1 and "already exists and is not a pulled model" in error_line(err)
    assert hub.log == [] and (models_dir / "tiny-q4" / "notes.txt").read_text() == "mine"


def test_a_registry_checksum_that_differs_from_the_download_is_refused(
        models_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    write_registry(models_dir, "0" * 64)
    code, _, err = pull(capsys, monkeypatch, "tiny-q4", "--yes")
    assert code == 1 and "does not match its registry sha256" in error_line(err)
    assert nothing_usable(models_dir)


@pytest.mark.parametrize(("name", "expected"), [
    ("hf:test-org/no-such-model", "no model test-org/no-such-model on http://127.0.0.1"),
    (f"hf:{GGUF_REPO}/missing.gguf", f"{GGUF_REPO} has no file missing.gguf (its .gguf files: other-q8_0.gguf, "),
    ("no-such-name", "cannot pull 'no-such-name': give a registry name"),
    ("test-org/tiny-chat", "(did you mean hf:test-org/tiny-chat?)"),
])
def test_a_missing_model_or_bad_name_is_one_line(name: str, expected: str, models_dir: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = pull(capsys, monkeypatch, name, "--yes")
    assert code == 1 and expected in error_line(err)
    assert nothing_usable(models_dir)


def test_a_gated_repo_asks_for_a_token_and_honours_hf_token(
        models_dir: Path, hub: StandinHub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    repo = hub.repos[GGUF_REPO]
    repo.gated, repo.token = True, "hf_right"
    source = f"hf:{GGUF_REPO}/{GGUF_NAME}"
    code, _, err = pull(capsys, monkeypatch, source, "--yes")
    assert code == 1 and "is gated and no Hugging Face token is set" in error_line(err) and "HF_TOKEN" in err
    monkeypatch.setenv("HF_TOKEN", "hf_wrong")  # the hub answers the download with 401 GatedRepo
    code, _, err = pull(capsys, monkeypatch, source, "--yes")
    assert code == 1 and "the token in use has no access to it" in error_line(err)
    assert any(r.path.endswith(GGUF_NAME) and r.authorized for r in hub.log)
    assert nothing_usable(models_dir)
    monkeypatch.setenv("HF_TOKEN", "hf_right")
    assert pull(capsys, monkeypatch, source, "--yes")[0] == 0


def test_without_a_terminal_and_without_yes_nothing_is_asked_of_the_network(
        models_dir: Path, hub: StandinHub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = pull(capsys, monkeypatch, f"hf:{GGUF_REPO}/{GGUF_NAME}")
    assert code == 1 and "--yes" in error_line(err)
    assert hub.log == []


def test_the_question_is_asked_on_a_terminal_and_no_means_nothing(
        models_dir: Path, hub: StandinHub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("local_agent.cli.models_cmd.is_terminal", lambda: True)
    code, out, err = run_main(["models", "pull", f"hf:{GGUF_REPO}/{GGUF_NAME}"], capsys, monkeypatch, stdin=b"n\n")
    assert code == 1 and "Download it?" in out and "nothing was downloaded" in error_line(err)
    assert not [r for r in hub.log if r.method == "GET" and "/resolve/" in r.path]


def test_too_little_free_disk_is_refused_before_downloading(
        models_dir: Path, hub: StandinHub, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    monkeypatch.setattr(shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10**9, 10**9 - 1000, 1000))
    code, _, err = pull(capsys, monkeypatch, f"hf:{GGUF_REPO}/{GGUF_NAME}", "--yes")
    assert code == 1 and "needs 0.6 MB" in error_line(err) and "LOCAL_AGENT_MODELS_DIR" in err
    assert not hub.downloads(GGUF_NAME)


def test_a_disk_that_fills_mid_download_is_one_line_and_leaves_nothing_usable(models_dir: Path) -> None:
    process = pull_process(f"hf:{GGUF_REPO}/{GGUF_NAME}", limit_bytes=200_000)
    err = process.communicate(timeout=120)[1]
    assert process.returncode == 1, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1].startswith("error: pull failed: File too large") and "Traceback" not in err
    assert nothing_usable(models_dir)


# -- interrupted, resumed, and two at once --------------------------------------------------
def test_an_interrupted_pull_resumes_where_it_stopped(models_dir: Path, hub: StandinHub) -> None:
    """The bytes are written as they arrive: a 12 MiB file that stops after 11 leaves 11."""
    big, written = os.urandom(12 * 2**20), 11 * 2**20
    hub.repos[GGUF_REPO].files[GGUF_NAME] = big
    hub.repos[GGUF_REPO].stall_after[GGUF_NAME] = written
    part = models_dir / STAGING / "tiny-chat-q4_k_m" / Repo({}).commit / f"{GGUF_NAME}.part"
    first = pull_process(f"hf:{GGUF_REPO}/{GGUF_NAME}")
    wait_for(lambda: part.is_file() and part.stat().st_size >= written, first)
    os.killpg(first.pid, signal.SIGINT)  # Ctrl-C reaches the command and its download process
    _, err = first.communicate(timeout=60)
    assert first.returncode == 130 and "run the same command again to resume" in err and "Traceback" not in err, err
    assert nothing_usable(models_dir) and part.stat().st_size == written
    second = pull_process(f"hf:{GGUF_REPO}/{GGUF_NAME}")
    out, err = second.communicate(timeout=120)
    assert second.returncode == 0, err
    assert "11.5 MB of it already here from an interrupted pull" in out
    assert [r.range for r in hub.downloads(GGUF_NAME)] == [None, f"bytes={written}-"]
    assert (models_dir / "tiny-chat-q4_k_m" / GGUF_NAME).read_bytes() == big


def test_two_pulls_of_one_model_at_once_download_it_once(models_dir: Path, hub: StandinHub) -> None:
    hub.delay_per_chunk = 0.02  # the first download takes long enough for the second to wait
    runs = [pull_process(f"hf:{GGUF_REPO}/{GGUF_NAME}") for _ in range(2)]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    said = "".join(out for out, _ in outputs)
    assert "pulled tiny-chat-q4_k_m" in said and "already here" in said
    assert len(hub.downloads(GGUF_NAME)) == 1
    assert (models_dir / "tiny-chat-q4_k_m" / GGUF_NAME).read_bytes() == WEIGHTS



# -- removing -------------------------------------------------------------------------------
def test_rm_removes_a_pulled_model_and_its_name_then_asks_for_a_pull(
        models_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    source = f"hf:{GGUF_REPO}/{GGUF_NAME}"
    assert pull(capsys, monkeypatch, source, "--yes")[0] == 0
    code, out, _ = run_main(["models", "rm", source], capsys, monkeypatch)
    assert code == 0 and "removed tiny-chat-q4_k_m (0.6 MB)" in out
    assert not (models_dir / "tiny-chat-q4_k_m").exists() and list_pulled(models_dir) == []
    code, _, err = run_main(["ask", "--model", "tiny-chat-q4_k_m", "hello"], capsys, monkeypatch)
    assert code == 1 and "local-agent models pull" in error_line(err)
    code, _, err = run_main(["models", "rm", "tiny-chat-q4_k_m"], capsys, monkeypatch)
    assert code == 1 and "no pulled model" in error_line(err)
