"""Saved llama.cpp states of the system prompt (backends/llama_state.py): keyed by exactly what
shapes them, private, atomic, passed over when damaged; and the data dir's rules know their
folder: adopted as ours, checked by doctor, emptied by forget."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest

from local_agent.app import opened_memory
from local_agent.backends import llama_state
from local_agent.backends.llama_state import PrefixStates, delete_states, state_dir
from local_agent.config import Settings
from local_agent.errors import DataDirError
from local_agent.memory.store.datadir import claim_data_dir, foreign_entries
from local_agent.memory.store.privacy import data_dir_problems, repair_modes


def _states(folder: Path, **identity: object) -> PrefixStates:
    return PrefixStates(folder, {"model": "m:1:2", "n_ctx": 2048, "n_batch": 512, **identity})


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_a_state_is_keyed_by_its_exact_tokens_the_model_and_the_settings(tmp_path: Path):
    states = _states(tmp_path)
    assert states.key([1, 2, 3]) == _states(tmp_path).key([1, 2, 3])
    others = [states.key([1, 2, 4]), states.key([1, 2]), _states(tmp_path, n_ctx=4096).key([1, 2, 3]),
              _states(tmp_path, model="m:1:3").key([1, 2, 3]), _states(tmp_path, flash_attn=True).key([1, 2, 3])]
    assert states.key([1, 2, 3]) not in others and len(set(others)) == len(others)


def test_a_saved_state_reads_back_private_and_only_for_its_tokens(tmp_path: Path):
    states = _states(state_dir(tmp_path))
    states.write([1, 2, 3], b"kv cache bytes")
    assert states.read([1, 2, 3]) == b"kv cache bytes"
    assert states.read([1, 2, 3, 4]) is None and _states(state_dir(tmp_path), n_ctx=1).read([1, 2, 3]) is None
    assert _mode(states.path([1, 2, 3])) == 0o600
    assert _mode(state_dir(tmp_path)) == 0o700 and _mode(tmp_path / "cache") == 0o700
    assert llama_state.is_state_file(states.path([1, 2, 3]))


@pytest.mark.parametrize("damage", ["truncate", "flip", "empty", "other key", "folder", "link"])
def test_a_damaged_state_file_is_not_used(tmp_path: Path, damage: str):
    states = _states(tmp_path / "states")
    states.write([1, 2, 3], b"kv cache bytes" * 100)
    path = states.path([1, 2, 3])
    data = path.read_bytes()
    path.unlink()
    if damage == "truncate":
        path.write_bytes(data[:-10])
    elif damage == "flip":
        path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "other key":  # a whole file of another prefix, renamed onto this one
        states.write([9], b"kv cache bytes" * 100)
        states.path([9]).rename(path)
    elif damage == "folder":
        path.mkdir()
    else:
        (tmp_path / "elsewhere").write_bytes(data)
        path.symlink_to(tmp_path / "elsewhere")
    assert states.read([1, 2, 3]) is None


def test_a_state_that_cannot_be_saved_is_logged_not_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    class Context:  # what `save` reads of a llama-cpp-python Llama and its library
        ctx = None

    class Lib:
        @staticmethod
        def llama_state_get_size(ctx: object) -> int:
            return 4

        @staticmethod
        def llama_state_get_data(ctx: object, buffer: bytearray, size: int) -> int:
            return size

    states = _states(tmp_path / "states")
    states.folder.mkdir()
    states.path([1] * 20).symlink_to(tmp_path / "elsewhere")  # written through a link: refused
    with caplog.at_level(logging.DEBUG, logger="local_agent.backends.llama_state"):
        states.save(Lib, Context(), [1] * 20)
    assert "could not save" in caplog.text and not (tmp_path / "elsewhere").exists()


def test_only_the_newest_states_are_kept(tmp_path: Path):
    states = _states(tmp_path)
    for index in range(llama_state.KEEP + 3):
        states.write([index] * 20, b"state")
        os.utime(states.path([index] * 20), ns=(index * 10**9, index * 10**9))
    states.write([99] * 20, b"state")
    assert len(list(tmp_path.glob("*.state"))) == llama_state.KEEP and states.read([99] * 20) == b"state"
    assert states.read([0] * 20) is None  # the oldest went first


# -- the data dir's rules ------------------------------------------------------------------------------


def _data_dir_with_a_state(tmp_path: Path) -> tuple[Path, Path]:
    data_dir = claim_data_dir(tmp_path / "data")
    states = _states(state_dir(data_dir))
    states.write([1, 2, 3], b"the system prompt's kv cache")
    return data_dir, states.path([1, 2, 3])


def test_a_folder_holding_only_saved_states_is_adopted(tmp_path: Path):
    data_dir, _ = _data_dir_with_a_state(tmp_path)
    (data_dir / ".local-agent").unlink()  # as an earlier version left it
    assert foreign_entries(data_dir) == []
    claim_data_dir(data_dir)
    assert json.loads((data_dir / ".local-agent").read_text())["format"] == "local-agent data dir"


@pytest.mark.parametrize("name", ["cache/notes.txt", "cache/llama-state/notes.txt", "cache/llama-state/x.state"])
def test_other_files_in_the_cache_folder_are_foreign(tmp_path: Path, name: str):
    data_dir, _ = _data_dir_with_a_state(tmp_path)
    (data_dir / ".local-agent").unlink()
    (data_dir / name).write_text("mine")
    assert foreign_entries(data_dir) == [name]
    with pytest.raises(DataDirError, match="not a local-agent data dir"):
        claim_data_dir(data_dir)


def test_doctor_names_and_repairs_readable_states(tmp_path: Path):
    data_dir, state = _data_dir_with_a_state(tmp_path)
    assert data_dir_problems(data_dir) == []
    os.chmod(state, 0o644)
    os.chmod(state.parent, 0o755)
    os.chmod(data_dir / "cache", 0o755)
    problems = data_dir_problems(data_dir)
    assert len(problems) == 3 and all("others can read it" in line for line in problems)
    assert len(repair_modes(data_dir)) == 3
    assert (_mode(state), _mode(state.parent), _mode(data_dir / "cache")) == (0o600, 0o700, 0o700)
    assert data_dir_problems(data_dir) == []


def test_doctor_names_a_linked_state(tmp_path: Path):
    data_dir, state = _data_dir_with_a_state(tmp_path)
    state.unlink()
    state.symlink_to(tmp_path / "elsewhere")
    assert any("symbolic link" in line and state.name in line for line in data_dir_problems(data_dir))


def test_forget_all_deletes_the_saved_states(tmp_path: Path):
    data_dir, state = _data_dir_with_a_state(tmp_path)
    with opened_memory(Settings(data_dir=data_dir)) as memory:
        memory.forget_all()
    assert not state.exists() and not (data_dir / "cache").exists()
    assert b"kv cache" not in b"".join(p.read_bytes() for p in data_dir.rglob("*") if p.is_file())


def test_deleting_states_leaves_what_local_agent_did_not_make(tmp_path: Path):
    data_dir, state = _data_dir_with_a_state(tmp_path)
    (state.parent / "notes.txt").write_text("mine")
    delete_states(data_dir)
    assert not state.exists() and (state.parent / "notes.txt").read_text() == "mine"


def test_deleting_states_refuses_a_linked_cache(tmp_path: Path):
    data_dir = claim_data_dir(tmp_path / "data")
    elsewhere = state_dir(tmp_path / "elsewhere")
    _states(elsewhere).write([1, 2, 3], b"state")
    (data_dir / "cache").symlink_to(tmp_path / "elsewhere" / "cache")
    with pytest.raises(DataDirError, match="symbolic link"):
        delete_states(data_dir)
    assert len(list(elsewhere.iterdir())) == 1
