"""A hostile hub, pull record or registry cannot write, read or delete anything outside the
models folder: a decoy folder beside it survives every attack, and each is one line and a
non-zero exit (issue 44, item 1). A hub that drips bytes is given up on (item 4)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from local_agent.errors import ModelError
from local_agent.models import list_models, load_registry, resolve_model
from local_agent.models.derived import RECORD as RECORD_OF_DERIVED
from local_agent.models.derived import identity
from local_agent.models.hub_download import PROGRESS_BYTES, DownloadError, Watch
from local_agent.models.paths import UnsafeName, inside, safe_name
from local_agent.models.pulled import RECORD, STAGING, read_pulled
from tests.cli_helpers import error_line, run_main
from tests.hub_standin import StandinHub
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
)

GGUF_SOURCE = f"hf:{GGUF_REPO}/{GGUF_NAME}"


@pytest.fixture
def hub() -> Iterator[StandinHub]:
    served = serve_repos()
    yield served
    served.stop()


@pytest.fixture
def models_dir(tmp_path: Path, hub: StandinHub, monkeypatch: pytest.MonkeyPatch) -> Path:
    return point_at(hub, tmp_path, monkeypatch)


@pytest.fixture
def decoy(tmp_path: Path) -> Path:
    """A folder beside the models folder, with a file in it: nothing may touch it."""
    folder = tmp_path / "victim"
    folder.mkdir()
    (folder / "keep.txt").write_text("mine", encoding="utf-8")
    return folder


def untouched(decoy: Path) -> bool:
    return [p.name for p in decoy.iterdir()] == ["keep.txt"] and (decoy / "keep.txt").read_text() == "mine"


def escaping(decoy: Path) -> str:
    """A relative path from anywhere under /tmp to a file inside the decoy."""
    return "../" * 16 + str(decoy).lstrip("/") + "/x"


# -- the hub's answers ----------------------------------------------------------------------
@pytest.mark.parametrize("commit", ["escape", 12345, None, "0123456789ABCDEF0123456789ABCDEF01234567", "0" * 39])
def test_a_commit_id_that_is_not_40_hex_digits_is_refused_before_anything_is_written(
        commit: object, models_dir: Path, hub: StandinHub, decoy: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    hub.repos[GGUF_REPO].commit = escaping(decoy) if commit == "escape" else commit
    code, _, err = pull(capsys, monkeypatch, GGUF_SOURCE, "--yes")
    assert code == 1 and "commit id that is not 40 hexadecimal digits" in error_line(err)
    assert untouched(decoy) and nothing_usable(models_dir)
    assert not hub.downloads(GGUF_NAME) and not (models_dir / STAGING / "tiny-chat-q4_k_m").exists()


@pytest.mark.parametrize("name", ["..\\..\\evil.safetensors", "evil\x00.safetensors", "evil\n.safetensors"])
def test_a_file_name_with_a_backslash_or_control_character_is_refused(
        name: str, models_dir: Path, hub: StandinHub, decoy: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    hub.repos[FOLDER_REPO].files[name] = b"weights"
    code, _, err = pull(capsys, monkeypatch, f"hf:{FOLDER_REPO}", "--yes")
    assert code == 1 and "unsafe name" in error_line(err)
    assert untouched(decoy) and nothing_usable(models_dir)
    assert not [r for r in hub.log if "/resolve/" in r.path]


def test_file_names_that_climb_out_are_never_fetched(
        models_dir: Path, hub: StandinHub, decoy: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A folder pull takes top-level files only; a GGUF named by a registry entry is refused."""
    hub.repos[FOLDER_REPO].files[escaping(decoy) + ".safetensors"] = b"weights"
    code, _, err = pull(capsys, monkeypatch, f"hf:{FOLDER_REPO}", "--yes")
    assert code == 0, err
    climbing = "../victim/evil.gguf"
    hub.repos[GGUF_REPO].files[climbing] = WEIGHTS
    (models_dir / "registry.toml").write_text(
        f'[evil]\nformat = "gguf"\nfile = "{climbing}"\nsource = {{ hf = "{GGUF_REPO}" }}\n', encoding="utf-8")
    code, _, err = pull(capsys, monkeypatch, "evil", "--yes")
    assert code == 1 and "entry [evil]" in error_line(err)
    assert untouched(decoy) and not hub.downloads("evil.gguf")


@pytest.mark.parametrize("location", ["file:///{decoy}/keep.txt", "{hub}/../../{decoy}/x", "self"])
def test_a_redirect_anywhere_is_one_line_and_writes_nothing_outside(
        location: str, models_dir: Path, hub: StandinHub, decoy: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    address = f"/{GGUF_REPO}/resolve/{hub.repos[GGUF_REPO].commit}/{GGUF_NAME}"
    where = address if location == "self" else location.format(decoy=str(decoy).lstrip("/"), hub=hub.url)
    hub.repos[GGUF_REPO].redirect[GGUF_NAME] = where
    code, _, err = pull(capsys, monkeypatch, GGUF_SOURCE, "--yes")
    assert code == 1 and error_line(err).startswith("error: pull failed: ")
    assert untouched(decoy) and nothing_usable(models_dir)


# -- pull records ---------------------------------------------------------------------------
def hand_made_pull(models_dir: Path, name: str = "m", record_name: str = "m", file_name: str = "model.gguf",
                   fields: dict[str, object] | None = None) -> Path:
    """A pulled model's folder with a record as a hostile hand (or a damaged disk) left it."""
    folder = models_dir / name
    folder.mkdir(parents=True)
    (folder / "model.gguf").write_bytes(b"GGUF")
    record = {"version": 1, "name": record_name, "source": f"hf:o/{name}", "repo": f"o/{name}", "format": "gguf",
              "endpoint": "https://hub.example", "revision": "main", "commit": "c0ffee" * 6 + "abcd",
              "pulled_at": "2026-12-01T00:00:00+00:00", "license": "",
              "files": [{"name": file_name, "size": 4, "sha256": "0" * 64, "checked_against": "hub LFS sha256"}],
              **(fields or {})}
    (folder / RECORD).write_text(json.dumps(record), encoding="utf-8")
    return folder


@pytest.mark.parametrize("record_name", ["..", "../victim", "other", ""])
def test_rm_of_a_record_whose_name_is_not_its_folder_deletes_nothing(
        record_name: str, tmp_path: Path, decoy: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    models_dir = tmp_path / "models"
    monkeypatch.setenv("LOCAL_AGENT_MODELS_DIR", str(models_dir))
    hand_made_pull(models_dir, record_name=record_name)
    (models_dir / "keep.gguf").write_bytes(b"another model")
    code, _, err = run_main(["models", "rm", "m"], capsys, monkeypatch)
    assert code == 1 and "damaged" in error_line(err)
    assert untouched(decoy) and (models_dir / "keep.gguf").is_file() and (models_dir / "m" / "model.gguf").is_file()


@pytest.mark.parametrize("file_name", ["../../victim/keep.txt", "/etc/passwd", "a\\b.gguf", "./model.gguf", ""])
def test_a_record_naming_a_file_outside_its_folder_is_damaged(file_name: str, tmp_path: Path, decoy: Path) -> None:
    models_dir = tmp_path / "models"
    hand_made_pull(models_dir, file_name=file_name)
    with pytest.raises(ModelError, match="damaged"):
        read_pulled(models_dir / "m")
    with pytest.raises(ModelError):
        resolve_model("m", models_dir)
    assert [s.name for s in list_models(models_dir, check=True) if s.pulled] == []
    assert untouched(decoy)


@pytest.mark.parametrize("fields", [{"commit": 5}, {"endpoint": None}, {"format": "../x"}, {"files": []}])
def test_a_record_with_fields_of_the_wrong_type_is_left_out_of_the_list(fields: dict[str, object], tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    models_dir = tmp_path / "models"
    monkeypatch.setenv("LOCAL_AGENT_MODELS_DIR", str(models_dir))
    hand_made_pull(models_dir, fields=fields)
    code, out, err = run_main(["models"], capsys, monkeypatch)
    assert code == 0 and "Traceback" not in err and "\nm " not in out
    with pytest.raises(ModelError, match="damaged"):
        read_pulled(models_dir / "m")


# -- the registry ---------------------------------------------------------------------------
@pytest.mark.parametrize(("table", "field"), [
    ('["../victim"]\nformat = "gguf"\nfile = "x.gguf"\nsource = { hf = "o/r" }\n', "name"),
    ('["a/b"]\nformat = "gguf"\nfile = "x.gguf"\nsource = { hf = "o/r" }\n', "name"),
    ('[x]\nformat = "gguf"\nfile = "../victim/x.gguf"\nsource = { hf = "o/r" }\n', "file"),
    ('[x]\nformat = "gguf"\nfile = "/tmp/x.gguf"\nsha256 = "ab"\n', "file"),
    ('[x]\nformat = "gguf"\nfile = "x.gguf"\nsha256 = "ab"\nhf_folder = "../victim"\n', "hf_folder"),
    ('[x]\nformat = "gguf"\nfile = "x.gguf"\nsha256 = "ab"\nhf_folder = "a\\\\b"\n', "hf_folder"),
    ('[x]\nformat = "gguf"\nfile = "x.gguf"\nsha256 = "ab"\nhf_folder = 7\n', "hf_folder"),
    ('[x]\nformat = "gguf"\nfile = "x.gguf"\nsource = { hf = "o/r" }\npair = "../victim"\n', "pair"),
])
def test_a_registry_path_that_leaves_the_models_folder_is_refused(table: str, field: str, tmp_path: Path) -> None:
    (tmp_path / "registry.toml").write_text(table, encoding="utf-8")
    with pytest.raises(ModelError, match=f"unsafe {field}") as caught:
        load_registry(tmp_path)
    assert "\n" not in str(caught.value)


# -- the one helper -------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["..", "a/../../b", "/abs", "a//b", "a/./b", "a\\b", "", "x\x1b", 3, None])
def test_unsafe_names_are_refused(name: object) -> None:
    with pytest.raises(UnsafeName):
        safe_name(name)


def test_inside_follows_links_in_the_folders_but_not_the_last_name(tmp_path: Path, decoy: Path) -> None:
    root = tmp_path / "models"
    root.mkdir()
    (root / "out").symlink_to(decoy)
    (root / "file.gguf").symlink_to(decoy / "keep.txt")  # the user's own link to a model elsewhere
    assert inside(root, "a", "b.gguf") == root / "a" / "b.gguf" and safe_name("a/b.gguf") == "a/b.gguf"
    assert inside(root, "file.gguf") == root / "file.gguf"
    with pytest.raises(ModelError, match="leads outside"):
        inside(root, "out", "keep.txt")
    with pytest.raises(ModelError):
        inside(root, "..", "victim")


# -- a hub that drips -----------------------------------------------------------------------
def test_a_download_without_progress_fails_in_one_line_and_resumes_later(
        models_dir: Path, hub: StandinHub) -> None:
    hub.repos[GGUF_REPO].drip[GGUF_NAME] = 0.3  # the first 16 KiB, then a byte every 0.3 s
    stalled = pull_process(GGUF_SOURCE, env={"LOCAL_AGENT_PULL_STALL_TIMEOUT": "2"})
    try:
        _, err = stalled.communicate(timeout=60)
    finally:
        stalled.kill()
    assert stalled.returncode == 1 and "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert "no progress" in lines[-1] and "2 s" in lines[-1] and "run the same command again" in lines[-1]
    part = models_dir / STAGING / "tiny-chat-q4_k_m" / hub.repos[GGUF_REPO].commit / f"{GGUF_NAME}.part"
    here = part.stat().st_size
    assert 16 * 1024 <= here < len(WEIGHTS) and nothing_usable(models_dir)
    del hub.repos[GGUF_REPO].drip[GGUF_NAME]
    again = pull_process(GGUF_SOURCE)
    err = again.communicate(timeout=60)[1]
    assert again.returncode == 0, err
    assert [r.range for r in hub.downloads(GGUF_NAME)][-1] == f"bytes={here}-"
    assert (models_dir / "tiny-chat-q4_k_m" / GGUF_NAME).read_bytes() == WEIGHTS


# -- the transformers copy of a GGUF --------------------------------------------------------
def test_an_unrelated_folder_in_the_way_of_a_derived_copy_is_left_alone(default_gguf: Path, tmp_path: Path) -> None:
    """`--model x.gguf` derives its transformers copy into models/x-hf: a folder of that name
    that is not a model (someone else's) is named, never deleted."""
    from local_agent.models import ensure_hf_folder

    models_dir = tmp_path / "models"
    spec = resolve_model(str(default_gguf), models_dir)
    assert spec.hf_folder == models_dir / f"{default_gguf.stem}-hf"
    spec.hf_folder.mkdir(parents=True)
    (spec.hf_folder / "notes.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(ModelError, match="deletes nothing it did not make"):
        ensure_hf_folder(spec, notice=False)
    assert (spec.hf_folder / "notes.txt").read_text() == "mine"


def test_a_hub_that_goes_silent_mid_file_is_given_up_on_too(models_dir: Path, hub: StandinHub) -> None:
    hub.repos[GGUF_REPO].stall_after[GGUF_NAME] = 100_000  # then nothing, until the test ends
    stalled = pull_process(GGUF_SOURCE, env={"LOCAL_AGENT_PULL_STALL_TIMEOUT": "1.5"})
    try:
        _, err = stalled.communicate(timeout=60)
    finally:
        stalled.kill()
    assert stalled.returncode == 1 and "Traceback" not in err, err
    assert "no progress" in err.splitlines()[-1] and "1.5 s" in err.splitlines()[-1]
    part = models_dir / STAGING / "tiny-chat-q4_k_m" / hub.repos[GGUF_REPO].commit / f"{GGUF_NAME}.part"
    assert part.stat().st_size == 100_000


def test_progress_is_some_bytes_within_the_stall_time() -> None:
    now = [0.0]
    watch = Watch(10.0, "hub.example", clock=lambda: now[0])
    for _ in range(30):  # 16 KiB every 9 s: slow, but progress
        now[0] += 9.0
        watch.wrote(PROGRESS_BYTES)
    now[0] += 9.0
    watch.wrote(PROGRESS_BYTES - 1)
    now[0] += 1.5  # a byte short of 16 KiB in 10.5 s
    with pytest.raises(DownloadError, match=r"no progress from hub\.example for 10 s"):
        watch.wrote(0)


@pytest.mark.parametrize("value", ["0", "-1", "3601", "nan"])
def test_the_stall_time_is_a_checked_setting(value: str) -> None:
    from local_agent.config import load_settings
    from local_agent.errors import ConfigError

    assert load_settings(environ={"LOCAL_AGENT_PULL_STALL_TIMEOUT": "2.5"}).pull_stall_timeout == 2.5
    with pytest.raises(ConfigError, match="pull_stall_timeout"):
        load_settings(environ={"LOCAL_AGENT_PULL_STALL_TIMEOUT": value})


def test_rm_of_a_pulled_model_that_is_a_link_deletes_nothing_through_it(
        tmp_path: Path, decoy: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    models_dir = tmp_path / "models"
    monkeypatch.setenv("LOCAL_AGENT_MODELS_DIR", str(models_dir))
    elsewhere = hand_made_pull(tmp_path / "other-disk")
    models_dir.mkdir()
    (models_dir / "m").symlink_to(elsewhere)
    code, _, err = run_main(["models", "rm", "m"], capsys, monkeypatch)
    assert code == 1 and "is a link" in error_line(err)
    assert (elsewhere / "model.gguf").is_file() and (models_dir / "m").is_symlink() and untouched(decoy)


def test_a_gguf_given_as_a_file_never_takes_another_folder_of_its_name(default_gguf: Path, tmp_path: Path) -> None:
    """A complete model folder that happens to be called `<stem>-hf` (the copy of another GGUF
    with the same stem, or the user's own) is not loaded as this file's copy: the copy gets a
    name of its own. The folder made from this very file is taken, by its record."""
    models_dir = tmp_path / "models"
    plain = models_dir / f"{default_gguf.stem}-hf"
    plain.mkdir(parents=True)
    (plain / "config.json").write_text("{}", encoding="utf-8")
    (plain / "model.safetensors").write_bytes(b"another model")
    own = resolve_model(str(default_gguf), models_dir).hf_folder
    assert own is not None and own != plain and own.parent == models_dir and own.name.startswith(default_gguf.stem)
    assert resolve_model(str(default_gguf), models_dir).hf_folder == own  # the same name every time
    (plain / RECORD_OF_DERIVED).write_text(json.dumps(identity(default_gguf)), encoding="utf-8")
    assert resolve_model(str(default_gguf), models_dir).hf_folder == plain
