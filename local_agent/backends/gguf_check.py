"""A GGUF file's metadata, checked before llama.cpp loads the model from it.

llama.cpp refuses many absurd values with an error, but asserts on others and the process
aborts: more than 512 layers, more experts than it supports, a negative or NaN layer-norm
epsilon (at the first decode). llama-cpp-python sizes every tokenization buffer by the
training context length, so a context of 2^32 - 1 tokens reads as -1 and fails, and one of
2^31 asks 8 GB per call. These values are read with llama.cpp itself, loading the vocabulary
only (as models/resolve.py reads the context length), and checked first: one llama.cpp would
abort on is a one-line ModelError naming the file and the key; an absurd context length is
replaced through a metadata override (probe.context_size warns about it, for every format).
"""

from __future__ import annotations

import ctypes
import math
from pathlib import Path
from typing import Any

from ..config import DEFAULT_CTX_SIZE
from ..errors import ModelError

MAX_LAYERS = 512  # LLAMA_MAX_LAYERS in llama.cpp's llama-hparams.h
MAX_EXPERTS = 1024  # LLAMA_MAX_EXPERTS
MAX_CONTEXT_LENGTH = 1 << 24  # 16,777,216 tokens: the longest published windows are about 10 M
EPSILONS = ("attention.layer_norm_rms_epsilon", "attention.layer_norm_epsilon")


def checked_overrides(lib: Any, path: Path) -> dict[str, int]:
    """Check the metadata of the GGUF file at `path` (ModelError for a value llama.cpp aborts
    on); returns the metadata overrides to load it with (an absurd context length replaced)."""
    arch = read_metadata(lib, path, ["general.architecture"])["general.architecture"] or ""
    keys = [f"{arch}.{name}" for name in ("block_count", "expert_count", "expert_used_count", "context_length",
                                          *EPSILONS)]
    meta = read_metadata(lib, path, keys)
    layers, experts, used, context = (_integer(path, key, meta[key]) for key in keys[:4])
    if layers is not None and not 0 < layers <= MAX_LAYERS:
        raise ModelError(f"{path}: {keys[0]} is {layers}; llama.cpp takes 1 to {MAX_LAYERS} layers")
    if not 0 <= (experts or 0) <= MAX_EXPERTS or (used or 0) > (experts or 0):
        raise ModelError(f"{path}: {keys[1]} is {experts} and {keys[2]} {used}; llama.cpp takes up to "
                         f"{MAX_EXPERTS} experts, no more used than there are")
    for key in keys[4:]:
        epsilon = meta[key]
        if epsilon is not None and not _epsilon(epsilon):
            raise ModelError(f"{path}: {key} is {epsilon}; a layer norm's epsilon is a number of 0 or more")
    if context is None or 0 < context <= MAX_CONTEXT_LENGTH:
        return {}
    return {keys[3]: MAX_CONTEXT_LENGTH if context > 0 else DEFAULT_CTX_SIZE}


def read_metadata(lib: Any, path: Path, keys: list[str]) -> dict[str, str | None]:
    """The values of `keys` in the GGUF file's metadata as text (None where absent), read by
    llama.cpp loading the vocabulary only."""
    from llama_cpp import _logger

    _logger.set_verbose(False)  # as Llama(verbose=False) does: no load report on stderr
    params = lib.llama_model_default_params()
    params.vocab_only = True
    model = lib.llama_model_load_from_file(str(path).encode(), params)
    if not model:
        raise ModelError(f"{path} is not a readable GGUF file (llama.cpp could not read its metadata and vocabulary)")
    try:
        if lib.llama_vocab_n_tokens(lib.llama_model_get_vocab(model)) <= 0:
            raise ModelError(f"{path} has an empty vocabulary (tokenizer.ggml.tokens)")
        return {key: _value(lib, model, key) for key in keys}
    finally:
        lib.llama_model_free(model)


def _value(lib: Any, model: Any, key: str) -> str | None:
    buffer = ctypes.create_string_buffer(64)  # numbers and names; a longer value is cut, and checked as absurd
    found = lib.llama_model_meta_val_str(model, key.encode(), buffer, len(buffer))
    return buffer.value.decode("utf-8", "replace") if found >= 0 else None


def _integer(path: Path, key: str, text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise ModelError(f"{path}: {key} is {text[:40]!r}, not a whole number") from None


def _epsilon(text: str) -> bool:
    try:
        value = float(text)
    except ValueError:
        return False
    return math.isfinite(value) and value >= 0
