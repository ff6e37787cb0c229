"""Damaged files through the CLI: opening names the file and what is wrong, the damaged file
is never overwritten, `memory doctor` reports it (exit 1), and `--repair` recovers what can be
recovered, keeping the damaged copy aside and rebuilding vectors from the text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from local_agent.errors import StoreCorruptError
from local_agent.memory.store import MemoryStore

from .cli_helpers import error_line, run_main

FACTS = ["The user lives in Lisbon.", "The user's dog is called Biscuit.", "The user is allergic to peanuts.",
         "The user works as a nurse.", "The user plays the cello."]


def _seed(data_dir: Path, embedder, compact: bool) -> Path:
    with MemoryStore.open(data_dir, embedder) as store:
        for fact in FACTS:
            store.add(fact, "fact")
        if compact:
            store.compact()
    return data_dir / "memory"


def _listed(capsys, monkeypatch) -> list[str]:
    code, out, err = run_main(["memory", "list", "--json"], capsys, monkeypatch)
    assert code == 0, err
    return sorted(r["text"] for r in json.loads(out))


def _check_refused_then_repaired(folder: Path, damaged: Path, capsys, monkeypatch) -> list[str]:
    before = damaged.read_bytes()
    code, _, err = run_main(["memory", "list"], capsys, monkeypatch)
    line = error_line(err)
    assert code == 1 and str(damaged) in line and "doctor --repair" in line
    assert damaged.read_bytes() == before  # never overwritten by opening
    code, out, _ = run_main(["memory", "doctor"], capsys, monkeypatch)
    assert code == 1 and str(damaged) in out
    assert damaged.read_bytes() == before
    code, out, err = run_main(["memory", "doctor", "--repair"], capsys, monkeypatch)
    assert code == 0, err
    kept = list(folder.glob(damaged.name + ".corrupt-*"))
    assert len(kept) == 1 and kept[0].read_bytes() == before  # the evidence stays
    assert run_main(["memory", "doctor"], capsys, monkeypatch)[0] == 0
    return _listed(capsys, monkeypatch)


def test_garbled_snapshot(isolated_dirs: Path, embedder, capsys, monkeypatch) -> None:
    folder = _seed(isolated_dirs, embedder, compact=True)
    snapshot = folder / "memories.json"
    lines = snapshot.read_bytes().split(b"\n")
    lines[-5] = b"    {\"id\": garbage here ###"  # one record line destroyed
    snapshot.write_bytes(b"\n".join(lines))
    recovered = _check_refused_then_repaired(folder, snapshot, capsys, monkeypatch)
    assert len(recovered) == len(FACTS) - 1 and set(recovered) < set(FACTS)


def test_truncated_snapshot(isolated_dirs: Path, embedder, capsys, monkeypatch) -> None:
    folder = _seed(isolated_dirs, embedder, compact=True)
    snapshot = folder / "memories.json"
    raw = snapshot.read_bytes()
    snapshot.write_bytes(raw[: len(raw) * 2 // 3])
    with pytest.raises(StoreCorruptError, match=r"memories\.json"):
        MemoryStore.open(isolated_dirs, embedder)
    recovered = _check_refused_then_repaired(folder, snapshot, capsys, monkeypatch)
    assert 1 <= len(recovered) < len(FACTS) and set(recovered) < set(FACTS)


def test_garbled_middle_journal_line(isolated_dirs: Path, embedder, capsys, monkeypatch) -> None:
    folder = _seed(isolated_dirs, embedder, compact=False)
    journal = folder / "journal.jsonl"
    lines = journal.read_bytes().split(b"\n")
    lines[2] = lines[2][:40] + b"\x00\xff garbled \xfe" + lines[2][60:]
    journal.write_bytes(b"\n".join(lines))
    recovered = _check_refused_then_repaired(folder, journal, capsys, monkeypatch)
    assert recovered == sorted(FACTS[:1] + FACTS[2:])  # every other line is recovered


@pytest.mark.parametrize("damage", ["truncated", "missing", "mismatched"])
def test_bad_vector_file_is_reported_and_rebuilt(isolated_dirs: Path, embedder, capsys, monkeypatch,
                                                 damage: str) -> None:
    folder = _seed(isolated_dirs, embedder, compact=True)
    vectors = next(folder.glob("vectors-*.npy"))
    raw = vectors.read_bytes()
    if damage == "truncated":
        vectors.write_bytes(raw[: len(raw) // 2])
    elif damage == "missing":
        vectors.unlink()
    else:
        vectors.write_bytes(raw[:-8] + b"\x00" * 8)  # right shape, wrong numbers
    code, out, _ = run_main(["memory", "doctor"], capsys, monkeypatch)
    assert code == 1 and vectors.name in out
    code, out, err = run_main(["memory", "doctor", "--repair"], capsys, monkeypatch)
    assert code == 0, err
    if damage != "missing":
        kept = list(folder.glob(vectors.name + ".corrupt-*"))
        assert len(kept) == 1
    assert run_main(["memory", "doctor"], capsys, monkeypatch)[0] == 0
    assert _listed(capsys, monkeypatch) == sorted(FACTS)
    code, out, _ = run_main(["memory", "search", "Where does the user live?", "--json"], capsys, monkeypatch)
    assert json.loads(out)[0]["text"] == FACTS[0]  # vectors rebuilt from the text


def test_opening_with_a_bad_vector_file_rebuilds_it_with_a_notice(isolated_dirs: Path, embedder,
                                                                   capsys, monkeypatch) -> None:
    folder = _seed(isolated_dirs, embedder, compact=True)
    vectors = next(folder.glob("vectors-*.npy"))
    vectors.write_bytes(vectors.read_bytes()[:100])
    code, out, err = run_main(["memory", "search", "dog name", "--json"], capsys, monkeypatch)
    assert code == 0 and vectors.name in err and "Traceback" not in err
    assert json.loads(out)[0]["text"] == FACTS[1]
    assert run_main(["memory", "doctor"], capsys, monkeypatch)[0] == 0


def test_damaged_session_file_is_a_one_line_error(isolated_dirs: Path, capsys, monkeypatch) -> None:
    sessions = isolated_dirs / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "s1.json").write_text('{"version": 1, "name": "s1", "turns": [tr')
    # Listing skips it with one warning (issue 11, item 12); opening it is a one-line error.
    code, _, err = run_main(["sessions"], capsys, monkeypatch)
    assert code == 0 and [line for line in err.splitlines() if "s1.json" in line] == err.splitlines()
    assert len(err.splitlines()) == 1 and err.startswith("warning: ")
    code, _, err = run_main(["ask", "--no-memory", "--session", "s1", "hello"], capsys, monkeypatch)
    assert code == 1 and "s1.json" in error_line(err)
    assert (sessions / "s1.json").read_text().endswith("[tr")
