"""The memory store on real files with the real embedder and FAISS: ids, persistence, journal
and compaction, crash leftovers, supersede/forget, several processes, locking, permissions,
format migration, vector rebuilds and the doctor."""

from __future__ import annotations

import gc
import json
import logging
import multiprocessing
import os
import shutil
import stat
import weakref
from collections.abc import Iterator
from pathlib import Path

import filelock
import numpy as np
import pytest

from local_agent.cli.notices import LOGGER, install_notice_printer
from local_agent.errors import InputError, NotFoundError, StoreBusyError, StoreCorruptError, StoreError
from local_agent.memory.index.embedder import Embedder, default_model_path
from local_agent.memory.store import MemoryStore, compaction, doctor, loading
from local_agent.memory.store.layout import StorePaths
from local_agent.memory.store.snapshot import SNAPSHOT_VERSION
from local_agent.types import MemoryDraft, Provenance

from .file_helpers import all_bytes

FACTS = [
    "User lives in Lisbon",
    "User's dog is called Biscuit",
    "User works as a nurse at the city hospital",
    "User is allergic to peanuts",
]


@pytest.fixture(autouse=True)
def printed_notices() -> Iterator[None]:
    """The store logs its notices; they are printed as the CLI prints them, where tests read them."""
    logger = logging.getLogger(LOGGER)
    before = list(logger.handlers)
    install_notice_printer()
    yield
    logger.handlers = before


def paths_of(data_dir: Path) -> StorePaths:
    return StorePaths.for_data_dir(data_dir)


def journal_lines(data_dir: Path) -> list[bytes]:
    return paths_of(data_dir).journal.read_bytes().splitlines()


def hit_ids(hits) -> list[str]:
    return [hit.record.id for hit in hits]


# -- ids and lookups -------------------------------------------------------------------------------


def test_add_get_and_unique_prefix(store: MemoryStore) -> None:
    record = store.add(FACTS[0], "fact", provenance=Provenance(source_text="I live in Lisbon"))
    assert len(record.id) == 10 and int(record.id, 16) >= 0
    assert store.get(record.id).text == FACTS[0]
    assert store.get(record.id[:4]).id == record.id
    with pytest.raises(NotFoundError):
        store.get(record.id[:3])  # too short to be a prefix
    with pytest.raises(NotFoundError):
        store.get("ffffffffff")


def test_ambiguous_prefix_is_not_found(store: MemoryStore) -> None:
    store.add("first", "fact", record_id="abcd000001")
    store.add("second", "fact", record_id="abcd000002")
    with pytest.raises(NotFoundError, match="matches 2"):
        store.get("abcd")
    assert store.get("abcd000002").text == "second"
    with pytest.raises(InputError):
        store.add("third", "fact", record_id="abcd000001")  # ids are unique


def test_same_inputs_give_same_ids_on_a_fresh_store(tmp_path: Path, embedder: Embedder) -> None:
    runs = []
    for name in ("a", "b"):
        with MemoryStore.open(tmp_path / name, embedder) as fresh:
            items = [MemoryDraft(text, "fact") for text in [*FACTS, FACTS[0]]]
            runs.append([record.id for record in fresh.add_many(items)])
    assert runs[0] == runs[1]
    assert len(set(runs[0])) == len(runs[0])  # the repeated text still gets its own id


def test_add_validates_its_input(store: MemoryStore) -> None:
    with pytest.raises(InputError):
        store.add("   ", "fact")
    with pytest.raises(InputError):
        store.add("text", "opinion")  # type: ignore[arg-type]
    with pytest.raises(InputError):
        store.add_many([{"text": "x", "kind": "fact", "colour": "red"}])  # type: ignore[list-item]
    with pytest.raises(InputError):
        store.add("text", "fact", key=("user", ""))
    assert store.records() == []


# -- persistence -----------------------------------------------------------------------------------


def test_reload_gives_identical_recall(data_dir: Path, embedder: Embedder) -> None:
    with MemoryStore.open(data_dir, embedder) as first:
        first.add_many([MemoryDraft(text, "fact") for text in FACTS])
        before = [(h.record.id, h.score) for h in first.recall("what is my dog's name?", k=3)]
    with MemoryStore.open(data_dir, embedder) as again:
        after = [(h.record.id, h.score) for h in again.recall("what is my dog's name?", k=3)]
    assert [i for i, _ in after] == [i for i, _ in before]
    assert np.allclose([s for _, s in after], [s for _, s in before], atol=1e-6)


def test_journal_holds_new_records_until_compaction(data_dir: Path, store: MemoryStore) -> None:
    paths = paths_of(data_dir)
    store.add_many([MemoryDraft(text, "fact") for text in FACTS])
    assert len(journal_lines(data_dir)) == 1 + len(FACTS)  # header + one line each
    assert not paths.snapshot.exists()

    store.compact()
    snapshot = json.loads(paths.snapshot.read_text())
    assert snapshot["version"] == SNAPSHOT_VERSION and len(snapshot["records"]) == len(FACTS)
    assert len(journal_lines(data_dir)) == 1  # only the header of the new generation
    assert (paths.root / snapshot["vectors"]["file"]).is_file()

    snapshot_before = paths.snapshot.read_bytes()
    store.add("User plays the cello", "fact")
    assert paths.snapshot.read_bytes() == snapshot_before  # one add does not rewrite the store
    assert len(journal_lines(data_dir)) == 2


def test_compaction_happens_on_its_own(data_dir: Path, store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compaction, "JOURNAL_MIN_OPS", 3)
    store.add_many([MemoryDraft(text, "fact") for text in FACTS[:2]])
    assert not paths_of(data_dir).snapshot.exists()
    store.add(FACTS[2], "fact")
    assert paths_of(data_dir).snapshot.exists()
    assert len(journal_lines(data_dir)) == 1


def test_torn_last_journal_line_is_skipped_and_reported(
    data_dir: Path, embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    with MemoryStore.open(data_dir, embedder) as first:
        first.add_many([MemoryDraft(text, "fact") for text in FACTS[:2]])
    journal = paths_of(data_dir).journal
    whole = journal.read_bytes()
    with open(journal, "ab") as handle:
        handle.write(b'{"op":"add","seq":2,"record":{"id":"1234567890","kind":"fa')  # crash mid-line
    with MemoryStore.open(data_dir, embedder) as reopened:
        assert [r.text for r in reopened.records()] == FACTS[:2]
        assert "torn last line" in capsys.readouterr().err
        reopened.add(FACTS[2], "fact")  # the torn bytes are cut before the next line
    assert journal.read_bytes().startswith(whole)
    with MemoryStore.open(data_dir, embedder) as last:
        assert [r.text for r in last.records()] == FACTS[:3]


def test_a_crash_anywhere_in_the_last_line_loses_only_that_record(data_dir: Path, embedder: Embedder,
                                                                  tmp_path: Path) -> None:
    with MemoryStore.open(data_dir, embedder) as first:
        first.add_many([MemoryDraft(text, "fact") for text in FACTS[:3]])
    journal = paths_of(data_dir).journal
    whole = journal.read_bytes()
    last_start = whole.rstrip(b"\n").rfind(b"\n") + 1
    for cut in range(last_start, len(whole) + 1, 97):
        copy = tmp_path / f"cut{cut}"
        shutil.copytree(data_dir, copy)
        paths_of(copy).journal.write_bytes(whole[:cut])
        with MemoryStore.open(copy, embedder) as opened:
            texts = [r.text for r in opened.records()]
        assert texts in (FACTS[:2], FACTS[:3])


def test_crash_during_compaction_leaves_a_usable_store(data_dir: Path, embedder: Embedder) -> None:
    paths = paths_of(data_dir)
    with MemoryStore.open(data_dir, embedder) as first:
        first.add_many([MemoryDraft(text, "fact") for text in FACTS])
        old_journal = paths.journal.read_bytes()
        first.compact()
    paths.journal.write_bytes(old_journal)  # crashed after the snapshot, before the journal reset
    (paths.root / "vectors-9.npy").write_bytes(b"half a vector file")  # and a stray file
    with MemoryStore.open(data_dir, embedder) as reopened:
        assert [r.text for r in reopened.records()] == FACTS  # the stale journal is not replayed
        reopened.add("User plays the cello", "fact")
    with MemoryStore.open(data_dir, embedder) as last:
        assert len(last.records()) == len(FACTS) + 1
        last.compact()
    assert not (paths.root / "vectors-9.npy").exists()  # leftovers go at the next compaction


def test_garbled_middle_journal_line_is_corruption(data_dir: Path, embedder: Embedder) -> None:
    with MemoryStore.open(data_dir, embedder) as first:
        first.add_many([MemoryDraft(text, "fact") for text in FACTS[:3]])
    journal = paths_of(data_dir).journal
    lines = journal.read_bytes().split(b"\n")
    lines[2] = b"{not json"
    journal.write_bytes(b"\n".join(lines))
    with pytest.raises(StoreCorruptError) as caught:
        MemoryStore.open(data_dir, embedder)
    assert str(journal) in str(caught.value) and "line 3" in str(caught.value)
    assert "local-agent memory doctor --repair" in str(caught.value)

    (problem,) = doctor(data_dir)
    assert problem.startswith(f"{journal}: line 3: not JSON")
    doctor(data_dir, repair=True, embedder=embedder)
    assert len(list(journal.parent.glob("journal.jsonl.corrupt-*"))) == 1
    with MemoryStore.open(data_dir, embedder) as repaired:
        assert [r.text for r in repaired.records()] == [FACTS[0], FACTS[2]]  # only the garbled line is lost


# -- supersede, touch, forget ----------------------------------------------------------------------


def test_supersede_keeps_the_old_record_out_of_recall(store: MemoryStore) -> None:
    old = store.add(FACTS[0], "fact", key=("user", "home city"))
    new = store.supersede(old.id, "User lives in Porto", provenance=Provenance(source_text="I moved to Porto"))
    assert new.supersedes == old.id and new.key == ("user", "home city")
    assert store.get(old.id).superseded_by == new.id and store.get(old.id).text == FACTS[0]
    found = store.find_by_key(("User", "Home City"))
    assert found is not None and found.id == new.id
    hits = store.recall("which city does the user live in?", k=5, min_score=-1.0)
    assert new.id in hit_ids(hits) and old.id not in hit_ids(hits)
    assert old.id not in [r.id for r in store.records()]
    assert old.id in [r.id for r in store.records(include_inactive=True)]
    with pytest.raises(InputError, match="already replaced"):
        store.supersede(old.id, "User lives in Faro")


def test_touch_refreshes_a_duplicate(store: MemoryStore) -> None:
    record = store.add(FACTS[1], "fact")
    touched = store.touch(record.id, provenance=Provenance(session="s2", source_text="Biscuit is my dog"))
    assert touched.updated >= record.updated and touched.text == record.text
    assert touched.provenance.seen == 2 and touched.provenance.last_seen == Provenance(session="s2",
                                                                                      source_text="Biscuit is my dog")
    assert store.get(record.id).provenance.seen == 2 and "seen" not in touched.provenance.extra


def test_forget_removes_the_text_from_every_file(data_dir: Path, store: MemoryStore) -> None:
    # eight digits: the store's binary files name checksums and offsets in decimal, where four
    # given digits turn up by chance (about one store in thirty), eight never in practice
    secret = 'My "bank" PIN is 47110815 — café'
    store.add_many([MemoryDraft(text, "fact") for text in FACTS])
    doomed = store.add(secret, "fact", provenance=Provenance(source_text=secret))
    store.compact()
    store.add("User plays the cello", "fact")  # so the journal is not empty either
    backup = paths_of(data_dir).root / "memories.json.corrupt-20240101T000000"
    backup.write_bytes(paths_of(data_dir).snapshot.read_bytes())  # a doctor backup holding it
    forms = [secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]]
    assert any(form.encode() in all_bytes(data_dir) for form in forms)  # it was on disk

    forgotten = store.forget(doomed.id[:6])

    assert forgotten.id == doomed.id
    everything = all_bytes(data_dir)
    for form in [*forms, "47110815"]:
        assert form.encode("utf-8") not in everything
    assert not backup.exists()
    assert doomed.id not in hit_ids(store.recall("what is my PIN?", k=10, min_score=-1.0))
    with pytest.raises(NotFoundError):
        store.get(doomed.id)
    assert len(store.records()) == len(FACTS) + 1


def test_forget_removes_the_versions_it_replaced(data_dir: Path, store: MemoryStore) -> None:
    old = store.add(FACTS[0], "fact", key=("user", "home city"))
    new = store.supersede(old.id, "User lives in Porto")
    store.forget(new.id)
    assert store.records(kind="fact", include_inactive=True) == []
    assert store.find_by_key(("user", "home city")) is None
    for path in data_dir.rglob("*"):
        if path.is_file():
            assert FACTS[0].encode() not in path.read_bytes(), path


def test_forgetting_an_old_version_keeps_the_current_one(store: MemoryStore) -> None:
    old = store.add(FACTS[0], "fact", key=("user", "home city"))
    new = store.supersede(old.id, "User lives in Porto")
    store.forget(old.id)
    current = store.get(new.id)
    assert current.active and current.supersedes is None


def test_forget_all_leaves_nothing(data_dir: Path, store: MemoryStore) -> None:
    store.add_many([MemoryDraft(text, "fact") for text in FACTS])
    store.compact()
    store.add("User plays the cello", "fact")
    store.forget_all()
    assert store.records(include_inactive=True) == []
    everything = all_bytes(data_dir)
    assert all(text.encode() not in everything for text in [*FACTS, "cello"])
    assert store.recall("dog", min_score=-1.0) == []
    store.add("a new beginning", "fact")
    assert [r.text for r in store.records()] == ["a new beginning"]


# -- several processes -----------------------------------------------------------------------------


def test_another_store_on_the_same_dir_sees_new_records_on_next_recall(data_dir: Path, embedder: Embedder) -> None:
    with MemoryStore.open(data_dir, embedder) as one, MemoryStore.open(data_dir, embedder) as two:
        record = one.add(FACTS[1], "fact")
        assert record.id in hit_ids(two.recall("dog's name", k=3))
        two.add(FACTS[0], "fact")
        two.compact()  # the other one must notice the new generation and reload
        one.add(FACTS[2], "fact")
        assert {r.text for r in two.records()} == set(FACTS[:3])
        assert {r.text for r in one.records()} == set(FACTS[:3])


def _add_in_another_process(data_dir: str, name: str, count: int, barrier, results) -> None:
    store = MemoryStore.open(Path(data_dir), Embedder())
    barrier.wait()
    for number in range(count):
        store.add(f"{name} fact number {number} about the garden", "fact")
    barrier.wait()  # both done: each must now see the other's records
    seen = {hit.record.text.split()[0] for hit in store.recall("fact about the garden", k=2 * count)}
    results[name] = (len(store.records()), sorted(seen))
    store.close()


@pytest.mark.slow
def test_two_processes_adding_at_once_lose_nothing(data_dir: Path, embedder: Embedder) -> None:
    MemoryStore.open(data_dir, embedder).close()
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager:
        barrier, results = manager.Barrier(2), manager.dict()
        workers = [context.Process(target=_add_in_another_process, args=(str(data_dir), name, 12, barrier, results))
                   for name in ("alpha", "beta")]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=300)
        assert all(worker.exitcode == 0 for worker in workers)
        outcome = dict(results)
    assert outcome["alpha"] == (24, ["alpha", "beta"]) and outcome["beta"] == (24, ["alpha", "beta"])
    with MemoryStore.open(data_dir, embedder) as after:
        records = after.records()
        assert len(records) == 24 and len({r.id for r in records}) == 24


def test_lock_not_obtained_in_time_is_store_busy(data_dir: Path, embedder: Embedder) -> None:
    store = MemoryStore.open(data_dir, embedder, lock_timeout=0.2)
    other_writer = filelock.FileLock(paths_of(data_dir).lock, thread_local=False)
    with other_writer:
        with pytest.raises(StoreBusyError, match="memory store is busy: another local-agent process is writing"):
            store.add(FACTS[0], "fact")
        assert store.recall("anything", min_score=-1.0) == []  # reading needs no lock
    store.add(FACTS[0], "fact")  # and once the other writer is done, writing works again
    store.close()


# -- files -----------------------------------------------------------------------------------------


def test_files_are_private_whatever_the_umask(data_dir: Path, embedder: Embedder, tmp_path: Path) -> None:
    old_umask = os.umask(0o000)
    try:
        with MemoryStore.open(data_dir, embedder) as opened:
            opened.add_many([MemoryDraft(text, "fact") for text in FACTS])
            opened.compact()
            opened.add("User plays the cello", "fact")
            opened.export(tmp_path / "export.json")
    finally:
        os.umask(old_umask)
    root = paths_of(data_dir).root
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    for path in root.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE((tmp_path / "export.json").stat().st_mode) == 0o600


def test_version_0_snapshot_is_migrated(data_dir: Path, embedder: Embedder, capsys: pytest.CaptureFixture[str]) -> None:
    root = paths_of(data_dir).root
    root.mkdir(parents=True)
    old = {
        "version": 0,
        "memories": [
            {"id": "0000aaaa11", "type": "fact", "text": "User lives in Lisbon", "timestamp": 1700000000.0,
             "source": {"session": "old"}},
            {"id": "0000bbbb22", "type": "turn", "text": "I adopted a cat named Pixel", "timestamp": 1700000100.0},
        ],
    }
    (root / "memories.json").write_text(json.dumps(old))
    with MemoryStore.open(data_dir, embedder) as opened:
        assert [r.id for r in opened.records()] == ["0000aaaa11", "0000bbbb22"]
        assert opened.get("0000aaaa11").provenance.to_dict() == {"session": "old"}
        assert opened.get("0000bbbb22").kind == "turn"
        assert "0000bbbb22" in hit_ids(opened.recall("cat's name", k=2))
    assert "rebuilding the vectors of 2 memories" in capsys.readouterr().err
    assert json.loads((root / "memories.json").read_text())["version"] == SNAPSHOT_VERSION
    assert json.loads((root / "memories.json.v0.bak").read_text()) == old


def test_snapshot_from_a_newer_version_is_refused(data_dir: Path, embedder: Embedder) -> None:
    root = paths_of(data_dir).root
    root.mkdir(parents=True)
    (root / "memories.json").write_text(json.dumps({"version": 99, "records": []}))
    with pytest.raises(StoreError, match="newer") as caught:
        MemoryStore.open(data_dir, embedder)
    assert not isinstance(caught.value, StoreCorruptError)


def _compacted_store(data_dir: Path, embedder: Embedder) -> tuple[list[str], Path]:
    with MemoryStore.open(data_dir, embedder) as first:
        first.add_many([MemoryDraft(text, "fact") for text in FACTS])
        first.compact()
        recalled = hit_ids(first.recall("dog's name", k=4))
    vectors = next(paths_of(data_dir).root.glob("vectors-*.npy"))
    return recalled, vectors


@pytest.mark.parametrize("damage", ["missing", "wrong shape", "flipped bytes"])
def test_unusable_vector_file_is_rebuilt_with_a_notice(
    damage: str, data_dir: Path, embedder: Embedder, capsys: pytest.CaptureFixture[str]
) -> None:
    recalled, vectors = _compacted_store(data_dir, embedder)
    if damage == "missing":
        vectors.unlink()
    elif damage == "wrong shape":
        np.save(vectors, np.zeros((2, 384), dtype=np.float32))
    else:
        raw = bytearray(vectors.read_bytes())
        raw[-5] ^= 0xFF
        vectors.write_bytes(bytes(raw))
    with MemoryStore.open(data_dir, embedder) as reopened:
        assert hit_ids(reopened.recall("dog's name", k=4)) == recalled
    assert "rebuilding the vectors of 4 memories" in capsys.readouterr().err
    with MemoryStore.open(data_dir, embedder):
        assert "rebuilding" not in capsys.readouterr().err  # the rebuilt vectors were saved


def test_changing_the_embedding_model_re_embeds(data_dir: Path, embedder: Embedder,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    _compacted_store(data_dir, embedder)
    other = Embedder(model_path=default_model_path())  # named by its folder: another model id
    assert other.model_id != embedder.model_id
    with MemoryStore.open(data_dir, other) as reopened:
        assert reopened.stats()["embedding"].startswith(other.model_id)
        assert len(reopened.recall("dog's name", k=4)) > 0
    assert "vectors were made by" in capsys.readouterr().err
    snapshot = json.loads(paths_of(data_dir).snapshot.read_text())
    assert snapshot["vectors"]["embedding_id"].startswith(other.model_id)


# -- doctor ----------------------------------------------------------------------------------------


def test_doctor_finds_nothing_wrong_with_a_healthy_store(data_dir: Path, embedder: Embedder) -> None:
    _compacted_store(data_dir, embedder)
    with MemoryStore.open(data_dir, embedder) as opened:
        opened.add("User plays the cello", "fact")
    assert doctor(data_dir) == []


def test_doctor_names_a_garbled_snapshot_and_repair_keeps_the_damaged_copy(data_dir: Path, embedder: Embedder) -> None:
    _compacted_store(data_dir, embedder)
    with MemoryStore.open(data_dir, embedder) as opened:
        opened.add("User plays the cello", "fact")  # in the journal, not the snapshot
    snapshot = paths_of(data_dir).snapshot
    raw = snapshot.read_bytes()
    cut = raw.index(FACTS[2].encode())
    garbled = raw[:cut] + b"\x00\x00garbage" + raw[cut + 10:]
    snapshot.write_bytes(garbled)

    with pytest.raises(StoreCorruptError) as caught:
        MemoryStore.open(data_dir, embedder)
    assert str(snapshot) in str(caught.value) and "doctor --repair" in str(caught.value)

    problems = doctor(data_dir)
    assert len(problems) == 1 and problems[0].startswith(str(snapshot)) and "not valid JSON" in problems[0]

    report = doctor(data_dir, repair=True, embedder=embedder)
    kept = list(snapshot.parent.glob("memories.json.corrupt-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == garbled
    assert any("recovered 3 records" in line for line in report)
    with MemoryStore.open(data_dir, embedder) as repaired:
        texts = {r.text for r in repaired.records()}
    assert texts == {FACTS[0], FACTS[1], FACTS[3], "User plays the cello"}
    assert doctor(data_dir) == []

    snapshot.write_bytes(b"{}")  # a second repair keeps its own copy, never overwriting the first
    doctor(data_dir, repair=True, embedder=embedder)
    assert len(list(snapshot.parent.glob("memories.json.corrupt-*"))) == 2


# -- export and import -----------------------------------------------------------------------------


def test_export_then_import_into_another_store(store: MemoryStore, tmp_path: Path, embedder: Embedder) -> None:
    old = store.add(FACTS[0], "fact", key=("user", "home city"), provenance=Provenance(session="s1"))
    store.supersede(old.id, "User lives in Porto")
    store.add(FACTS[1], "fact")
    target = tmp_path / "memories-export.json"
    assert store.export(target) == 3
    with MemoryStore.open(tmp_path / "other", embedder) as other:
        assert other.import_file(target) == 3
        assert other.import_file(target) == 0  # the same ids are not imported twice
        assert {r.text for r in other.records()} == {"User lives in Porto", FACTS[1]}
        assert other.get(old.id).provenance.to_dict() == {"session": "s1"} and not other.get(old.id).active
        found = other.find_by_key(("user", "home city"))
        assert found is not None and found.text == "User lives in Porto"


def test_import_with_refresh_takes_the_later_state_of_stored_records(store: MemoryStore, tmp_path: Path,
                                                                      embedder: Embedder) -> None:
    """What a copy of the store did since it was made comes back: the memories it added, a
    fact it superseded (the old version leaves recall) and one it was told again."""
    old = store.add(FACTS[0], "fact", key=("user", "home city"))
    said = store.add(FACTS[1], "fact")
    copy_file, changes = tmp_path / "copy.json", tmp_path / "changes.json"
    store.export(copy_file)
    with MemoryStore.open(tmp_path / "copy", embedder) as copy:
        copy.import_file(copy_file)
        new = copy.supersede(old.id, "User lives in Porto")
        copy.touch(said.id, provenance=Provenance(session="s2"))
        copy.export(changes)
        later = {record.id: record for record in copy.records(include_inactive=True)}
    assert store.import_file(changes) == 1  # without refresh: only the new record
    assert store.get(old.id).active
    assert store.import_file(changes, refresh=True) == 2  # the two changed records
    assert store.import_file(changes, refresh=True) == 0  # nothing changed since
    assert {record.id: record for record in store.records(include_inactive=True)} == later
    found = store.find_by_key(("user", "home city"))
    assert found is not None and found.id == new.id
    assert old.id not in {hit.record.id for hit in store.recall("Where does the user live?", min_score=-1.0)}


def test_import_with_refresh_refuses_another_text_under_a_stored_id(store: MemoryStore, tmp_path: Path) -> None:
    record = store.add(FACTS[0], "fact")
    other = tmp_path / "other.json"
    store.export(other)
    data = json.loads(other.read_text())
    data["records"][0]["text"] = "User lives in Porto"
    other.write_text(json.dumps(data))
    with pytest.raises(InputError, match="another text"):
        store.import_file(other, refresh=True)
    assert store.get(record.id).text == FACTS[0]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json at all", "not a JSON file"),
        ('{"format": "something else", "version": 1, "records": []}', "not a local-agent memory export"),
        ('{"format": "local-agent memory export", "version": 7, "records": []}', "version 7"),
        ('{"format": "local-agent memory export", "version": 1, "records": [{"id": "x", "kind": "fact"}]}',
         "record 1"),
        ('{"format": "local-agent memory export", "version": 1, "records": [{"id": "x", "kind": "mood", "text": "t"}]}',
         "kind"),
    ],
)
def test_import_rejects_bad_files(store: MemoryStore, tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(InputError, match=message):
        store.import_file(bad)
    assert store.records() == []


def test_stats_counts_records_and_files(store: MemoryStore) -> None:
    old = store.add(FACTS[0], "fact")
    store.supersede(old.id, "User lives in Porto")
    store.add("hello there", "turn", provenance=Provenance(session="s1", role="user"))
    stats = store.stats()
    assert (stats["records"], stats["active"], stats["superseded"]) == (3, 2, 1)
    assert stats["by_kind"]["fact"] == 1 and stats["by_kind"]["turn"] == 1
    assert stats["files"]["journal.jsonl"] > 0 and stats["bytes"] >= stats["files"]["journal.jsonl"]


def test_closed_store_refuses_work(data_dir: Path, embedder: Embedder) -> None:
    opened = MemoryStore.open(data_dir, embedder)
    opened.close()
    opened.close()
    with pytest.raises(StoreError, match="closed"):
        opened.records()


def test_a_large_store_is_frozen_out_of_the_collector_and_still_freed(
    data_dir: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    with MemoryStore.open(data_dir, embedder) as store:
        store.add_many([MemoryDraft(text=f"Lee keeps note {i} about the violin", kind="fact") for i in range(12)])
    monkeypatch.setattr(loading, "FREEZE_MIN_RECORDS", 13)
    gc.unfreeze()
    with MemoryStore.open(data_dir, embedder):
        assert gc.get_freeze_count() == 0  # a small store: nothing frozen
    monkeypatch.setattr(loading, "FREEZE_MIN_RECORDS", 12)
    try:
        store = MemoryStore.open(data_dir, embedder)
        assert gc.get_freeze_count() > 0
        record = weakref.ref(store._files.state.records[0])
        store.close()
        del store
        assert record() is None  # reference counting frees what the collector no longer walks
    finally:
        gc.unfreeze()


def test_open_ignores_a_temp_file_another_writer_renamed_meanwhile(data_dir, embedder, monkeypatch):
    """A process opening the store lists its folder while another writes atomically: a temp file
    listed and renamed before it is looked at failed the open ('No such file or directory',
    tests/test_concurrency.py under load)."""
    from local_agent.memory.store import MemoryStore

    MemoryStore.open(data_dir, embedder).close()
    real_iterdir = Path.iterdir

    def with_a_vanished_temp(self: Path):
        yield from real_iterdir(self)
        if self.name == "memory":
            yield self / ".journal.jsonl.gone1234.tmp"

    monkeypatch.setattr(Path, "iterdir", with_a_vanished_temp)
    MemoryStore.open(data_dir, embedder).close()
