"""Issue 11, the record-safety items: exports never land in the store's own files and doctor
recovers from kept copies (5); timestamps out of range (11); deeply nested import files (13,
import half); records that cannot be managed (15); doctor on a data dir that is a file and
control characters in displayed memory text (17). Everything runs through the real CLI entry
point on real files with the real embedder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from local_agent.memory.index.render import dense_text, embedding_id
from local_agent.memory.index.state import MemoryState
from local_agent.memory.store import MemoryStore
from local_agent.memory.store.compaction import write_generation
from local_agent.memory.store.layout import StorePaths
from local_agent.memory.store.transfer import EXPORT_FORMAT, EXPORT_VERSION
from local_agent.types import MemoryDraft, MemoryRecord, Provenance

from .cli_helpers import error_line, run_main

FACTS = ["The user lives in Lisbon.", "The user's dog is called Biscuit.", "The user is allergic to peanuts.",
         "The user works as a nurse.", "The user plays the cello."]
STAMP = 1_700_000_000.0


def _seed(data_dir: Path, embedder, in_snapshot: int = 0) -> None:
    """FACTS in a store: the first `in_snapshot` of them folded into the snapshot, the rest
    only in the journal."""
    with MemoryStore.open(data_dir, embedder) as store:
        store.add_many([MemoryDraft(fact, "fact") for fact in FACTS[:in_snapshot]])
        if in_snapshot:
            store.compact()
        for fact in FACTS[in_snapshot:]:
            store.add(fact, "fact")


def _run(capsys, monkeypatch, *args: str) -> tuple[int, str, str]:
    return run_main(list(args), capsys, monkeypatch)


def _listed(capsys, monkeypatch) -> list[str]:
    code, out, err = _run(capsys, monkeypatch, "memory", "list", "--json", "--all-versions")
    assert code == 0, err
    return sorted(record["text"] for record in json.loads(out))


def _item(ident: str, text: str, **fields) -> dict:
    record = {"id": ident, "kind": "fact", "text": text, "created": STAMP, "updated": STAMP,
              "provenance": {}, "decision": {}, "key": None, "superseded_by": None, "supersedes": None}
    return {**record, **fields}


def _export_file(tmp_path: Path, records: list[dict], name: str = "import.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps({"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "exported_at": STAMP,
                                "embedding": "x", "records": records}))
    return path


def _write_store(data_dir: Path, embedder, records: list[MemoryRecord]) -> None:
    """A consistent store holding exactly `records`, as an older build could have left it."""
    paths = StorePaths.for_data_dir(data_dir)
    paths.create()
    vectors = embedder.embed([dense_text(record) for record in records])
    state = MemoryState.build(records, np.asarray(vectors), len(records), embedder.dimension)
    write_generation(paths, state, 1, embedding_id(embedder.model_id))


# -- item 5: exports never overwrite the store; doctor recovers from kept copies -----------------


@pytest.mark.parametrize("target", ["journal", "snapshot", "new file in memory", "session file",
                                    "relative", "dot-dot", "linked folder", "linked file"])
def test_item05_export_into_the_data_dirs_own_folders_is_refused(
        isolated_dirs: Path, tmp_path: Path, embedder, capsys, monkeypatch, target: str) -> None:
    _seed(isolated_dirs, embedder, in_snapshot=2)
    memory, sessions = isolated_dirs / "memory", isolated_dirs / "sessions"
    sessions.mkdir(mode=0o700)
    (sessions / "s1.json").write_text("{}")
    before = {path: path.read_bytes() for path in [*memory.iterdir(), sessions / "s1.json"]}
    if target == "relative":
        monkeypatch.chdir(memory)
    if target == "linked folder":
        (tmp_path / "link").symlink_to(memory)
    if target == "linked file":
        (tmp_path / "out.json").symlink_to(memory / "journal.jsonl")
    path = {"journal": memory / "journal.jsonl", "snapshot": memory / "memories.json",
            "new file in memory": memory / "export.json", "session file": sessions / "s1.json",
            "relative": "journal.jsonl", "dot-dot": isolated_dirs / "sessions" / ".." / "memory" / "journal.jsonl",
            "linked folder": tmp_path / "link" / "journal.jsonl", "linked file": tmp_path / "out.json"}[target]
    code, _, err = _run(capsys, monkeypatch, "memory", "export", str(path))
    assert code == 1 and "export" in error_line(err)
    assert {path: path.read_bytes() for path in before} == before
    assert not (memory / "export.json").exists()
    assert _listed(capsys, monkeypatch) == sorted(FACTS)
    code, _, err = _run(capsys, monkeypatch, "memory", "export", str(tmp_path / "fine.json"))
    assert code == 0, err  # anywhere else is fine


def _old_export_over_journal(data_dir: Path, tmp_path: Path, capsys, monkeypatch) -> Path:
    """What `memory export DATA/memory/journal.jsonl` did before the fix."""
    export = tmp_path / "whole.json"
    assert _run(capsys, monkeypatch, "memory", "export", str(export))[0] == 0
    journal = data_dir / "memory" / "journal.jsonl"
    journal.write_bytes(export.read_bytes())
    return journal


def test_item05_repair_recovers_the_records_of_an_export_written_over_the_journal(
        isolated_dirs: Path, tmp_path: Path, embedder, capsys, monkeypatch) -> None:
    _seed(isolated_dirs, embedder, in_snapshot=2)  # two in the snapshot, three only in the journal
    journal = _old_export_over_journal(isolated_dirs, tmp_path, capsys, monkeypatch)
    code, _, err = _run(capsys, monkeypatch, "memory", "list")
    assert code == 1 and str(journal) in error_line(err)
    code, _out, err = _run(capsys, monkeypatch, "memory", "doctor", "--repair")
    assert code == 0, err
    assert _listed(capsys, monkeypatch) == sorted(FACTS)
    assert _run(capsys, monkeypatch, "memory", "doctor")[0] == 0


@pytest.mark.parametrize("copy_of", ["export over the journal", "journal"])
def test_item05_repair_recovers_records_that_are_only_in_a_kept_copy(
        isolated_dirs: Path, tmp_path: Path, embedder, capsys, monkeypatch, copy_of: str) -> None:
    _seed(isolated_dirs, embedder, in_snapshot=2)
    memory = isolated_dirs / "memory"
    if copy_of == "journal":
        journal = memory / "journal.jsonl"
    else:
        journal = _old_export_over_journal(isolated_dirs, tmp_path, capsys, monkeypatch)
    kept = memory / "journal.jsonl.corrupt-20240101T000000"
    journal.rename(kept)  # a damaged journal moved aside: the store opens with the snapshot only
    assert _listed(capsys, monkeypatch) == sorted(FACTS[:2])
    code, out, _ = _run(capsys, monkeypatch, "memory", "doctor")
    assert code == 1 and kept.name in out
    code, out, err = _run(capsys, monkeypatch, "memory", "doctor", "--repair")
    assert code == 0 and kept.name in out, err
    assert _listed(capsys, monkeypatch) == sorted(FACTS)
    code, out, _ = _run(capsys, monkeypatch, "memory", "doctor")
    assert code == 0 and "healthy" in out  # recovered once, not again and again
    assert kept.is_file()  # the evidence stays


# -- item 11: timestamps out of range --------------------------------------------------------------


@pytest.mark.parametrize(("field", "raw"), [("created", "1e20"), ("created", "-1e13"), ("updated", "1e20"),
                                        ("updated", "-1"), ("created", "1" + "0" * 400)])
def test_item11_import_refuses_timestamps_out_of_range(
        isolated_dirs: Path, tmp_path: Path, capsys, monkeypatch, field: str, raw: str) -> None:
    path = _export_file(tmp_path, [_item("aaaa000001", "fine"), _item("aaaa000002", "bad", **{field: "BAD"})])
    path.write_text(path.read_text().replace('"BAD"', raw))
    code, _, err = _run(capsys, monkeypatch, "memory", "import", str(path))
    line = error_line(err)
    assert code == 1 and "record 2" in line and field in line
    assert _run(capsys, monkeypatch, "memory", "list", "--json")[1].strip() == "[]"


def _stored_with_bad_time(data_dir: Path, embedder, where: str) -> Path:
    """A store that an older build filled through import: one record's `created` is 1e20 and its `updated` -1e13."""
    _seed(data_dir, embedder, in_snapshot=len(FACTS) if where == "snapshot" else 2)
    memory = data_dir / "memory"
    path = memory / ("memories.json" if where == "snapshot" else "journal.jsonl")
    text = path.read_text()
    place = text.rindex(FACTS[-1])
    head, tail = text[:place], text[place:]
    tail = tail.replace('"created":', '"created": 1e20, "was":', 1)
    tail = tail.replace('"updated":', '"updated": -1e13, "was2":', 1)
    path.write_text(head + tail)
    return path


@pytest.mark.parametrize("where", ["snapshot", "journal"])
def test_item11_a_stored_time_out_of_range_is_found_and_repaired(
        isolated_dirs: Path, embedder, capsys, monkeypatch, where: str) -> None:
    path = _stored_with_bad_time(isolated_dirs, embedder, where)
    for command in (["list"], ["search", "cello"], ["list", "--json"]):
        code, _, err = _run(capsys, monkeypatch, "memory", *command)
        line = error_line(err)
        assert code == 1 and str(path) in line and "created" in line
    code, out, _ = _run(capsys, monkeypatch, "memory", "doctor")
    assert code == 1 and "created" in out
    code, out, err = _run(capsys, monkeypatch, "memory", "doctor", "--repair")
    assert code == 0 and "created" in out, err
    assert _listed(capsys, monkeypatch) == sorted(FACTS)  # fixed, not dropped
    code, out, err = _run(capsys, monkeypatch, "memory", "list")
    assert code == 0 and "Traceback" not in err
    assert _run(capsys, monkeypatch, "memory", "doctor")[0] == 0


# -- item 13 (import half): deeply nested JSON ----------------------------------------------------


@pytest.mark.parametrize("shape", ["nested records", "nested provenance", "deep but parseable", "huge number"])
def test_item13_import_of_deeply_nested_json_is_one_line_error(
        isolated_dirs: Path, tmp_path: Path, capsys, monkeypatch, shape: str) -> None:
    path = tmp_path / "deep.json"
    head = json.dumps({"format": EXPORT_FORMAT, "version": EXPORT_VERSION})[:-1]
    if shape == "nested records":
        path.write_text(head + ', "records": ' + "[" * 100_000 + "]" * 100_000 + "}")
    elif shape == "huge number":
        path.write_text(head + ', "records": [{"id": "aaaa000001", "kind": "fact", "text": "t", "created": '
                        + "9" * 5000 + "}]}")
    else:
        depth = 100_000 if shape == "nested provenance" else 200
        item = json.dumps(_item("aaaa000001", "deep"))[:-1]
        path.write_text(head + ', "records": [' + item + ', "decision": ' + '{"a": ' * depth + "1" + "}" * depth
                        + "}]}")
    code, _, err = _run(capsys, monkeypatch, "memory", "import", str(path))
    assert code == 1 and str(path) in error_line(err)
    assert _run(capsys, monkeypatch, "memory", "list", "--json")[1].strip() == "[]"


@pytest.mark.parametrize("name", ["memories.json", "journal.jsonl"])
def test_item13_a_deeply_nested_store_file_is_damage_not_a_traceback(
        isolated_dirs: Path, embedder, capsys, monkeypatch, name: str) -> None:
    _seed(isolated_dirs, embedder, in_snapshot=2)
    path = isolated_dirs / "memory" / name
    lines = path.read_bytes().split(b"\n")
    number = next(n for n, line in enumerate(lines) if FACTS[0].encode() in line or FACTS[2].encode() in line)
    comma = b"," if lines[number].endswith(b",") else b""
    lines[number] = b"[" * 100_000 + b"]" * 100_000 + comma  # a record or operation no more
    path.write_bytes(b"\n".join(lines))
    code, _, err = _run(capsys, monkeypatch, "memory", "list")
    assert code == 1 and str(path) in error_line(err)


# -- item 15: records that cannot be managed -------------------------------------------------------


@pytest.mark.parametrize("problem", ["id with a space", "id with an escape", "id like an option", "id too long",
                                     "dangling superseded_by", "self superseded", "cycle", "dangling supersedes",
                                     "fact over 2000"])
def test_item15_import_refuses_records_that_cannot_be_managed(
        isolated_dirs: Path, tmp_path: Path, capsys, monkeypatch, problem: str) -> None:
    good = _item("bbbb000001", "A fine memory.")
    bad = {
        "id with a space": [_item("my id", "x")],
        "id with an escape": [_item("ab\x1b[2Jcd", "x")],
        "id like an option": [_item("-abcd", "x")],
        "id too long": [_item("a" * 65, "x")],
        "dangling superseded_by": [_item("cccc000001", "x", superseded_by="nowhere000")],
        "self superseded": [_item("cccc000001", "x", superseded_by="cccc000001")],
        "cycle": [_item("cccc000001", "x", superseded_by="cccc000002"),
                  _item("cccc000002", "y", superseded_by="cccc000001")],
        "dangling supersedes": [_item("cccc000001", "x", supersedes="nowhere000")],
        "fact over 2000": [_item("cccc000001", "x" * 2001)],
    }[problem]
    path = _export_file(tmp_path, [good, *bad])
    code, _, err = _run(capsys, monkeypatch, "memory", "import", str(path))
    line = error_line(err)
    assert code == 1 and "record 2" in line
    assert _run(capsys, monkeypatch, "memory", "list", "--json")[1].strip() == "[]"


def test_item15_import_still_takes_long_turns_and_chains_into_the_store(
        isolated_dirs: Path, tmp_path: Path, embedder, capsys, monkeypatch) -> None:
    with MemoryStore.open(isolated_dirs, embedder) as store:
        old = store.add("The user lives in Lisbon.", "fact")
    long_turn = _item("dddd000001", "word " * 1000, kind="turn")
    newer = _item("dddd000002", "The user lives in Porto.", supersedes=old.id)
    older = _item("dddd000003", "The user lived in Faro.", superseded_by=old.id)
    path = _export_file(tmp_path, [long_turn, newer, older])
    code, out, err = _run(capsys, monkeypatch, "memory", "import", str(path))
    assert code == 0 and "imported 3" in out, err


def test_item15_the_store_takes_no_record_it_would_refuse_to_import(
        isolated_dirs: Path, embedder) -> None:
    from local_agent.errors import InputError

    with MemoryStore.open(isolated_dirs, embedder) as store:
        for ident in ("my id", "-abcd", "ab\x1bcd", "ABCD"):
            with pytest.raises(InputError, match="id"):
                store.add("A fine memory.", "fact", record_id=ident)
        with pytest.raises(InputError, match="2000"):
            store.add("x" * 2001, "fact")
        assert store.add("word " * 5000, "turn").kind == "turn"  # a turn is a whole message
        assert store.records(kind="fact") == []


def _unmanageable_records() -> list[MemoryRecord]:
    def record(ident: str, text: str, **fields) -> MemoryRecord:
        return MemoryRecord.from_dict(_item(ident, text, **fields))

    return [
        record("my id", "The user has a sister called Ana."),
        record("eeee000001", "The user owns a red bicycle.", superseded_by="nowhere000"),
        record("eeee000002", "The user likes tea.", superseded_by="eeee000003", updated=STAMP + 1),
        record("eeee000003", "The user likes coffee.", superseded_by="eeee000002", updated=STAMP + 2),
        record("eeee000004", "The user speaks Dutch.", supersedes="nowhere000"),
        record("eeee000005", "The user collects stamps. " + "More about stamps. " * 150),
        record("eeee000006", "The user was born in May."),
    ]


def test_item15_doctor_finds_and_repairs_records_that_cannot_be_managed(
        isolated_dirs: Path, embedder, capsys, monkeypatch) -> None:
    records = _unmanageable_records()
    _write_store(isolated_dirs, embedder, records)
    code, out, _ = _run(capsys, monkeypatch, "memory", "doctor")
    assert code == 1
    for ident in ["my id", "eeee000001", "eeee000002", "eeee000004", "eeee000005"]:
        assert ident in out, (ident, out)
    assert "eeee000006" not in out
    code, out, err = _run(capsys, monkeypatch, "memory", "doctor", "--repair")
    assert code == 0 and "my id" in out, err
    code, out, _ = _run(capsys, monkeypatch, "memory", "doctor")
    assert code == 0 and "healthy" in out, out
    code, out, _ = _run(capsys, monkeypatch, "memory", "list", "--json", "--all-versions")
    stored = {record["text"].split(".")[0]: record for record in json.loads(out)}
    assert len(stored) == len(records)  # nothing dropped
    for record in stored.values():  # every one can be shown by its id
        assert _run(capsys, monkeypatch, "memory", "show", record["id"])[0] == 0
    assert stored["The user owns a red bicycle"]["superseded_by"] is None
    circle = [stored["The user likes tea"], stored["The user likes coffee"]]
    assert [record["superseded_by"] for record in circle].count(None) == 1  # one current version
    assert stored["The user speaks Dutch"]["supersedes"] is None
    stamps = stored["The user collects stamps"]
    assert len(stamps["text"]) <= 2000 and stamps["provenance"]["full_text"] == records[5].text


# -- item 17: doctor on a data dir that is a file; control characters on the terminal -------------


@pytest.mark.parametrize("repair", [False, True])
def test_item17_doctor_on_a_data_dir_that_is_a_file_is_an_error(
        isolated_dirs: Path, capsys, monkeypatch, repair: bool) -> None:
    isolated_dirs.parent.mkdir(parents=True, exist_ok=True)
    isolated_dirs.write_text("not a folder")
    code, out, err = _run(capsys, monkeypatch, "memory", "doctor", *(["--repair"] if repair else []))
    assert code == 1 and str(isolated_dirs) in error_line(err) and "healthy" not in out
    assert isolated_dirs.read_text() == "not a folder"


NASTY = "Pay rent \x1b[2J\x1b]0;owned\x07 on the 1st\nsecond line\r\x9b31m \u202eevil\x7f tab\there"


def test_item17_control_characters_in_memory_text_are_escaped_on_the_terminal(
        isolated_dirs: Path, embedder, capsys, monkeypatch) -> None:
    with MemoryStore.open(isolated_dirs, embedder) as store:
        record = store.add(NASTY, "fact", provenance=Provenance(source_text=NASTY), key=("user", "rent\x1b[0m"))
    for command in (["list"], ["search", "pay rent"], ["show", record.id]):
        code, out, err = _run(capsys, monkeypatch, "memory", *command)
        assert code == 0, err
        assert not any(ch in out for ch in "\x1b\x07\r\x9b\u202e\x7f\t"), (command, out)
        assert "\\x1b[2J" in out and "\\u202e" in out and "Pay rent" in out
        assert "second line" in out and "\nsecond line" not in out  # one memory, one line
    code, out, _ = _run(capsys, monkeypatch, "memory", "list", "--json")
    assert code == 0 and json.loads(out)[0]["text"] == NASTY  # --json stays exact
    code, out, _ = _run(capsys, monkeypatch, "memory", "show", record.id, "--json")
    assert json.loads(out)["provenance"]["source_text"] == NASTY


@pytest.mark.parametrize("name", [".local-agent", "epoch", "sessions.lock", "chat_history"])
def test_item05_export_over_the_data_dirs_own_top_files_is_refused(isolated_dirs, name):
    from local_agent.errors import InputError
    from local_agent.memory.store.transfer import refuse_store_folders

    isolated_dirs.mkdir(parents=True, exist_ok=True)
    with pytest.raises(InputError, match="keeps its own"):
        refuse_store_folders(isolated_dirs / name, isolated_dirs)
    refuse_store_folders(isolated_dirs.parent / name, isolated_dirs)  # elsewhere: fine
