"""`memory import-chats`: both sides dated, facts from the user's messages, a digest per
session, nothing added by a second import, bad lines named and skipped with exit 1."""

import json

from local_agent.config import Settings
from local_agent.memory.index.gguf_embedder import memory_embedder
from local_agent.memory.store import MemoryStore
from tests.cli_helpers import error_line, run_main
from tests.fakes import ScriptedBackend

BULLETS = '{"bullets": ["The user talked about moving to Porto"]}'


def _line(session, role, content, date):
    return json.dumps({"session": session, "role": role, "content": content, "date": date})


HISTORY = "\n".join([
    _line("spring", "user", "I live in Lisbon.", "2024-03-01T10:00"),
    _line("spring", "assistant", "Lisbon is lovely. Try the pastries in Belem.", "2024-03-01T10:01"),
    _line("spring", "user", "I like hiking.", "2024-03-01T10:02"),
    _line("spring", "user", "Any book for the weekend?", "2024-03-01T10:03"),
    _line("spring", "assistant", "Read The Hobbit by Tolkien.", "2024-03-01T10:04"),
    _line("summer", "user", "I moved to Porto.", "2024-06-10T09:00"),
    _line("summer", "assistant", "Porto is great for walks.", "2024-06-10T09:01"),
]) + "\n"


def _records(data_dir):
    with MemoryStore.open(data_dir, memory_embedder(Settings().models_dir)) as store:
        return store.records(kind=None)


def test_import_is_dated_idempotent_and_follows_message_dates(tmp_path, capsys, monkeypatch):
    source = tmp_path / "history.jsonl"
    source.write_text(HISTORY, encoding="utf-8")
    args = ["memory", "import-chats", str(source), "--data-dir", str(tmp_path / "d"), "--json"]
    dry_code, dry_out, _ = run_main([*args, "--dry-run"], capsys, monkeypatch, backend=ScriptedBackend(default=BULLETS))
    assert dry_code == 0 and json.loads(dry_out)["turns"] == 7 and json.loads(dry_out)["dry_run"]
    code, out, _ = run_main(args, capsys, monkeypatch, backend=ScriptedBackend(default=BULLETS))
    counts = json.loads(out)
    assert code == 0 and counts["messages"] == 7 and counts["skipped_existing"] == 0 and counts["digests"] == 1
    records = _records(tmp_path / "d")
    turns = [r for r in records if r.kind == "turn"]
    assert {r.provenance.role for r in turns} == {"user", "assistant"}
    hobbit = next(r for r in turns if "Hobbit" in r.text)
    assert hobbit.provenance.date == "2024-03-01T10:04" and hobbit.provenance.role == "assistant"
    facts = {r.text for r in records if r.kind == "fact" and r.active}
    assert "The user moved to Porto." in facts and "The user lives in Lisbon." not in facts
    (digest,) = [r for r in records if r.kind == "digest"]
    assert digest.provenance.date == "2024-03-01T10:00" and digest.provenance.until == "2024-03-01T10:04"
    again_code, again, _ = run_main(args, capsys, monkeypatch, backend=ScriptedBackend(default=BULLETS))
    assert again_code == 0 and json.loads(again)["skipped_existing"] == 7 and json.loads(again)["turns"] == 0
    assert len(_records(tmp_path / "d")) == len(records)


def test_an_older_history_never_replaces_a_newer_fact(tmp_path, capsys, monkeypatch):
    newer, older = tmp_path / "new.jsonl", tmp_path / "old.jsonl"
    newer.write_text(_line("b", "user", "I live in Porto.", "2024-06-01") + "\n", encoding="utf-8")
    older.write_text(_line("a", "user", "I live in Lisbon.", "2023-01-01") + "\n", encoding="utf-8")
    for path in (newer, older):
        code, _, _ = run_main(["memory", "import-chats", str(path), "--data-dir", str(tmp_path / "d"), "--no-digests"],
                              capsys, monkeypatch)
        assert code == 0
    facts = [r.text for r in _records(tmp_path / "d") if r.kind == "fact" and r.active]
    assert facts == ["The user lives in Porto."]


def test_bad_lines_are_named_skipped_and_exit_1(tmp_path, capsys, monkeypatch):
    source = tmp_path / "bad.jsonl"
    source.write_text("\n".join([
        _line("s", "user", "I have a dog.", "2024-01-01"),
        "{broken",
        _line("s", "robot", "beep", "2024-01-01"),
        _line("s", "user", "hello", "yesterday-ish"),
    ]) + "\n", encoding="utf-8")
    code, out, err = run_main(["memory", "import-chats", str(source), "--data-dir", str(tmp_path / "d"),
                               "--no-digests"], capsys, monkeypatch)
    assert code == 1
    named = [line.split(":")[0] for line in err.splitlines() if line.startswith("line ")]
    assert named == ["line 2", "line 3", "line 4"]
    assert "imported 1 messages" in out
    assert [r.text for r in _records(tmp_path / "d") if r.kind == "turn"] == ["I have a dog."]


def test_empty_or_missing_file_is_one_error(tmp_path, capsys, monkeypatch):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    for path in (empty, tmp_path / "missing.jsonl"):
        code, _, err = run_main(["memory", "import-chats", str(path), "--data-dir", str(tmp_path / "d")],
                                capsys, monkeypatch)
        assert code != 0 and str(path.name) in error_line(err)
