"""The stored vectors, one row per record, searched exactly.

The rows a store opens with are its vectors file memory-mapped read-only, referenced and not
copied: opening a store reads no vector into the process, and the operating system pages them
in as searches touch them. Single rows (a recall's candidates) are read from the file with
pread instead of through the map: each page a map touches brings up to 64 KB of cached pages
around it into the process as well (the kernel's fault-around), so a few hundred recalls made a
gigabyte of the file resident. Rows added since go to an owned buffer that grows by doubling, so
adding a memory stays an append. (The file is never changed in place: a compaction writes a new
generation and renames it over, so a map keeps seeing the bytes it was opened on.)

Search runs FAISS's own exact kernel (`knn_inner_product`, the one IndexFlatIP uses) over each
part, with the same bitmap filter, so results are those of a flat index holding every row.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import faiss
import numpy as np

Found = tuple[np.ndarray, np.ndarray]  # (rows, scores), best first


def bitmap_selector(allowed: np.ndarray) -> tuple[faiss.IDSelector, np.ndarray]:
    """A FAISS selector of the True entries (and the bitmap it points into: keep it alive)."""
    bitmap = np.packbits(allowed, bitorder="little")
    return faiss.IDSelectorBitmap(len(allowed), faiss.swig_ptr(bitmap)), bitmap


def merge_best(found: Sequence[Found], k: int) -> Found:
    """The k best of several (rows, scores) lists, best first (ties keep the earlier list)."""
    if len(found) == 1:
        return found[0][0][:k], found[0][1][:k]
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    rows, scores = np.concatenate([r for r, _ in found]), np.concatenate([s for _, s in found])
    order = np.argsort(-scores, kind="stable")[:k]
    return rows[order], scores[order]


def exact_search(matrix: np.ndarray, query: np.ndarray, k: int, allowed: np.ndarray) -> Found:
    """The k rows of `matrix` (contiguous float32, any memory) with the largest inner product
    with `query` among the `allowed` ones: (rows, scores), best first."""
    k = min(k, int(allowed.sum()))
    if k <= 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    selector, _bitmap = bitmap_selector(allowed)
    scores = np.empty((1, k), dtype=np.float32)
    rows = np.empty((1, k), dtype=np.int64)
    faiss.knn_inner_product(faiss.swig_ptr(query), faiss.swig_ptr(matrix), matrix.shape[1], 1, len(matrix), k,
                            faiss.swig_ptr(scores), faiss.swig_ptr(rows), selector)
    keep = rows[0] >= 0
    return rows[0][keep], scores[0][keep]


class VectorRows:
    """A float32 row matrix: a read-only base (a memory map, or empty) and an owned tail."""

    def __init__(self, dimension: int) -> None:
        self.dimension = dimension
        self._base = np.zeros((0, dimension), dtype=np.float32)
        self._base_file: _RowFile | None = None  # the mapped file, to read single rows from
        self._tail = np.zeros((0, dimension), dtype=np.float32)
        self._tail_rows = 0

    def __len__(self) -> int:
        return len(self._base) + self._tail_rows

    @property
    def mapped(self) -> bool:
        """Whether the first rows are a memory map (of the file the store opened)."""
        return isinstance(self._base, np.memmap)

    def append(self, vectors: np.ndarray) -> None:
        """Add rows at the end. The first rows of an empty matrix, when they are a read-only
        memory map of a vectors file, are referenced instead of copied."""
        if not len(self) and _read_only_map(vectors, self.dimension):
            self._base = vectors
            self._base_file = _RowFile.of(vectors)
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1, self.dimension)
        needed = self._tail_rows + len(vectors)
        if needed > len(self._tail):
            grown = np.empty((max(needed, 2 * len(self._tail), 64), self.dimension), dtype=np.float32)
            grown[: self._tail_rows] = self._tail[: self._tail_rows]
            self._tail = grown
        self._tail[self._tail_rows : needed] = vectors
        self._tail_rows = needed

    def take(self, rows: np.ndarray) -> np.ndarray:
        """A copy of the given rows, shape (len(rows), dimension)."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) and (rows.min() < 0 or rows.max() >= len(self)):
            raise IndexError("row out of range")
        if self._base_file is not None and (not len(rows) or rows.max() < len(self._base)):
            return self._base_file.rows(rows)  # (the common case: no copy through a mask)
        out = np.empty((len(rows), self.dimension), dtype=np.float32)
        in_base = rows < len(self._base)
        base_rows = rows[in_base]
        out[in_base] = self._base_file.rows(base_rows) if self._base_file is not None else self._base[base_rows]
        out[~in_base] = self._tail[rows[~in_base] - len(self._base)]
        return out

    def copy(self) -> np.ndarray:
        """Every row, in order, as one owned array."""
        return np.concatenate([self._base, self._tail[: self._tail_rows]])

    def blocks(self) -> list[np.ndarray]:
        """Every row, in order, as the parts they are kept in (for saving without a copy)."""
        return [part for part in (self._base, self._tail[: self._tail_rows]) if len(part)]

    def search(self, query: np.ndarray, k: int, allowed: np.ndarray) -> Found:
        """Exact search over every row; `query` has shape (1, dimension)."""
        base = len(self._base)
        found = []
        if base and allowed[:base].any():
            found.append(exact_search(self._base, query, k, allowed[:base]))
        if self._tail_rows and allowed[base:].any():
            rows, scores = exact_search(self._tail[: self._tail_rows], query, k, allowed[base:])
            found.append((rows + base, scores))
        return merge_best(found, k)


class _RowFile:
    """The file a read-only map of rows shows (a generation's vectors file, which is never
    rewritten under its name), open to read rows with pread."""

    def __init__(self, path: str, offset: int, dimension: int) -> None:
        self._handle = os.fdopen(os.open(path, os.O_RDONLY), "rb", buffering=0)  # open as long as the map
        self._offset = offset
        self._width = 4 * dimension
        self._dimension = dimension

    @classmethod
    def of(cls, matrix: np.ndarray) -> _RowFile | None:
        """The file of a map numpy made from a path (None: read through the map)."""
        path, offset = getattr(matrix, "filename", None), getattr(matrix, "offset", None)
        if not isinstance(path, str | os.PathLike) or not isinstance(offset, int):  # (numpy 2 keeps a Path)
            return None
        try:
            return cls(os.fspath(path), offset, int(matrix.shape[1]))
        except OSError:
            return None

    def rows(self, rows: np.ndarray) -> np.ndarray:
        """The given rows, read with one pread per run of consecutive rows (the memories said
        within a month of a large store are thousands of neighbouring rows)."""
        rows = np.asarray(rows, dtype=np.int64)
        if not len(rows):
            return np.zeros((0, self._dimension), dtype=np.float32)
        found = np.empty((len(rows), self._dimension), dtype=np.float32)  # (not zeroed: every byte is read)
        view, fd = memoryview(found.data).cast("B"), self._handle.fileno()
        breaks = (np.flatnonzero(np.diff(rows) != 1) + 1).tolist()
        for first, stop in zip([0, *breaks], [*breaks, len(rows)]):
            part = view[first * self._width : stop * self._width]
            if os.preadv(fd, [part], self._offset + int(rows[first]) * self._width) != len(part):
                raise OSError(f"{self._handle.name} ends before row {int(rows[stop - 1])}")
        return found


def _read_only_map(vectors: np.ndarray, dimension: int) -> bool:
    """A read-only float32 memory map laid out as rows: safe to reference, never written."""
    return (isinstance(vectors, np.memmap) and not vectors.flags.writeable and vectors.dtype == np.float32
            and vectors.flags.c_contiguous and vectors.ndim == 2 and vectors.shape[1] == dimension)
