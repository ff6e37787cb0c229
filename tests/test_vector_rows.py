"""The rows a store opens with are read from their file with pread (rows.py), in runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from local_agent.memory.index.rows import VectorRows


def _mapped(tmp_path: Path, rows: int = 300, dimension: int = 8) -> tuple[np.ndarray, VectorRows]:
    matrix = np.random.default_rng(0).standard_normal((rows, dimension)).astype(np.float32)
    np.save(tmp_path / "vectors.npy", matrix)
    kept = VectorRows(dimension)
    kept.append(np.load(tmp_path / "vectors.npy", mmap_mode="r"))
    return matrix, kept


def test_mapped_rows_are_read_with_pread(tmp_path: Path) -> None:
    _, kept = _mapped(tmp_path)
    assert kept.mapped and kept._base_file is not None  # (numpy 2 names the map's file with a Path)


def test_rows_in_any_order_and_runs_read_back_exactly(tmp_path: Path) -> None:
    matrix, kept = _mapped(tmp_path)
    kept.append(np.ones((5, 8), dtype=np.float32))  # a tail after the mapped rows
    for rows in ([], [7], [3, 4, 5, 6], [299, 0, 1, 2, 150, 151], [*range(100, 200), 5, 5, 6],
                 [298, 299, 300, 301, 302], [304, 0]):
        expected = np.concatenate([matrix, np.ones((5, 8), dtype=np.float32)])[np.asarray(rows, dtype=np.int64)]
        np.testing.assert_array_equal(kept.take(np.asarray(rows, dtype=np.int64)), expected.reshape(-1, 8))
