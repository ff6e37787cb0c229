"""A file of named numpy arrays that opens without reading them: the store's derived indexes
(the columns over the snapshot's records, the BM25 index) are kept in this form.

Opening memory-maps the file read-only and checks its structure: the magic, the header, and
that every array lies within the file, which is exactly as long as the header says (so a file
cut short is refused). The arrays' bytes are checked against their CRC-32s by `check()`: at
open for a small file, by the doctor for any (a large store's indexes hold hundreds of
megabytes that one command never touches; reading them all would cost more than the rest of
opening). Files are written once (atomically) and never changed in place, so a map keeps
seeing the bytes it was opened on.

    MAGIC (8 bytes) | header length (8, little-endian) | header (JSON) | arrays, each 64-aligned

The header holds `kind` (what the file is), `meta` (the caller's, such as a stamp of what the
file was made from) and, for each array, its offset, dtype, shape and CRC-32.
"""

from __future__ import annotations

import json
import mmap
import os
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import IO, Any, cast

import numpy as np

from ...process.files import atomic_write_stream

MAGIC = b"LAARRAY1"
ALIGN = 64
_LENGTH = 8


class _Parts:
    """A read()-able stream over several buffers, so large arrays are written without joining."""

    def __init__(self, parts: list[memoryview]) -> None:
        self._parts = parts

    def read(self, size: int = -1) -> bytes:
        while self._parts and not len(self._parts[0]):
            self._parts.pop(0)
        if not self._parts:
            return b""
        size = len(self._parts[0]) if size is None or size < 0 else size
        chunk, self._parts[0] = self._parts[0][:size], self._parts[0][size:]
        return bytes(chunk)


def write_arrays(path: Path, kind: str, arrays: Mapping[str, np.ndarray], meta: Mapping[str, Any]) -> None:
    """Write `arrays` (any dtype numpy can describe with a string, no objects) atomically."""
    laid: dict[str, dict[str, Any]] = {}
    bodies: list[memoryview] = []
    offset = 0
    for name, given in arrays.items():
        array = np.ascontiguousarray(given)
        if array.dtype.hasobject:
            raise ValueError(f"array {name!r} holds Python objects")
        data = _bytes_of(array)
        laid[name] = {"offset": offset, "dtype": array.dtype.str, "shape": list(array.shape),
                      "crc32": zlib.crc32(data)}
        bodies.append(data)
        padding = -len(data) % ALIGN
        bodies.append(memoryview(b"\0" * padding))
        offset += len(data) + padding
    header = {"kind": kind, "meta": dict(meta), "arrays": laid, "data_bytes": offset}
    text = json.dumps(header, ensure_ascii=False).encode("utf-8")
    start = len(MAGIC) + _LENGTH + len(text)
    text += b" " * (-start % ALIGN)  # the arrays start aligned (JSON ignores the spaces)
    head = MAGIC + len(text).to_bytes(_LENGTH, "little") + text
    atomic_write_stream(path, cast(IO[bytes], _Parts([memoryview(head), *bodies])))


class ArraysFile(Mapping[str, np.ndarray]):
    """An arrays file, memory-mapped (`random`: read at random places, see read_randomly).
    Raises ValueError (saying what is wrong) for a file that is not one, or not whole, or (when
    it is no larger than `check_up_to` bytes) whose arrays fail their CRC-32s;
    FileNotFoundError when there is none."""

    def __init__(self, path: Path, kind: str, *, check_up_to: int = 0, random: bool = False) -> None:
        self.path = Path(path)
        fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            size = os.fstat(fd).st_size
            if size < len(MAGIC) + _LENGTH:
                raise ValueError("it is too short")
            self._map = mmap.mmap(fd, size, access=mmap.ACCESS_READ)
        finally:
            os.close(fd)
        if random:
            read_randomly(self._map)
        self._header, self._start = _read_header(self._map, kind)
        self.meta: dict[str, Any] = self._header["meta"]
        if self._start + self._header["data_bytes"] != size:
            raise ValueError("it is truncated or has extra bytes")
        self._arrays = {name: self._view(name) for name in self._header["arrays"]}  # (no byte read yet)
        if size <= check_up_to:
            self.check()

    def check(self) -> None:
        """Check every array's bytes against its CRC-32 (ValueError naming the first that fails)."""
        for name in self:
            array = self[name]
            if zlib.crc32(_bytes_of(array)) != self._header["arrays"][name]["crc32"]:
                raise ValueError(f"its array {name!r} fails its check (CRC-32)")

    def __getitem__(self, name: str) -> np.ndarray:
        return self._arrays[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._header["arrays"])

    def __len__(self) -> int:
        return len(self._header["arrays"])

    def _view(self, name: str) -> np.ndarray:
        try:
            laid = self._header["arrays"][name]
            dtype, shape = np.dtype(laid["dtype"]), tuple(int(n) for n in laid["shape"])
            offset, count = self._start + int(laid["offset"]), int(np.prod(shape, dtype=np.int64))
            if dtype.hasobject or offset + count * dtype.itemsize > len(self._map):
                raise ValueError
            array = np.frombuffer(self._map, dtype=dtype, count=count, offset=offset).reshape(shape)
        except (KeyError, TypeError, ValueError):
            raise ValueError(f"its array {name!r} is not described right") from None
        return array


def _read_header(view: mmap.mmap, kind: str) -> tuple[dict[str, Any], int]:
    if view[: len(MAGIC)] != MAGIC:
        raise ValueError("it does not start as an arrays file")
    length = int.from_bytes(view[len(MAGIC) : len(MAGIC) + _LENGTH], "little")
    start = len(MAGIC) + _LENGTH + length
    if start > len(view):
        raise ValueError("its header is cut short")
    try:
        header = json.loads(view[len(MAGIC) + _LENGTH : start].decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        raise ValueError("its header is not readable") from None
    if not isinstance(header, dict) or not isinstance(header.get("arrays"), dict) \
            or not isinstance(header.get("meta"), dict) or not isinstance(header.get("data_bytes"), int):
        raise ValueError("its header is not readable")
    if header.get("kind") != kind:
        raise ValueError(f"it holds {header.get('kind')!r}, not {kind!r}")
    return header, start


def read_randomly(view: mmap.mmap | None) -> None:
    """Tell the kernel a map is read at random places (a record here, a vector there): no
    read-ahead, which would bring 128 KB around each page touched into memory. Where the
    platform has no such advice, nothing changes."""
    advice = getattr(mmap, "MADV_RANDOM", None)
    if view is not None and advice is not None:
        view.madvise(advice)


def _bytes_of(array: np.ndarray) -> memoryview:
    """A contiguous array's bytes, without a copy."""
    return array.data.cast("B") if array.size else memoryview(b"")
