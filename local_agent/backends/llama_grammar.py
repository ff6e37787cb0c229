"""Greedy decoding under a GBNF grammar for llama.cpp: the grammar checked on the most likely
token first, and text the grammar leaves no choice about written without asking the model.

llama-cpp-python puts the grammar sampler in front of the greedy one, so every step matches
the grammar against the whole vocabulary (49k tokens for SmolLM2): on a small model that costs
as much as the forward pass. llama.cpp's own sampler (common/sampling.cpp) checks the chosen
token first and ranks the vocabulary under the grammar only when that token is refused; this
does the same, so the token picked is still the highest-scoring one the grammar allows.

Where the grammar allows exactly one next character (JSON keys, brackets, the end), that text
is forced ("jump-forward" decoding, as in SGLang): it is found by probing the grammar with the
vocabulary's one-character tokens, and the model reads it in one batch instead of writing it
one decode step per token.
"""

from __future__ import annotations

import ctypes
import math
import re
from typing import Any

import numpy as np

from ..errors import BackendError

# llama_token_data as numpy sees it, so a whole candidate list is filled without a Python loop.
TOKEN_DATA = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)], align=True)
# Tokens ranked under the grammar when the most likely one is refused, before the whole vocabulary.
SHORTLIST = 64
# The longest forced text looked for at once.
MAX_FORCED_CHARS = 256
# The rule llama.cpp's JSON-schema converter puts between JSON tokens (an optional space).
_SPACE_RULE = re.compile(r"^space ::= .*$", re.M)


def canonical_spacing(gbnf: str) -> str:
    """A JSON grammar whose whitespace is that of Python's json.dumps: one space after each
    `:` and `,`, none elsewhere. Models write JSON this way most of the time, and with no
    optional space between them, keys with their quotes and colons become forced text."""
    if not _SPACE_RULE.search(gbnf):
        raise BackendError("unexpected grammar from llama.cpp's JSON-schema converter: no space rule")
    gbnf = _SPACE_RULE.sub('space ::= ""', gbnf)
    return gbnf.replace('":"', '": "').replace('","', '", "')


class GrammarGreedy:
    """The grammar state of one generation: choose the next token, then accept it. Close it
    (or use it as a context manager) to free llama.cpp's sampler."""

    def __init__(self, lib: Any, vocab: Any, grammar: str, root: str, n_vocab: int,
                 char_tokens: dict[int, str], end_token: int) -> None:
        """`char_tokens` maps the tokens that are one printable character to it; `end_token`
        is the token that ends generation, which the grammar allows only when complete."""
        self._lib = lib
        self._sampler = lib.llama_sampler_init_grammar(vocab, grammar.encode("utf-8"), root.encode("utf-8"))
        if not self._sampler:
            raise BackendError("llama.cpp could not parse the grammar for this JSON schema")
        self._candidates = np.zeros(n_vocab, dtype=TOKEN_DATA)
        self._all_ids = np.arange(n_vocab, dtype=np.int32)
        self._chars = char_tokens
        self._end = end_token
        self._probe_ids = np.array([*char_tokens, end_token], dtype=np.int32)
        self._flat = np.zeros(n_vocab, dtype=np.float32)

    def forced(self) -> tuple[str, bool]:
        """The text the grammar allows as the only continuation from here (empty if it leaves
        a choice), and whether only the end may follow that text."""
        probe = self._lib.llama_sampler_clone(self._sampler)
        text: list[str] = []
        try:
            while len(text) < MAX_FORCED_CHARS:
                allowed = self._allowed(self._probe_ids, self._flat, probe)
                if allowed.size != 1:
                    return "".join(text), False
                if allowed[0] == self._end:
                    return "".join(text), True
                text.append(self._chars[int(allowed[0])])
                self._lib.llama_sampler_accept(probe, int(allowed[0]))
        finally:
            self._lib.llama_sampler_free(probe)
        return "".join(text), False

    def choose(self, logits: np.ndarray) -> int:
        """The highest-scoring token the grammar allows after what it has accepted so far."""
        best = int(np.argmax(logits))
        if self._allowed(np.array([best], dtype=np.int32), logits).size:
            return best
        shortlist = np.argpartition(logits, -SHORTLIST)[-SHORTLIST:].astype(np.int32)
        for ids in (shortlist, self._all_ids):
            allowed = self._allowed(ids, logits)
            if allowed.size:
                return int(allowed[np.argmax(logits[allowed])])
        raise BackendError("the grammar allows no token here: the JSON schema cannot be completed")

    def accept(self, token: int) -> None:
        self._lib.llama_sampler_accept(self._sampler, token)

    def _allowed(self, ids: np.ndarray, logits: np.ndarray, sampler: Any = None) -> np.ndarray:
        """The ids among `ids` that the grammar (or a clone of it) accepts next."""
        candidates = self._candidates[: ids.size]
        candidates["id"] = ids
        candidates["logit"] = logits[ids]
        candidates["p"] = 0.0
        array = self._lib.llama_token_data_array(
            data=candidates.ctypes.data_as(self._lib.llama_token_data_p),
            size=ids.size, selected=-1, sorted=False,
        )
        self._lib.llama_sampler_apply(sampler or self._sampler, ctypes.byref(array))
        return candidates["id"][candidates["logit"] != -math.inf]

    def close(self) -> None:
        sampler, self._sampler = self._sampler, None
        if sampler:
            self._lib.llama_sampler_free(sampler)

    def __enter__(self) -> GrammarGreedy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
