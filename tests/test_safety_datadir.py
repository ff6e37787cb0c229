"""Issue 11, items 1, 8, 9 and 10: local-agent touches only files it made in a data dir it
made, never claims a forget it did not do, can forget the message a fact came from, and
never writes through a link or leaves a file readable by others."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import threading
import time
from pathlib import Path

import pytest

from local_agent.memory.sessions import Session, SessionStore, Turn
from local_agent.memory.store import MemoryStore
from local_agent.types import Provenance

from .cli_helpers import error_line, run_main
from .file_helpers import all_bytes

PIN_MESSAGE = "My bank PIN is 73915208."
PIN = b"73915208"  # eight digits: four turn up by chance among the decimal checksums of the store's files


def _ok(args: list[str], capsys, monkeypatch, stdin: bytes | None = None, backend=None) -> tuple[str, str]:
    code, out, err = run_main(args, capsys, monkeypatch, stdin=stdin, backend=backend)
    assert code == 0, err
    return out, err


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def _records(capsys, monkeypatch, kind: str = "all") -> list[dict]:
    return json.loads(_ok(["memory", "list", "--kind", kind, "--json"], capsys, monkeypatch)[0])


def _user_turns(capsys, monkeypatch) -> list[dict]:
    """The turn memories of what the user said (the answers are turn memories too)."""
    return [r for r in _records(capsys, monkeypatch, "turn") if r["provenance"].get("role") == "user"]


def _use_data_dir(monkeypatch, path: Path) -> Path:
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(path))
    return path


# -- item 1: the data dir is ours, and only our files are deleted ---------------------------------


def test_item01_a_folder_holding_other_files_is_refused(tmp_path: Path, capsys, monkeypatch) -> None:
    folder = _use_data_dir(monkeypatch, tmp_path / "documents")
    (folder / "memory").mkdir(parents=True)
    (folder / "survey.txt").write_text("my survey answers")
    (folder / "memory" / "notes.txt").write_text("my own notes")
    before = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))

    code, _, err = run_main(["memory", "add", "The user likes tea."], capsys, monkeypatch)

    line = error_line(err)
    assert code == 1 and "not a local-agent data dir" in line and "survey.txt" in line
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) == before  # nothing added
    assert (folder / "survey.txt").read_text() == "my survey answers"
    assert run_main(["memory", "forget", "--all", "--yes"], capsys, monkeypatch)[0] == 1
    assert (folder / "memory" / "notes.txt").read_text() == "my own notes"


@pytest.mark.parametrize("exists", [True, False])
def test_item01_a_new_or_empty_folder_is_marked_as_ours(tmp_path: Path, capsys, monkeypatch, exists: bool) -> None:
    folder = _use_data_dir(monkeypatch, tmp_path / "fresh")
    if exists:
        folder.mkdir()
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    marker = folder / ".local-agent"
    assert json.loads(marker.read_text()) == {"format": "local-agent data dir", "version": 1}
    assert _mode(marker) == 0o600


def test_item01_forget_all_deletes_only_files_local_agent_made(isolated_dirs: Path, scripted, capsys,
                                                              monkeypatch) -> None:
    data = isolated_dirs
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    _ok(["ask", "--session", "s1", "I like green tea."], capsys, monkeypatch, backend=scripted)
    users = {
        data / "memory" / "survey.txt": "the user's survey",
        data / "memory" / "drafts" / "letter.txt": "a letter",
        data / "sessions" / "readme.txt": "read me",
        data / "sessions" / "archive" / "old.json": '{"mine": true}',
    }
    for path, text in users.items():
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)

    out, _ = _ok(["memory", "forget", "--all", "--yes"], capsys, monkeypatch)

    assert "all memory forgotten" in out
    assert {path: path.read_text() for path in users} == users
    assert not (data / "sessions" / "s1.json").exists()
    assert b"tea" not in b"".join(p.read_bytes() for p in data.rglob("*") if p.is_file() and p not in users)
    assert _records(capsys, monkeypatch) == []


def test_item01_forget_one_memory_keeps_a_user_file_that_holds_its_text(isolated_dirs: Path, capsys,
                                                                        monkeypatch) -> None:
    # A word, not digits: four digits turn up by chance in the store's hashes and timestamps.
    secret = "The user's locker code is quokkabrindle."
    ident = _ok(["memory", "add", secret], capsys, monkeypatch)[0].strip()
    memory = isolated_dirs / "memory"
    survey = memory / "survey.txt"
    survey.write_text(f"I wrote this myself: {secret}")
    backup = memory / "journal.jsonl.corrupt-20240101T000000"  # a copy doctor kept: ours
    backup.write_bytes((memory / "journal.jsonl").read_bytes())

    _, err = _ok(["memory", "forget", ident], capsys, monkeypatch)

    assert survey.read_text() == f"I wrote this myself: {secret}"
    assert "survey.txt" not in err
    assert not backup.exists()
    assert b"quokkabrindle" not in b"".join(p.read_bytes() for p in memory.iterdir() if p != survey)


def _earlier_data_dir(data: Path, scripted, capsys, monkeypatch) -> None:
    """A data dir as an earlier local-agent left it: memories, a session, no marker."""
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    _ok(["ask", "--session", "s1", "Hello there."], capsys, monkeypatch, backend=scripted)
    (data / "chat_history").write_text("hello\n")
    (data / ".local-agent").unlink(missing_ok=True)


def test_item01_a_data_dir_of_an_earlier_version_is_adopted(isolated_dirs: Path, scripted, capsys,
                                                           monkeypatch) -> None:
    _earlier_data_dir(isolated_dirs, scripted, capsys, monkeypatch)

    code, out, err = run_main(["memory", "list", "--json"], capsys, monkeypatch)

    assert code == 0 and [r["text"] for r in json.loads(out)] == ["The user likes tea."]
    assert (isolated_dirs / ".local-agent").is_file() and "made by an earlier version" in err
    assert _ok(["sessions", "--json"], capsys, monkeypatch)[0].count('"s1"') == 1


def test_issue23_a_folder_holding_only_caches_is_marked_as_new(isolated_dirs: Path, capsys, monkeypatch) -> None:
    """A machine that never ran local-agent, whose data folder got saved llama.cpp states (as the
    test suite once left there): nothing there is an earlier version's data."""
    states = isolated_dirs / "cache" / "llama-state"
    states.mkdir(parents=True)
    (states / ("a" * 64 + ".state")).write_bytes(b"state")

    code, _, err = run_main(["memory", "list"], capsys, monkeypatch)

    assert code == 0 and (isolated_dirs / ".local-agent").is_file()
    assert "as a new local-agent data dir" in err and "earlier version" not in err


@pytest.mark.parametrize("foreign", ["survey.txt", "memory/survey.txt", "memory/sub/x.txt", "sessions/notes.json"])
def test_item01_an_earlier_data_dir_holding_other_files_is_refused(isolated_dirs: Path, scripted, capsys,
                                                                   monkeypatch, foreign: str) -> None:
    _earlier_data_dir(isolated_dirs, scripted, capsys, monkeypatch)
    path = isolated_dirs / foreign
    path.parent.mkdir(exist_ok=True)
    path.write_text('{"not": "a session"}')

    code, _, err = run_main(["memory", "forget", "--all", "--yes"], capsys, monkeypatch)

    assert code == 1 and "not a local-agent data dir" in error_line(err)
    assert path.exists() and (isolated_dirs / "sessions" / "s1.json").exists()
    assert not (isolated_dirs / ".local-agent").exists()


def test_item01_a_marker_from_a_newer_version_is_refused(isolated_dirs: Path, capsys, monkeypatch) -> None:
    isolated_dirs.mkdir(parents=True)
    (isolated_dirs / ".local-agent").write_text(json.dumps({"format": "local-agent data dir", "version": 9}))
    code, _, err = run_main(["memory", "list"], capsys, monkeypatch)
    assert code == 1 and "newer local-agent" in error_line(err)


# -- item 8: forget --all never claims work it did not do ------------------------------------------


def test_item08_forget_all_with_a_linked_sessions_folder_fails_loudly(isolated_dirs: Path, tmp_path: Path, scripted,
                                                                      capsys, monkeypatch) -> None:
    _ok(["ask", "--session", "s1", "I like green tea."], capsys, monkeypatch, backend=scripted)
    elsewhere = tmp_path / "elsewhere"
    (isolated_dirs / "sessions").rename(elsewhere)
    (isolated_dirs / "sessions").symlink_to(elsewhere)

    code, out, err = run_main(["memory", "forget", "--all", "--yes"], capsys, monkeypatch)

    line = error_line(err)
    assert code == 1 and "symbolic link" in line and "sessions" in line
    assert "forgotten" not in out
    assert (elsewhere / "s1.json").exists()  # refused, and said so: the user can act on it


def test_item08_a_session_file_that_cannot_be_deleted_is_an_error(isolated_dirs: Path, scripted, capsys,
                                                                  monkeypatch) -> None:
    _ok(["ask", "--session", "s1", "I like green tea."], capsys, monkeypatch, backend=scripted)
    _ok(["ask", "--session", "s2", "I like black tea."], capsys, monkeypatch, backend=scripted)
    real_unlink = os.unlink

    def stuck(path, *args, **kwargs):
        if str(path).endswith("s1.json"):
            raise PermissionError(1, "Operation not permitted", str(path))
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", stuck)
    code, out, err = run_main(["memory", "forget", "--all", "--yes"], capsys, monkeypatch)

    assert code == 1 and "s1.json" in error_line(err)
    assert "forgotten" not in out
    assert not (isolated_dirs / "sessions" / "s2.json").exists()


# -- item 9: forgetting a fact can forget the message it came from ---------------------------------


def _pin_fact(capsys, monkeypatch, backend) -> dict:
    _ok(["ask", "--session", "bank", PIN_MESSAGE], capsys, monkeypatch, backend=backend)
    (fact,) = _records(capsys, monkeypatch, "fact")
    assert fact["provenance"]["source_text"] == PIN_MESSAGE
    return fact


def test_item09_forget_with_source_leaves_no_byte_of_the_message(isolated_dirs: Path, scripted, capsys,
                                                                monkeypatch) -> None:
    fact = _pin_fact(capsys, monkeypatch, backend=scripted)
    _ok(["ask", "--session", "bank", "And I like green tea."], capsys, monkeypatch, backend=scripted)
    history = isolated_dirs / "chat_history"  # what chat's line editing keeps of typed lines
    history.write_text(f"hello\n{PIN_MESSAGE}\n/exit\n")
    assert PIN in all_bytes(isolated_dirs)

    out, _ = _ok(["memory", "forget", fact["id"], "--with-source"], capsys, monkeypatch)

    assert "removed the message from session bank" in out
    hits = json.loads(_ok(["memory", "search", "bank PIN", "--json"], capsys, monkeypatch)[0])
    assert not [hit for hit in hits if "73915208" in json.dumps(hit)]
    assert PIN not in all_bytes(isolated_dirs)
    turns = SessionStore(isolated_dirs).load("bank").turns
    assert [turn.content for turn in turns if turn.role == "user"] == ["And I like green tea."]
    assert [r["text"] for r in _user_turns(capsys, monkeypatch)] == ["And I like green tea."]
    assert history.read_text() == "hello\n/exit\n"


def test_item09_plain_forget_says_the_message_is_still_stored(isolated_dirs: Path, scripted, capsys,
                                                              monkeypatch) -> None:
    fact = _pin_fact(capsys, monkeypatch, backend=scripted)

    _, err = _ok(["memory", "forget", fact["id"]], capsys, monkeypatch)

    assert "--with-source" in err and "still stored" in err
    (turn,) = _user_turns(capsys, monkeypatch)
    assert turn["text"] == PIN_MESSAGE and turn["id"] in err
    _ok(["memory", "forget", turn["id"], "--with-source"], capsys, monkeypatch)
    assert PIN not in all_bytes(isolated_dirs)


def test_item09_on_a_terminal_forget_offers_the_source(isolated_dirs: Path, scripted, capsys, monkeypatch) -> None:
    fact = _pin_fact(capsys, monkeypatch, backend=scripted)
    monkeypatch.setattr("local_agent.cli.memory.is_terminal", lambda: True, raising=False)

    out, _ = _ok(["memory", "forget", fact["id"]], capsys, monkeypatch, stdin=b"y\n")

    assert PIN_MESSAGE in out and "Forget that too?" in out
    assert PIN not in all_bytes(isolated_dirs)


def test_item09_memory_list_says_that_turns_are_stored(isolated_dirs: Path, scripted, capsys, monkeypatch) -> None:
    _ok(["ask", "--session", "s1", "What is the weather like?"], capsys, monkeypatch, backend=scripted)
    out, err = _ok(["memory", "list"], capsys, monkeypatch)
    assert "2 conversation turns are also stored" in err and "--kind turn" in err  # the message and its answer
    assert "weather" not in out


def test_item09_with_source_scrubs_the_message_from_other_facts(isolated_dirs: Path, embedder,
                                                               capsys, monkeypatch) -> None:
    message = "My name is Ada and my bank PIN is 73915208."
    where = Provenance(session="s1", turn_index=0, role="user", source_text=message)
    with MemoryStore.open(isolated_dirs, embedder) as store:
        store.add(message, "turn", provenance=where)
        pin = store.add("The user's bank PIN is 73915208.", "fact", provenance=where,
                        decision={"raw_json": '{"memories": ["The user\'s bank PIN is 73915208."]}'})
        name = store.add("The user's name is Ada.", "fact", provenance=where)
    sessions = SessionStore(isolated_dirs)
    sessions.save(Session(name="s1", turns=[Turn("user", message), Turn("assistant", "Noted: 73915208."),
                                            Turn("user", "Thanks."), Turn("assistant", "You're welcome.")],
                          summary="Ada told her bank PIN, 73915208.", summarized_upto=2))

    _ok(["memory", "forget", pin.id, "--with-source"], capsys, monkeypatch)

    assert [r["text"] for r in _records(capsys, monkeypatch)] == [name.text]
    assert PIN not in all_bytes(isolated_dirs)
    session = sessions.load("s1")
    assert [t.content for t in session.turns] == ["Thanks.", "You're welcome."]
    assert (session.summary, session.summarized_upto) == ("", 0)  # a summary may retell it


# -- item 10: no links, private modes, and doctor says when they are not so ------------------------


def test_item10_a_linked_journal_is_never_written_through(isolated_dirs: Path, tmp_path: Path, capsys,
                                                          monkeypatch) -> None:
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    journal = isolated_dirs / "memory" / "journal.jsonl"
    outside = tmp_path / "outside.jsonl"
    outside.write_bytes(journal.read_bytes())
    outside.chmod(0o644)
    journal.unlink()
    journal.symlink_to(outside)
    before = outside.read_bytes()

    code, _, err = run_main(["memory", "add", "The user's locker code is 5521."], capsys, monkeypatch)

    assert code == 1 and "symbolic link" in error_line(err)
    assert outside.read_bytes() == before and _mode(outside) == 0o644


def test_item10_a_fifo_in_the_store_is_refused_not_waited_on(isolated_dirs: Path, capsys, monkeypatch) -> None:
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    journal = isolated_dirs / "memory" / "journal.jsonl"
    journal.unlink()
    os.mkfifo(journal)
    # Were it opened, reading it would wait for a writer: this one comes late, so that a hang
    # fails the test instead of stopping the suite.
    threading.Thread(target=_write_late, args=(journal,), daemon=True).start()
    started = time.monotonic()

    code, _, err = run_main(["memory", "list"], capsys, monkeypatch)

    assert code == 1 and "not a regular file" in error_line(err)
    assert time.monotonic() - started < 10


def test_item10_a_fifo_named_as_a_session_is_refused_not_waited_on(isolated_dirs: Path, scripted, capsys,
                                                                    monkeypatch) -> None:
    _ok(["ask", "--session", "s1", "Hello."], capsys, monkeypatch, backend=scripted)
    session = isolated_dirs / "sessions" / "s1.json"
    session.unlink()
    os.mkfifo(session)
    threading.Thread(target=_write_late, args=(session,), daemon=True).start()
    started = time.monotonic()

    code, _, err = run_main(["ask", "--session", "s1", "Again."], capsys, monkeypatch, backend=scripted)

    assert code == 1 and "not a regular file" in error_line(err)
    assert time.monotonic() - started < 10


def _write_late(fifo: Path) -> None:
    time.sleep(15)
    with contextlib.suppress(OSError):  # ENXIO when no reader waits (the fix works): nothing to unblock
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


def test_item10_a_linked_lock_file_is_not_opened(isolated_dirs: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    lock = isolated_dirs / "memory" / "write.lock"
    precious = tmp_path / "precious.txt"
    precious.write_text("do not truncate me")
    lock.unlink()
    lock.symlink_to(precious)

    code, _, err = run_main(["memory", "add", "The user likes coffee."], capsys, monkeypatch)

    assert code == 1 and "symbolic link" in error_line(err)
    assert precious.read_text() == "do not truncate me"


def test_item10_a_linked_session_file_is_not_replaced(isolated_dirs: Path, tmp_path: Path, scripted, capsys,
                                                      monkeypatch) -> None:
    _ok(["ask", "--session", "s1", "Hello."], capsys, monkeypatch, backend=scripted)
    session = isolated_dirs / "sessions" / "s1.json"
    outside = tmp_path / "s1.json"
    outside.write_bytes(session.read_bytes())
    session.unlink()
    session.symlink_to(outside)

    code, _, err = run_main(["ask", "--session", "s1", PIN_MESSAGE], capsys, monkeypatch, backend=scripted)

    assert code == 1 and "symbolic link" in error_line(err)
    assert session.is_symlink() and PIN not in outside.read_bytes()


def test_item10_every_write_makes_the_file_private_again(isolated_dirs: Path, capsys, monkeypatch) -> None:
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    journal = isolated_dirs / "memory" / "journal.jsonl"
    journal.chmod(0o644)
    _ok(["memory", "add", "The user likes coffee."], capsys, monkeypatch)  # an append
    assert _mode(journal) == 0o600


def _doctor(capsys, monkeypatch, *extra: str) -> tuple[int, str]:
    code, out, err = run_main(["memory", "doctor", *extra], capsys, monkeypatch)
    assert "Traceback" not in err
    return code, out


def test_item10_doctor_reports_a_file_others_can_read(isolated_dirs: Path, capsys, monkeypatch) -> None:
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    assert _doctor(capsys, monkeypatch)[0] == 0
    journal = isolated_dirs / "memory" / "journal.jsonl"
    journal.chmod(0o644)

    code, out = _doctor(capsys, monkeypatch)
    assert code == 1 and f"{journal}: mode 644" in out

    _doctor(capsys, monkeypatch, "--repair")
    assert _mode(journal) == 0o600 and _doctor(capsys, monkeypatch)[0] == 0


def test_item10_doctor_reports_links(isolated_dirs: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    link = isolated_dirs / "memory" / "memories.json.v0.bak"
    link.symlink_to(tmp_path)
    code, out = _doctor(capsys, monkeypatch)
    assert code == 1 and f"{link}: a symbolic link" in out


def test_item10_doctor_reports_a_data_dir_others_can_write(isolated_dirs: Path, capsys, monkeypatch) -> None:
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    isolated_dirs.chmod(0o777)
    code, out = _doctor(capsys, monkeypatch)
    assert code == 1 and f"{isolated_dirs}: writable by group or others" in out


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_item10_doctor_reports_a_data_dir_owned_by_another_user(isolated_dirs: Path, capsys, monkeypatch) -> None:
    _ok(["memory", "add", "The user likes tea."], capsys, monkeypatch)
    os.chown(isolated_dirs, 4242, -1)
    code, out = _doctor(capsys, monkeypatch)
    assert code == 1 and f"{isolated_dirs}: owned by another user" in out


def test_item01_a_folder_another_process_marks_meanwhile_is_claimed(tmp_path: Path, monkeypatch) -> None:
    """Three `ask`s on a new data dir at once: one saw no marker, then listed the folder after
    another had written it, and refused the folder as holding a file it did not make
    (.local-agent)."""
    from local_agent.memory.store import datadir

    folder = tmp_path / "new"
    folder.mkdir()
    listing = datadir.foreign_entries

    def marked_meanwhile(data_dir: Path) -> list[str]:
        monkeypatch.setattr(datadir, "foreign_entries", listing)
        datadir.claim_data_dir(data_dir)  # the other process, between the check and the listing
        return listing(data_dir)

    monkeypatch.setattr(datadir, "foreign_entries", marked_meanwhile)
    assert datadir.claim_data_dir(folder) == folder
