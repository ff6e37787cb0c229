"""The stored vectors: the rows a store opens with are its vectors file memory-mapped and not
copied, rows added since are owned, and exact search over the two is a flat FAISS index's."""

from __future__ import annotations

import hashlib
from pathlib import Path

import faiss
import numpy as np
import pytest

from local_agent.memory.index.embedder import Embedder
from local_agent.memory.index.rows import VectorRows
from local_agent.memory.store import MemoryStore
from local_agent.memory.store.layout import StorePaths
from local_agent.types import MemoryDraft

DIMENSION = 32


def _unit(rows: int, seed: int) -> np.ndarray:
    points = np.random.default_rng(seed).normal(size=(rows, DIMENSION))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def _mapped(tmp_path: Path, matrix: np.ndarray) -> np.memmap:
    np.save(tmp_path / "vectors.npy", matrix)
    return np.load(tmp_path / "vectors.npy", mmap_mode="r")


def _flat_search(matrix: np.ndarray, query: np.ndarray, k: int, allowed: np.ndarray) -> tuple[list, list]:
    index = faiss.IndexFlatIP(DIMENSION)
    index.add(matrix)
    bitmap = np.packbits(allowed, bitorder="little")
    selector = faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(bitmap))
    scores, rows = index.search(query, k, params=faiss.SearchParameters(sel=selector))
    keep = rows[0] >= 0
    return rows[0][keep].tolist(), scores[0][keep].tolist()


def test_a_mapped_base_is_referenced_and_the_tail_is_owned(tmp_path: Path) -> None:
    base, tail = _unit(300, seed=1), _unit(90, seed=2)
    rows = VectorRows(DIMENSION)
    rows.append(_mapped(tmp_path, base))
    before = (tmp_path / "vectors.npy").read_bytes()
    for start in range(0, 90, 7):  # appends one at a time, as a chat does
        rows.append(tail[start : start + 7])
    assert rows.mapped and len(rows) == 390
    assert (tmp_path / "vectors.npy").read_bytes() == before  # the file is never written
    every = np.concatenate([base, tail])
    picked = np.array([0, 299, 300, 389, 5, 301])
    assert np.array_equal(rows.take(picked), every[picked])
    assert np.array_equal(rows.copy(), every)
    with pytest.raises(IndexError):
        rows.take(np.array([390]))


@pytest.mark.parametrize("k", [1, 10, 400])
def test_exact_search_is_a_flat_index_search(tmp_path: Path, k: int) -> None:
    base, tail = _unit(300, seed=3), _unit(60, seed=4)
    rows = VectorRows(DIMENSION)
    rows.append(_mapped(tmp_path, base))
    rows.append(tail)
    every = np.concatenate([base, tail])
    allowed = np.random.default_rng(5).random(len(every)) < 0.6
    for vector in _unit(12, seed=6):
        query = vector.reshape(1, DIMENSION)
        found, scores = rows.search(query, k, allowed)
        assert (found.tolist(), scores.tolist()) == _flat_search(every, query, k, allowed)


def test_rows_that_are_not_a_read_only_map_are_copied(tmp_path: Path) -> None:
    matrix = _unit(20, seed=7)
    rows = VectorRows(DIMENSION)
    rows.append(matrix)  # a plain array the caller may still change
    matrix[:] = 0.0
    assert not rows.mapped and np.abs(rows.take(np.arange(20))).sum() > 0
    writable = np.load(_mapped_path(tmp_path, _unit(5, seed=8)), mmap_mode="r+")
    other = VectorRows(DIMENSION)
    other.append(writable)
    assert not other.mapped


def _mapped_path(tmp_path: Path, matrix: np.ndarray) -> Path:
    np.save(tmp_path / "other.npy", matrix)
    return tmp_path / "other.npy"


def test_a_reopened_store_maps_its_vectors_file_instead_of_copying_it(data_dir: Path, embedder: Embedder) -> None:
    paths = StorePaths.for_data_dir(data_dir)
    with MemoryStore.open(data_dir, embedder) as store:
        first = store.add_many([MemoryDraft(text=f"Maria keeps note {i} about her garden", kind="fact")
                                for i in range(12)])
        store.compact()
    [vectors_file] = paths.root.glob("vectors-*.npy")
    digest = hashlib.sha256(vectors_file.read_bytes()).hexdigest()
    with MemoryStore.open(data_dir, embedder) as store:
        dense = store._files.state.dense
        assert dense.mapped
        stored = np.load(vectors_file)
        assert np.array_equal(dense.vectors(np.arange(12)), stored)
        added = store.add("Sam rides a red bicycle to work", "fact")
        assert store.recall("red bicycle", k=1)[0].record.id == added.id
        assert store.recall("Maria's garden note 3", k=12)[0].record.id in {r.id for r in first}
        assert hashlib.sha256(vectors_file.read_bytes()).hexdigest() == digest



def test_mapped_rows_are_read_with_pread(tmp_path: Path) -> None:
    rows = VectorRows(DIMENSION)
    rows.append(_mapped(tmp_path, _unit(30, seed=5)))
    assert rows.mapped and rows._base_file is not None  # (numpy 2 names the map's file with a Path)


def test_rows_in_any_order_and_runs_read_back_exactly(tmp_path: Path) -> None:
    base, tail = _unit(300, seed=6), _unit(5, seed=7)
    rows = VectorRows(DIMENSION)
    rows.append(_mapped(tmp_path, base))
    rows.append(tail)  # a tail after the mapped rows
    every = np.concatenate([base, tail])
    for picked in ([], [7], [3, 4, 5, 6], [299, 0, 1, 2, 150, 151], [*range(100, 200), 5, 5, 6],
                   [298, 299, 300, 301, 302], [304, 0]):
        wanted = np.asarray(picked, dtype=np.int64)
        np.testing.assert_array_equal(rows.take(wanted), every[wanted].reshape(-1, DIMENSION))
