"""A full disk or a read-only data dir: one clear line, a non-zero exit, and every memory
stored before still loads (the failed write leaves no trace)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import pytest

from local_agent.errors import StoreError
from local_agent.memory.store import MemoryStore, doctor

from .cli_helpers import error_line, run_main

FACTS = ["The user lives in Lisbon.", "The user's dog is called Biscuit.", "The user is allergic to peanuts."]


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 256 KiB tmpfs: the data dir lives on it."""
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount_point)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here ({done.stderr.strip() or 'mount failed'})")
    yield mount_point
    subprocess.run(["umount", "-l", str(mount_point)], check=False)


def _fill(folder: Path) -> Path:
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    failure = None
    try:
        while failure is None:
            try:
                os.write(fd, b"\0" * 512)
            except OSError as exc:
                failure = exc.errno
    finally:
        os.close(fd)
    assert failure == errno.ENOSPC
    return filler


def _texts(data_dir: Path, embedder) -> list[str]:
    with MemoryStore.open(data_dir, embedder) as store:
        return sorted(r.text for r in store.records())


def test_disk_full_through_the_cli(small_disk: Path, embedder, capsys, monkeypatch) -> None:
    data_dir = small_disk / "data"
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(data_dir))
    with MemoryStore.open(data_dir, embedder) as store:
        for fact in FACTS:
            store.add(fact, "fact")
    before = {p.name: p.read_bytes() for p in (data_dir / "memory").iterdir()}
    filler = _fill(small_disk)
    code, _, err = run_main(["memory", "add", "The user plays the cello. " * 40], capsys, monkeypatch)
    assert code == 1 and "No space left on device" in error_line(err)
    after = {p.name: p.read_bytes() for p in (data_dir / "memory").iterdir()}
    assert after == before  # no torn line, no temp file left behind
    code, out, err = run_main(["memory", "list", "--json"], capsys, monkeypatch)  # reading still works when full
    assert code == 0 and sorted(r["text"] for r in json.loads(out)) == sorted(FACTS)
    filler.unlink()
    assert _texts(data_dir, embedder) == sorted(FACTS) and doctor(data_dir) == []


def test_disk_full_during_compaction_keeps_the_old_generation(small_disk: Path, embedder) -> None:
    data_dir = small_disk / "data"
    store = MemoryStore.open(data_dir, embedder)
    for fact in FACTS:
        store.add(fact, "fact")
    filler = _fill(small_disk)
    with pytest.raises(StoreError, match="No space left"):
        store.compact()
    store.close()
    assert not [p for p in (data_dir / "memory").iterdir() if p.name.endswith(".tmp")]
    filler.unlink()
    assert _texts(data_dir, embedder) == sorted(FACTS) and doctor(data_dir) == []


@pytest.mark.parametrize("failing", ["write", "replace"])
def test_read_only_data_dir(isolated_dirs: Path, embedder, capsys, monkeypatch, failing: str) -> None:
    """As root, file modes do not stop writes: a read-only file system is injected as EROFS."""
    with MemoryStore.open(isolated_dirs, embedder) as store:
        for fact in FACTS:
            store.add(fact, "fact")
        store.compact()
        store.add("The user drinks green tea.", "fact")

    def read_only(*args, **kwargs):
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(os, failing, read_only)
    command = ["memory", "add", "The user plays the cello."]  # an append to the journal
    if failing == "replace":  # forget rewrites the snapshot: it must fail whole
        with MemoryStore.open(isolated_dirs, embedder) as store:
            command = ["memory", "forget", store.records()[0].id]
    code, _, err = run_main(command, capsys, monkeypatch)
    assert code == 1 and "Read-only file system" in error_line(err)
    monkeypatch.undo()
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(isolated_dirs))
    assert _texts(isolated_dirs, embedder) == sorted([*FACTS, "The user drinks green tea."])
    assert doctor(isolated_dirs) == []


def test_session_save_on_a_full_disk_is_one_line(small_disk: Path, capsys, monkeypatch) -> None:
    from tests.fakes import ScriptedBackend

    data_dir = small_disk / "data"
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(data_dir))
    backend = ScriptedBackend(default="Fine.")
    (data_dir / "sessions").mkdir(parents=True)
    _fill(small_disk)
    code, _, err = run_main(["ask", "--no-memory", "--session", "s1", "hello " * 5000], capsys, monkeypatch,
                            backend=backend)
    assert code == 1 and "No space left on device" in error_line(err)
