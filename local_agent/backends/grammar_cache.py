"""Compiled llama.cpp grammars of JSON schemas, the few most recently used kept.

A schema made per turn (a tool's arguments, a choice among this turn's candidates) must not grow
the cache for as long as `serve` runs: the least recently used grammar is dropped first.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any

from ..errors import BackendError
from .json_grammar import schema_gbnf
from .llama_grammar import canonical_spacing

GRAMMAR_CACHE = 8  # grammars kept


class GrammarCache:
    """`get(schema)`: the schema's grammar, compiled once while among the `size` most recently used."""

    def __init__(self, lib: Any, size: int = GRAMMAR_CACHE) -> None:
        self._lib, self.size = lib, size
        self._grammars: OrderedDict[str, Any] = OrderedDict()

    def __len__(self) -> int:
        return len(self._grammars)

    def get(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema, sort_keys=True)
        if key in self._grammars:
            self._grammars.move_to_end(key)
            return self._grammars[key]
        gbnf = schema_gbnf(schema)  # the schema's own key order is the order the model writes the fields in
        try:
            grammar = self._lib.LlamaGrammar.from_string(canonical_spacing(gbnf), verbose=False)
        except (ValueError, KeyError, NotImplementedError) as exc:
            raise BackendError(f"llama.cpp cannot turn this JSON schema into a grammar: {exc}") from None
        self._grammars[key] = grammar
        while len(self._grammars) > self.size:
            self._grammars.popitem(last=False)
        return grammar
