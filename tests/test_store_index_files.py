"""The persisted lexical index (lexical-<gen>.bin): reopening uses it and recalls exactly what a
rebuilt index recalls; a stale, truncated or missing file is rebuilt, never trusted; forget
leaves none of the forgotten words in any file."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from typing import Any

import faiss
import numpy as np
import pytest

from local_agent.memory.index import vectors
from local_agent.memory.index.approx import Approximate, stored_codes
from local_agent.memory.index.embedder import Embedder
from local_agent.memory.index.vectors import DenseIndex
from local_agent.memory.store import MemoryStore, approx_file
from local_agent.memory.store.layout import StorePaths, is_own_file
from local_agent.types import MemoryDraft, Provenance

from .file_helpers import all_bytes

QUERIES = ["what pet does Maria have", "where did Sam travel in spring", "favourite food", "row 17 violin"]
SUBJECTS = ["Maria", "Sam", "Lee", "Ana", "Tom", "Kai"]
THINGS = ["a cat named Pixel", "Lisbon in spring", "spicy ramen", "the violin", "a red bicycle", "chess on Sundays"]


def _facts(count: int, start: int = 0) -> list[MemoryDraft]:
    return [MemoryDraft(text=f"{SUBJECTS[i % 6]} likes {THINGS[(i * 5) % 6]} (note {i}, row {i % 41})", kind="fact")
            for i in range(start, start + count)]


def _recalled(store: MemoryStore) -> list[list[tuple[str, float, float]]]:
    return [[(hit.record.id, round(hit.lexical, 6), round(hit.score, 6)) for hit in store.recall(query, k=8)]
            for query in QUERIES]


def _lexical_files(data_dir: Path) -> list[Path]:
    return sorted(StorePaths.for_data_dir(data_dir).root.glob("lexical-*.bin"))


def _build(data_dir: Path, embedder: Embedder, count: int, tail: int) -> None:
    with MemoryStore.open(data_dir, embedder) as store:
        store.add_many(_facts(count))
        store.compact()
        store.add_many(_facts(tail, start=count))  # the journal's tail, indexed in memory only


@pytest.mark.parametrize("count", [40, 300])  # a delta-only index, and a main segment
def test_reopened_index_recalls_what_a_rebuilt_one_does(
    data_dir: Path, embedder: Embedder, count: int, caplog: pytest.LogCaptureFixture
) -> None:
    _build(data_dir, embedder, count, tail=7)
    [saved] = _lexical_files(data_dir)
    with caplog.at_level(logging.WARNING), MemoryStore.open(data_dir, embedder) as store:
        from_file = _recalled(store)
    assert not [r for r in caplog.records if "lexical" in r.getMessage()]
    saved.unlink()
    with caplog.at_level(logging.WARNING), MemoryStore.open(data_dir, embedder) as store:
        rebuilt = _recalled(store)
    assert [r.getMessage() for r in caplog.records if "lexical" in r.getMessage()] == [
        f"{saved.name} is missing: rebuilding the lexical index of {count} memories"]
    assert from_file == rebuilt
    assert any(hits for hits in rebuilt) and any(lex > 0 for hits in rebuilt for _, lex, _ in hits)
    assert _lexical_files(data_dir) == [saved]  # saved again for the next open


def test_truncated_index_is_rebuilt(data_dir: Path, embedder: Embedder, caplog: pytest.LogCaptureFixture) -> None:
    _build(data_dir, embedder, 60, tail=3)
    with MemoryStore.open(data_dir, embedder) as store:
        expected = _recalled(store)
    [saved] = _lexical_files(data_dir)
    saved.write_bytes(saved.read_bytes()[: saved.stat().st_size // 2])
    with caplog.at_level(logging.WARNING), MemoryStore.open(data_dir, embedder) as store:
        assert _recalled(store) == expected
    assert any("cannot be read" in r.getMessage() for r in caplog.records)
    with MemoryStore.open(data_dir, embedder) as store:  # the rewritten file is whole again
        assert _recalled(store) == expected


def test_index_of_another_snapshot_is_not_trusted(
    tmp_path: Path, data_dir: Path, embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    _build(data_dir, embedder, 50, tail=0)
    other = tmp_path / "other"
    _build(other, embedder, 51, tail=0)  # same generation, one record more
    with MemoryStore.open(data_dir, embedder) as store:
        expected = _recalled(store)
    [mine], [theirs] = _lexical_files(data_dir), _lexical_files(other)
    shutil.copyfile(theirs, mine)
    with caplog.at_level(logging.WARNING), MemoryStore.open(data_dir, embedder) as store:
        assert _recalled(store) == expected
    assert any("does not match the snapshot" in r.getMessage() for r in caplog.records)


def test_journal_growth_and_compaction_by_another_process(data_dir: Path, embedder: Embedder) -> None:
    _build(data_dir, embedder, 50, tail=2)
    with MemoryStore.open(data_dir, embedder) as reader, MemoryStore.open(data_dir, embedder) as writer:
        writer.add_many(_facts(5, start=52))
        writer.compact()
        writer.add_many(_facts(3, start=57))
        seen = _recalled(reader)  # caught up through a full reload
    assert _lexical_files(data_dir) == [StorePaths.for_data_dir(data_dir).lexical(2)]  # gen 1's is gone
    for path in _lexical_files(data_dir):
        path.unlink()
    with MemoryStore.open(data_dir, embedder) as store:
        assert _recalled(store) == seen


def test_forget_leaves_no_word_in_any_index_file(data_dir: Path, embedder: Embedder) -> None:
    with MemoryStore.open(data_dir, embedder) as store:
        store.add_many(_facts(30))
        secret = store.add("Maria's locker code is quokkabrindle", "fact")
        store.compact()
        assert b"quokkabrindl" in b"".join(p.read_bytes() for p in _lexical_files(data_dir))
        store.forget(secret.id)
        assert _lexical_files(data_dir)
        assert b"quokkabrindl" not in all_bytes(data_dir)
        store.add("Tom's password hint is zebrafrangible", "fact")
        store.compact()
        store.forget_all()
    assert not _lexical_files(data_dir)
    assert b"zebrafrangib" not in all_bytes(data_dir)


def _clustered(rows: int, dimension: int, seed: int) -> np.ndarray:
    """Unit vectors around 40 centres: closer to real embeddings than uniform noise."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(40, dimension))
    points = centres[rng.integers(0, 40, rows)] + rng.normal(scale=0.6, size=(rows, dimension))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def test_hnsw_agrees_with_exact_search() -> None:
    dense = DenseIndex(64)
    vectors = _clustered(4000, 64, seed=1)
    dense.add(vectors, ["fact"] * len(vectors), [True] * len(vectors))
    queries = _clustered(100, 64, seed=2)
    dense.build_approximate()
    dense.add(_clustered(200, 64, seed=3), ["fact"] * 200, [True] * 200)  # appended to the exact tail
    allowed = dense.allowed(("fact",))
    exact = [set(dense.search(q, 10, allowed, exact=True)[0].tolist()) for q in queries]
    approx = [dense.search(q, 10, allowed)[0].tolist() for q in queries]
    agreement = np.mean([len(e & set(a)) / 10 for e, a in zip(exact, approx)])
    assert agreement >= 0.9
    assert any(row >= 4000 for rows in approx for row in rows)  # the tail is searched too
    rows, cosines = dense.search(queries[0], 10, allowed)  # the graph's float16 vectors only find the rows
    assert np.allclose(cosines, dense.vectors(rows) @ queries[0].astype(np.float32), rtol=0, atol=1e-6)
    narrow = allowed.copy()
    narrow[100:] = False  # a narrow filter: exact search answers
    assert set(dense.search(queries[0], 10, narrow)[0].tolist()) <= set(range(100))


def test_the_graph_is_linked_with_float32_vectors_and_keeps_float16_ones() -> None:
    import faiss

    from local_agent.memory.index.approx import HNSW_EF_CONSTRUCTION, HNSW_NEIGHBOURS, build_graph

    vectors = _clustered(3000, 32, seed=4)
    threads = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)  # (one thread: the same links each time)
    try:
        graph = build_graph([vectors[:1000], vectors[1000:]], 32)
        linked = faiss.IndexHNSWFlat(32, HNSW_NEIGHBOURS, faiss.METRIC_INNER_PRODUCT)
        linked.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        linked.add(vectors[:1000])
        linked.add(vectors[1000:])
    finally:
        faiss.omp_set_num_threads(threads)
    assert isinstance(graph, faiss.IndexHNSWSQ) and graph.ntotal == 3000
    np.testing.assert_array_equal(faiss.vector_to_array(graph.hnsw.neighbors),
                                  faiss.vector_to_array(linked.hnsw.neighbors))
    storage = faiss.downcast_index(graph.storage)
    assert storage.sq.qtype == faiss.ScalarQuantizer.QT_fp16
    np.testing.assert_allclose(storage.reconstruct_n(0, 3000), vectors, atol=1e-3)
    _, found = graph.search(vectors[:5], 1)
    assert found[:, 0].tolist() == [0, 1, 2, 3, 4]


def test_large_store_keeps_its_hnsw_index_in_step(
    data_dir: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(vectors, "APPROX_MIN_ROWS", 20)
    paths = StorePaths.for_data_dir(data_dir)
    _build(data_dir, embedder, 30, tail=2)
    assert paths.approx(1).is_file()
    real_read = approx_file._read_graph
    read: list[Path] = []

    def counted_read(path: Path, graph_bytes: int, map_rows: int) -> tuple[Any, np.ndarray | None]:
        read.append(path)
        return real_read(path, graph_bytes, map_rows)

    monkeypatch.setattr(approx_file, "_read_graph", counted_read)
    with caplog.at_level(logging.WARNING), MemoryStore.open(data_dir, embedder) as store:
        assert store._files.state.dense.approximate and not read  # opening reads none of the graph
        assert store.stats()["records"] == 32 and store.get(store.records()[0].id) and not read
        store.add("Kai plays the violin in row 17", "fact")  # an append (to the exact tail)
        hits = _recalled(store)
        assert len(read) == 1 and len(store._files.state.dense) == 33
        approx = store._files.state.dense.approximate_index
        assert approx is not None and len(approx.tail) == 3  # the rows it lacked when it was read
    assert not [r for r in caplog.records if "hnsw" in r.getMessage()]
    paths.approx(1).unlink()
    with caplog.at_level(logging.WARNING), MemoryStore.open(data_dir, embedder) as store:
        assert [hit[0] for hit in _recalled(store)[0]] == [hit[0] for hit in hits[0]]
        secret = store.add("the vault opens with quokkabrindle", "fact")
        store.forget(secret.id)
    assert any("hnsw-1.faiss is missing" in r.getMessage() for r in caplog.records)
    assert [p.name for p in sorted(paths.root.glob("hnsw-*"))] == ["hnsw-3.faiss"]  # rebuilt at open, then forget


def test_index_files_are_known_as_ours(tmp_path: Path) -> None:
    names = ["lexical-3.npz", "hnsw-12.npz", "hnsw-5.faiss", ".lexical-3.npz.k2j4_x.tmp", ".hnsw-4.faiss.abcd.tmp"]
    for name in [*names, "lexical-x.npz", "hnsw-3.npy"]:
        (tmp_path / name).write_bytes(b"")
    assert sorted(p.name for p in tmp_path.iterdir() if is_own_file(p)) == sorted(names)


def _vector_of(store: MemoryStore, record_id: str) -> bytes:
    state = store._files.state
    return state.dense.vectors([state.row_of[record_id]])[0].tobytes()


def _code_of(store: MemoryStore, record_id: str) -> bytes:
    """What the HNSW graph keeps of a record's vector (float16; node i is row i here)."""
    state = store._files.state
    approx = state.dense.approximate_index
    assert approx is not None and approx.rows is None
    return stored_codes(approx.graph)[state.row_of[record_id]].tobytes()


def test_forget_on_a_store_with_hnsw_leaves_nothing_in_any_file(
    data_dir: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(vectors, "APPROX_MIN_ROWS", 20)
    paths = StorePaths.for_data_dir(data_dir)
    said = "my bank locker code is quokkabrindle"
    with MemoryStore.open(data_dir, embedder) as store:
        store.add_many(_facts(40))
        secret = store.add("Ana's locker code is quokkabrindle", "fact")
        turn = store.add(said, "turn", provenance=Provenance(session="s1", turn_index=0, role="user"))
        fact = store.add("The user keeps a locker at the bank (zebrafrangible)", "fact",
                         provenance=Provenance(session="s1", turn_index=0, source_text=said))
        store.compact()
        hidden = [_vector_of(store, secret.id), _vector_of(store, turn.id), _vector_of(store, fact.id)]
        hidden += [_code_of(store, secret.id), _code_of(store, turn.id), _code_of(store, fact.id)]
        assert sorted(p.name for p in paths.root.glob("hnsw-*")) == ["hnsw-1.faiss"]
        assert hidden[3] in paths.approx(1).read_bytes()  # the graph keeps a float16 copy of each vector
        store.add("Kai has a locker too", "fact")  # in the journal's tail only
        store.forget(secret.id)
        store.forget_with_source(fact.id)  # the turn it came from goes too
        approx = store._files.state.dense.approximate_index
        assert approx is not None and approx.dead == 3  # no rebuild: three nodes cut from the graph
        disk = all_bytes(data_dir)
        assert b"quokkabrindl" not in disk and b"zebrafrangib" not in disk
        assert not any(vector in disk for vector in hidden)
        assert all("quokka" not in hit.record.text for hit in store.recall("locker code", k=8))
    with caplog.at_level(logging.WARNING), MemoryStore.open(data_dir, embedder) as store:
        assert store._files.state.dense.approximate and len(store._files.state) == 41
        assert "Kai has a locker too" in [hit.record.text for hit in store.recall("who has a locker", k=8)]
        store.forget_all()
    assert not [r for r in caplog.records if "hnsw" in r.getMessage()]
    assert not [p for p in paths.root.iterdir() if p.name.startswith(("hnsw-", "lexical-"))]
    assert b"Kai has a locker" not in all_bytes(data_dir)


def test_stale_hnsw_file_is_rebuilt_not_trusted(
    data_dir: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(vectors, "APPROX_MIN_ROWS", 20)
    paths = StorePaths.for_data_dir(data_dir)
    _build(data_dir, embedder, 30, tail=0)
    old = paths.approx(1).read_bytes()
    with MemoryStore.open(data_dir, embedder) as store:
        store.add_many(_facts(5, start=30))
        store.compact()
        expected = _recalled(store)
    paths.approx(2).write_bytes(old)  # another generation's graph: stamped for other vectors
    with caplog.at_level(logging.WARNING), MemoryStore.open(data_dir, embedder) as store:
        assert _recalled(store) == expected
    assert any("hnsw-2.faiss cannot be used (it does not match the vectors)" in r.getMessage()
               for r in caplog.records)
    assert [p.name for p in paths.root.glob("hnsw-*")] == ["hnsw-3.faiss"]  # rebuilt and saved
    paths.approx(3).write_bytes(paths.approx(3).read_bytes()[:-100])  # cut short
    with caplog.at_level(logging.WARNING), MemoryStore.open(data_dir, embedder) as store:
        assert _recalled(store) == expected
    assert any("hnsw-3.faiss cannot be used" in r.getMessage() for r in caplog.records)


def test_a_graph_of_float_vectors_from_an_earlier_version_is_still_used() -> None:
    dense = DenseIndex(64)
    vectors = _clustered(3000, 64, seed=4)
    dense.add(vectors, ["fact"] * len(vectors), [True] * len(vectors))
    graph = faiss.IndexHNSWFlat(64, 32, faiss.METRIC_INNER_PRODUCT)
    graph.add(vectors)
    dense.use_approximate(graph, None)
    queries = _clustered(50, 64, seed=5)
    allowed = dense.allowed(("fact",))
    exact = [set(dense.search(q, 10, allowed, exact=True)[0].tolist()) for q in queries]
    agreement = np.mean([len(e & set(dense.search(q, 10, allowed)[0].tolist())) / 10 for e, q in zip(exact, queries)])
    assert agreement >= 0.9
    approx = dense.approximate_index
    assert approx is not None
    _, rows = approx.renumbered(np.arange(1, 3000), 3000)  # row 0 forgotten
    folded = Approximate(graph, rows, 64).folded()
    assert not stored_codes(folded.graph)[0].any() and stored_codes(folded.graph)[1].any()
