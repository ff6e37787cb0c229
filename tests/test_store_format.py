"""The store's format 2: a store written by version 1 is migrated, opening reads no record (the
columns file indexes the snapshot's lines), and the columns are only used while they match."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from local_agent.errors import StoreCorruptError
from local_agent.memory.index.state import MemoryState
from local_agent.memory.index.traits import ASSISTANT, TURN, USER, TraitColumns
from local_agent.memory.store import MemoryStore, doctor
from local_agent.memory.store import columns as columns_file
from local_agent.memory.store.columns import SavedColumns
from local_agent.memory.store.layout import StorePaths
from local_agent.memory.store.snapshot import SNAPSHOT_VERSION
from local_agent.types import MemoryDraft, MemoryRecord, Provenance

STORE_V1 = Path(__file__).parent / "data" / "store-v1"
STORE_COLUMNS3 = Path(__file__).parent / "data" / "store-columns3"  # columns format 3 (ee5a197)


def _copy_of_v1(target: Path, source: Path = STORE_V1) -> Path:
    """A committed store (version 1 by default), copied with the modes local-agent gives its files."""
    shutil.copytree(source, target)
    for folder, _, names in os.walk(target):
        os.chmod(folder, 0o700)
        for name in names:
            os.chmod(Path(folder) / name, 0o600)
    return target


def test_a_store_written_by_version_1_is_migrated(tmp_path: Path, embedder, caplog) -> None:
    data_dir = _copy_of_v1(tmp_path / "data")
    root = data_dir / "memory"
    original = (root / "memories.json").read_bytes()
    with MemoryStore.open(data_dir, embedder) as store:
        records = {record.text: record for record in store.records(include_inactive=True)}
        assert len(records) == 10
        cello = records["The user plays the cello."].provenance
        assert cello.seen == 3 and cello.last_seen == Provenance(session="s3", turn_index=1, role="user",
                                                                  source_text="cello again", date="2024-06-02T08:00")
        assert cello.extra == {"via": "memory add"}
        assert records["The user is allergic to peanuts."].provenance.seen == 2  # "2" in version 1
        digest = store.records(kind="digest")[0]
        assert digest.provenance.until == "2024-05-04T11:00" and digest.supersedes is not None
        imported = records["I went hiking in the Alps yesterday"].provenance
        assert imported.import_key == "chat-7:3:ab12cd" and imported.extra == {"via": "import-chats"}
        assert _keyed(store, ("user", "home city")).text == "The user lives in Porto."
        assert not records["The user lives in Lisbon."].active
        assert store.recall("what instrument do I play", k=1)[0].record.text == "The user plays the cello."
        assert store.touch(records["The user is allergic to peanuts."].id).provenance.seen == 3
    assert "rebuilding the vectors" not in caplog.text  # the vectors were reused
    snapshot = json.loads((root / "memories.json").read_text())
    assert snapshot["version"] == SNAPSHOT_VERSION and snapshot["columns"] == f"columns-{snapshot['generation']}.bin"
    assert (root / "memories.json.v1.bak").read_bytes() == original  # the old file kept, as for version 0
    assert json.loads((root / "journal.jsonl").read_text().splitlines()[0])["journal"] == 2
    with MemoryStore.open(data_dir, embedder) as again:
        assert isinstance(again._files.state.records.saved, SavedColumns)  # read through the columns now
        peanuts = next(r for r in again.records() if r.text.startswith("The user is allergic"))
        assert peanuts.provenance.seen == 3
    assert doctor(data_dir) == []


def _facts(count: int) -> list[MemoryDraft]:
    return [MemoryDraft(f"The user's friend number {n} is called Friend{n}.", "fact",
                        Provenance(session=f"s{n % 3}", date=f"2024-05-{1 + n % 28:02d}T10:00"),
                        key=("friend", f"number {n}") if n % 4 == 0 else None)
            for n in range(count)]


def _turns(session: str, count: int) -> list[MemoryDraft]:
    return [MemoryDraft(f"message {n} of {session} about gardening", "turn",
                        Provenance(session=session, turn_index=n, role="user", date=f"2024-06-{1 + n:02d}T09:00"))
            for n in range(count)]


def _keyed(store: MemoryStore, key: tuple[str, str]) -> MemoryRecord:
    found = store.find_by_key(key)
    assert found is not None
    return found


def _compacted(data_dir: Path, embedder) -> None:
    with MemoryStore.open(data_dir, embedder) as store:
        store.add_many(_facts(40) + _turns("garden", 5) + _turns("kitchen", 3))
        store.supersede(_keyed(store, ("friend", "number 4")).id, "The user's friend number 4 is Bo.")
        store.compact()


def test_opening_reads_no_record_and_reads_what_it_shows(data_dir: Path, embedder, monkeypatch) -> None:
    _compacted(data_dir, embedder)
    read: list[int] = []
    record = SavedColumns.record

    def counted(self: SavedColumns, row: int) -> MemoryRecord:
        read.append(row)
        return record(self, row)

    monkeypatch.setattr(SavedColumns, "record", counted)
    with MemoryStore.open(data_dir, embedder) as store:
        assert read == []
        assert store.stats()["by_kind"] == {"fact": 40, "turn": 8, "digest": 0} and read == []
        hits = store.recall("who is friend number 7", k=2)
        assert hits[0].record.text == "The user's friend number 7 is called Friend7."
        assert sorted(read) == sorted(store._files.state.row_of[hit.record.id] for hit in hits)  # the ranker's
        # candidates are weighed from the columns (index/traits.py): only the hits are read
        read.clear()
        assert store.get(hits[0].record.id[:6]).id == hits[0].record.id and len(read) == 1
        assert _keyed(store, ("Friend", "Number 4")).text == "The user's friend number 4 is Bo."


def test_a_reopened_store_answers_as_one_built_in_memory(data_dir: Path, embedder) -> None:
    _compacted(data_dir, embedder)
    with MemoryStore.open(data_dir, embedder) as store:
        store.add_many(_turns("garden", 7)[5:] + _turns("porch", 2))  # turns continuing a saved session
        store.touch(_keyed(store, ("friend", "number 8")).id, provenance=Provenance(session="s9"))
        state = store._files.state
        assert isinstance(state.records.saved, SavedColumns)
        records = list(state.records)
        built = MemoryState.build(records, state.dense.matrix(), state.next_seq, state.dense.dimension)
        for query in ("gardening message 6", "friend number 8", "porch"):
            vector = embedder.embed([query])[0]
            assert _recalled(state, query, vector) == _recalled(built, query, vector)
        row = len(records) - 3  # the seventh garden turn, whose context rows are saved ones
        assert np.array_equal(state.lexical._context[row], built.lexical._context[row])
        assert len(state.lexical._context[row]) == 2
        # the ranker's neighbours: the saved rows' from the columns, the new rows' as they came
        assert np.array_equal(state.before, built.before) and np.array_equal(state.after, built.after)
        assert state.before[row] == row - 1
        assert (state.before >= 0).sum() == 6 + 2 + 1  # garden: 7 turns, kitchen: 3, porch: 2
        for key in [("friend", "number 0"), ("friend", "number 4"), ("nobody", "at all")]:
            assert state.by_key(key) == built.by_key(key)
        assert [r.id for r in store.records(kind="turn")] == [r.id for r in records if r.kind == "turn"]
        assert sorted(state.row_of) == sorted(built.row_of)
        rows = np.arange(len(records))  # the ranker's traits: saved, changed (s9) and new rows alike
        saved, read = state.traits.of(records, rows), TraitColumns.of(records)
        for name in ("flags", "words", "speaker", "session"):
            assert np.array_equal(getattr(saved, name), getattr(read, name)), name


def test_a_store_with_format_3_columns_is_indexed_again_once(tmp_path: Path, embedder, caplog) -> None:
    data_dir = _copy_of_v1(tmp_path / "data", STORE_COLUMNS3)
    with MemoryStore.open(data_dir, embedder) as store:
        hits = store.recall("what did Melanie cook at the lake?", k=2)
        assert "Marshmallows and corn" in " ".join(hit.record.text for hit in hits)
    assert "columns-1.bin does not match memories.json: indexing the 9 memories" in caplog.text
    assert "rebuilding the vectors" not in caplog.text
    caplog.clear()
    with MemoryStore.open(data_dir, embedder) as store:
        state = store._files.state
        assert isinstance(state.records.saved, SavedColumns)
        records = list(state.records)
        saved, read = state.traits.of(records, np.arange(len(records))), TraitColumns.of(records)
        for name in ("flags", "words", "speaker", "session"):
            assert np.array_equal(getattr(saved, name), getattr(read, name)), name
        assert int(saved.has(USER).sum()) == 2 and int(saved.has(ASSISTANT).sum()) == 1
    assert caplog.text == ""


def test_columns_of_an_older_format_are_made_again(data_dir: Path, embedder, caplog,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as older:
        older.setattr(columns_file, "COLUMNS_FORMAT", 3)
        _compacted(data_dir, embedder)
    with MemoryStore.open(data_dir, embedder) as store:
        assert len(store.records()) == 48
    assert "does not match memories.json: indexing the 49 memories" in caplog.text
    caplog.clear()
    with MemoryStore.open(data_dir, embedder) as store:
        saved = store._files.state.records.saved
        assert isinstance(saved, SavedColumns) and saved.columns.meta["stamp"]["format"] == columns_file.COLUMNS_FORMAT
        assert int(saved.traits.has(TURN).sum()) == 8
    assert caplog.text == ""


def _recalled(state: MemoryState, query: str, vector: np.ndarray) -> list[tuple[str, float]]:
    from local_agent.memory.index.recall import hybrid_recall

    hits = hybrid_recall(state, query, vector, k=5, kinds=("fact", "turn"), min_score=-1.0)
    return [(hit.record.id, round(hit.score, 5)) for hit in hits]


def test_compaction_copies_the_lines_that_did_not_change(data_dir: Path, embedder) -> None:
    _compacted(data_dir, embedder)
    snapshot = StorePaths.for_data_dir(data_dir).snapshot
    before = _record_lines(snapshot)
    with MemoryStore.open(data_dir, embedder) as store:
        store.touch(_keyed(store, ("friend", "number 8")).id)
        store.add("The user plays the oboe.", "fact")
        store.compact()
    after = _record_lines(snapshot)
    changed = [line for line in after if line not in before]
    assert len(after) == len(before) + 1 and len(changed) == 2  # the touched fact and the new one
    assert "oboe" in changed[1] and '"seen": 2' in changed[0]


def _record_lines(snapshot: Path) -> list[str]:
    return [line.rstrip(",") for line in snapshot.read_text().splitlines() if line.startswith('    {"id"')]


def test_columns_missing_or_stale_are_written_again(data_dir: Path, embedder, caplog) -> None:
    _compacted(data_dir, embedder)
    paths = StorePaths.for_data_dir(data_dir)
    columns = next(paths.root.glob("columns-*.bin"))
    columns.unlink()
    with MemoryStore.open(data_dir, embedder) as store:
        assert len(store.records()) == 48
    assert f"{columns.name} is missing: indexing the 49 memories" in caplog.text and columns.is_file()
    caplog.clear()
    with MemoryStore.open(data_dir, embedder) as store:
        assert isinstance(store._files.state.records.saved, SavedColumns)
    assert caplog.text == ""
    # A snapshot edited by hand (its size changes): the columns no longer match, and the edit holds.
    text = paths.snapshot.read_text().replace("Friend7.", "Friend Seven.")
    paths.snapshot.write_text(text)
    with MemoryStore.open(data_dir, embedder) as store:
        assert store.recall("friend number 7", k=1)[0].record.text.endswith("Friend Seven.")
    assert "does not match memories.json" in caplog.text
    assert doctor(data_dir) == []


def test_a_snapshot_changed_at_the_same_size_is_damage_that_the_doctor_repairs(data_dir: Path, embedder) -> None:
    _compacted(data_dir, embedder)
    paths = StorePaths.for_data_dir(data_dir)
    paths.snapshot.write_text(paths.snapshot.read_text().replace("Friend7.", "Friend9."))
    edited = paths.snapshot.read_bytes()
    store = MemoryStore.open(data_dir, embedder)  # opening reads no record, so it opens
    with store, pytest.raises(StoreCorruptError, match=r"memories\.json.*record \d+ is not what columns-\d+\.bin"):
        store.recall("who is friend number 7", k=1)
    with MemoryStore.open(data_dir, embedder) as store, pytest.raises(StoreCorruptError):
        store.compact()  # never copies a line it cannot vouch for into a new snapshot
    assert paths.snapshot.read_bytes() == edited
    problems = doctor(data_dir)
    assert len(problems) == 1 and "columns-" in problems[0] and "does not hold what the snapshot holds" in problems[0]
    repaired = doctor(data_dir, repair=True)
    assert repaired[-1].endswith("written again from memories.json")
    assert doctor(data_dir) == []
    with MemoryStore.open(data_dir, embedder) as store:
        assert store.recall("who is friend number 7", k=1)[0].record.text.endswith("Friend9.")


def test_a_damaged_columns_file_is_not_used(data_dir: Path, embedder, caplog) -> None:
    _compacted(data_dir, embedder)
    paths = StorePaths.for_data_dir(data_dir)
    columns = next(paths.root.glob("columns-*.bin"))
    raw = bytearray(columns.read_bytes())
    first_id = json.loads(paths.snapshot.read_text())["records"][0]["id"]
    raw[raw.index(first_id.encode())] ^= 0x01  # in the ids column (a small file is checked whole at open)
    columns.write_bytes(bytes(raw))
    with MemoryStore.open(data_dir, embedder) as store:
        assert len(store.records()) == 48
    assert "fails its check" in caplog.text
    columns.write_bytes(bytes(raw[:-100]))
    caplog.clear()
    with MemoryStore.open(data_dir, embedder) as store:
        assert len(store.records()) == 48
    assert "truncated" in caplog.text
