"""A GGUF file's metadata, checked before llama.cpp loads the model from it.

llama.cpp refuses many absurd values with an error, but asserts on others and the process
aborts: more than 512 layers, more experts than it supports, a negative or NaN layer-norm
epsilon (at the first decode). llama-cpp-python sizes every tokenization buffer by the
training context length, so a context of 2^32 - 1 tokens reads as -1 and fails, and one of
2^31 asks 8 GB per call. These values are read from the file's header and checked first: one
llama.cpp would abort on is a one-line ModelError naming the file and the key; an absurd
context length is replaced through a metadata override (probe.context_size warns about it).
"""

from __future__ import annotations

import math
import mmap
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..config import DEFAULT_CTX_SIZE
from ..errors import ModelError

MAX_LAYERS = 512  # LLAMA_MAX_LAYERS in llama.cpp's llama-hparams.h
MAX_EXPERTS = 1024  # LLAMA_MAX_EXPERTS
MAX_CONTEXT_LENGTH = 1 << 24  # 16,777,216 tokens: the longest published windows are about 10 M
EPSILONS = ("attention.layer_norm_rms_epsilon", "attention.layer_norm_epsilon")
NAMES = ("block_count", "expert_count", "expert_used_count", "context_length", *EPSILONS)
ARCH, TOKENS = "general.architecture", "tokenizer.ggml.tokens"


def checked_overrides(path: Path) -> dict[str, int]:
    """Check the metadata of the GGUF file at `path` (ModelError for a value llama.cpp aborts
    on); returns the metadata overrides to load it with (an absurd context length replaced)."""
    suffixes = tuple(f".{name}" for name in NAMES)
    meta = read_metadata(path, lambda key: key in (ARCH, TOKENS) or key.endswith(suffixes))
    if meta.get(TOKENS) == 0:
        raise ModelError(f"{path} has an empty vocabulary ({TOKENS})")
    arch = meta.get(ARCH)
    layers, experts, used, context = (_integer(path, f"{arch}.{name}", meta.get(f"{arch}.{name}"))
                                      for name in NAMES[:4])
    if layers is not None and not 0 < layers <= MAX_LAYERS:
        raise ModelError(f"{path}: {arch}.block_count is {layers}; llama.cpp takes 1 to {MAX_LAYERS} layers")
    if not 0 <= (experts or 0) <= MAX_EXPERTS or (used or 0) > (experts or 0):
        raise ModelError(f"{path}: {arch}.expert_count is {experts} and {arch}.expert_used_count {used}; "
                         f"llama.cpp takes up to {MAX_EXPERTS} experts, no more used than there are")
    for key in (f"{arch}.{name}" for name in EPSILONS):
        if key in meta and not _epsilon(meta[key]):
            raise ModelError(f"{path}: {key} is {meta[key]}; a layer norm's epsilon is a number of 0 or more")
    if context is None or 0 < context <= MAX_CONTEXT_LENGTH:
        return {}
    return {f"{arch}.context_length": MAX_CONTEXT_LENGTH if context > 0 else DEFAULT_CTX_SIZE}


def read_metadata(path: Path, wanted: Callable[[str], bool]) -> dict[str, Any]:
    """The values of the `wanted` keys in the GGUF file's metadata (an array as its length),
    read from its header as the format describes it. Skipping the vocabulary's arrays costs a
    few tens of milliseconds, where llama.cpp loading the vocabulary takes a quarter of a
    second and gguf-py's reader seconds."""
    try:
        with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
            return _HeaderReader(data).values(wanted)
    except (OSError, ValueError, struct.error, UnicodeDecodeError) as exc:
        raise ModelError(f"{path} is not a readable GGUF file ({exc})") from None


class _HeaderReader:
    """The key-value part of a GGUF header (version 2 or 3, either byte order)."""

    def __init__(self, data: mmap.mmap) -> None:
        if data[:4] != b"GGUF":
            raise ValueError("no GGUF magic number")
        self.data, self.order = data, "<" if struct.unpack_from("<I", data, 4)[0] < 65536 else ">"
        self.offset = 8

    def values(self, wanted: Callable[[str], bool]) -> dict[str, Any]:
        _, count = self._unpack("QQ")
        found: dict[str, Any] = {}
        for _ in range(count):
            key = self._string()
            keep = wanted(key)
            value = self._value(self._unpack("I")[0], keep)
            if keep:
                found[key] = value
        return found

    def _unpack(self, kinds: str) -> tuple[Any, ...]:
        values = struct.unpack_from(self.order + kinds, self.data, self.offset)
        self.offset += struct.calcsize(self.order + kinds)
        return values

    def _string(self, keep: bool = True) -> str:
        (length,) = self._unpack("Q")
        if length > len(self.data) - self.offset:
            raise ValueError("a string runs past the end of the file")
        self.offset += length
        return self.data[self.offset - length: self.offset].decode("utf-8") if keep else ""

    def _value(self, kind: int, keep: bool) -> Any:
        if kind in _SCALARS:
            return self._unpack(_SCALARS[kind])[0]
        if kind == _STRING:
            return self._string(keep)
        if kind != _ARRAY:
            raise ValueError(f"unknown value type {kind}")
        item, count = self._unpack("IQ")
        if item in _SCALARS:
            size = struct.calcsize(_SCALARS[item]) * count
            if size > len(self.data) - self.offset:
                raise ValueError("an array runs past the end of the file")
            self.offset += size
        else:
            for _ in range(count):  # strings (or arrays): at least 8 bytes each, so bounded by the file
                self._value(item, keep=False)
        return count


_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9


def _integer(path: Path, key: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ModelError(f"{path}: {key} is {str(value)[:40]!r}, not a whole number")
    return value


def _epsilon(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0
