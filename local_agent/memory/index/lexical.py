"""Lexical search: BM25 (bm25s) with English stemming (PyStemmer) and stopwords.

bm25s cannot add documents to a built index, so the index is two segments over the same row
numbering as the dense index: a `main` segment over most rows and a small `delta` segment over
the newest ones. A write rebuilds only the delta (cost grows with the delta, not the store);
when the delta outgrows `delta_limit` the main segment is rebuilt over everything, which
amortizes to a small cost per write. Token ids are kept per row, so no rebuild re-tokenizes.
The two segments compute their own IDF; their scores are merged as they are, an approximation
that only affects rows added since the last main rebuild (what it costs in recall is in the
README).

A row's document is its own tokens followed by the tokens of its context rows (for turns:
the turns it answers), so a short reply is found by the words of the question it answers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from .lexical_search import WHOLE_MAX_ROWS, Columns, LexicalMatch, best_rows

if TYPE_CHECKING:  # bm25s brings scipy (0.3 s): imported when an index is built or searched
    import bm25s
    from bm25s.tokenization import Tokenizer

DELTA_MIN_ROWS = 256
DELTA_SHARE = 1 / 32  # the delta may hold this share of the store before a main rebuild


def delta_limit(rows: int) -> int:
    return max(DELTA_MIN_ROWS, int(rows * DELTA_SHARE))


def new_tokenizer() -> Tokenizer:
    import Stemmer
    from bm25s.tokenization import Tokenizer

    return Tokenizer(lower=True, stopwords="en", stemmer=Stemmer.Stemmer("english"))


class _Segment:
    """A built BM25 index over rows [start, stop). Its vocabulary holds only the tokens of its
    own rows (`local` maps the tokenizer's ids to the segment's), so building a small delta
    costs little however large the store's vocabulary has grown. A segment read from a file
    keeps its arrays and makes the bm25s object and the vocabulary map when first needed:
    opening a store imports neither bm25s nor scipy (0.13 s), for a command that never searches
    by words."""

    def __init__(self, start: int, stop: int, *, local: dict[int, int] | None = None, bm25: bm25s.BM25 | None = None,
                 saved: Mapping[str, np.ndarray] | None = None) -> None:
        self.start, self.stop = start, stop
        self._local, self._bm25, self._saved = local, bm25, saved
        self.upper = saved.get("upper") if saved is not None else None  # (files written before it lack it)
        self._columns: Columns | None = None

    @property
    def local(self) -> dict[int, int]:
        if self._local is None:
            assert self._saved is not None
            self._local = {int(token): position for position, token in enumerate(self._saved["segment_tokens"])}
        return self._local

    @property
    def bm25(self) -> bm25s.BM25:
        if self._bm25 is None:
            assert self._saved is not None
            self._bm25 = _saved_bm25(self.stop - self.start, self._saved, self.local)
        return self._bm25

    def scores(self, token_ids: list[int], weights: np.ndarray) -> np.ndarray:
        known = [self.local[token] for token in token_ids if token in self.local]
        if not known:
            return np.zeros(self.stop - self.start, dtype=np.float32)
        return self.bm25.get_scores(known, weight_mask=weights[self.start : self.stop])

    @property
    def columns(self) -> Columns:
        if self._columns is None:
            scores = self._saved if self._saved is not None else self.bm25.scores
            self._columns = Columns.of(scores["data"], scores["indices"], scores["indptr"], self.upper)
        return self._columns

    def match(self, token_ids: list[int], allowed: np.ndarray,
              count: int) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
        """The segment's best `count` allowed rows (numbered from 0) and a function giving the
        score of any of its rows: scored whole when small, by MaxScore when large
        (lexical_search.py); both exact."""
        mask = allowed[self.start : self.stop]
        words = [self.local[token] for token in token_ids if token in self.local]
        if self.stop - self.start <= WHOLE_MAX_ROWS:
            whole = (self.bm25.get_scores(words, weight_mask=mask.astype(np.float32)) if words
                     else np.zeros(len(mask), dtype=np.float32))
            return _top_rows(whole, count), lambda rows: whole[rows]
        columns = self.columns
        rows, _ = best_rows(columns, words, mask, count)
        return rows, lambda rows: columns.lookup(words, rows) * mask[rows]


class LexicalIndex:
    def __init__(self) -> None:
        self._made_tokenizer: Tokenizer | None = None
        self._saved_vocab: np.ndarray | None = None  # a saved index's vocabulary, read when first needed
        self._own = Ragged()  # each row's own token ids
        self._context = Ragged()  # rows whose tokens join this row's document
        self._main: _Segment | None = None
        self._delta: _Segment | None = None

    def __len__(self) -> int:
        return len(self._own)

    @property
    def _tokenizer(self) -> Tokenizer:
        if self._made_tokenizer is None:
            self._made_tokenizer = new_tokenizer()
            if self._saved_vocab is not None:
                vocab = json.loads(bytes(self._saved_vocab).decode("utf-8"))
                for name in _VOCAB_FIELDS:
                    setattr(self._made_tokenizer, name, dict(vocab[name]))
        return self._made_tokenizer

    def add(self, texts: list[str], contexts: list[tuple[int, ...]]) -> None:
        """Index new rows (appended after the existing ones) and refresh the segments."""
        if len(texts) != len(contexts):
            raise ValueError("texts and contexts differ in length")
        if not texts:
            return
        ids = self._tokenizer.tokenize(list(texts), update_vocab=True, show_progress=False)
        self._own.extend(np.asarray(row, dtype=np.int32) for row in ids)
        self._context.extend(np.asarray(c, dtype=np.int32) for c in contexts)
        built = self._main.stop if self._main else 0
        if len(self) - built > delta_limit(len(self)):
            self._main, self._delta = self._build(0, len(self)), None
        else:
            self._delta = self._build(built, len(self))

    def scores(self, query: str, weights: np.ndarray) -> np.ndarray:
        """A BM25 score for every row (0 where `weights` is 0 or nothing matches)."""
        token_ids = self.query_tokens(query)
        parts = [seg.scores(token_ids, weights) for seg in (self._main, self._delta) if seg is not None]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float32)

    def match(self, query: str, allowed: np.ndarray, count: int) -> LexicalMatch:
        """The best `count` `allowed` rows (a mask) for the query, and every row's exact score
        on demand: what `scores` gives, without scoring every matching row of a large store."""
        token_ids = self.query_tokens(query)
        tops, parts = [], []
        for segment in (self._main, self._delta):
            if segment is not None:
                rows, scores_in = segment.match(token_ids, allowed, count)
                tops.append(rows + segment.start)
                parts.append((segment.start, segment.stop, scores_in))
        match = LexicalMatch(np.concatenate(tops) if tops else np.zeros(0, dtype=np.int64), parts)
        if len(match.top) > count:  # the best of each segment: keep the best of those
            match.top = _top_rows_of(match.top, match.scores_of(match.top), count)
        return match

    def query_tokens(self, query: str) -> list[int]:
        """Token ids of a query; words the index has never seen are dropped."""
        ids = self._tokenizer.tokenize([query], update_vocab=False, show_progress=False, allow_empty=False)
        return list(ids[0])

    def _document(self, row: int) -> list[int]:
        parts = [self._own[row]] + [self._own[other] for other in self._context[row]]
        return np.concatenate(parts).tolist()

    def _build(self, start: int, stop: int) -> _Segment:
        local: dict[int, int] = {}
        documents = [[local.setdefault(token, len(local)) for token in self._document(row)]
                     for row in range(start, stop)]
        import bm25s

        bm25 = bm25s.BM25()
        bm25.index((documents, dict(local)), create_empty_token=False, show_progress=False)
        return _Segment(start, stop, local=local, bm25=bm25)

    # -- persistence (the store writes these arrays at compaction, see store/lexical_file.py) ----
    def to_arrays(self) -> dict[str, np.ndarray]:
        """Everything a reopen needs, as plain arrays: the tokenizer's vocabulary, each row's
        tokens and context rows, and one segment over all rows (what a fresh build makes)."""
        whole = self._main if self._main is not None and self._main.stop == len(self) and self._delta is None else None
        segment = whole or self._build(0, len(self))
        vocab = {name: getattr(self._tokenizer, name) for name in _VOCAB_FIELDS}
        own_tokens, own_offsets = self._own.flatten()
        context_rows, context_offsets = self._context.flatten()
        scores = segment.bm25.scores
        return {
            "vocab": np.frombuffer(json.dumps(vocab, ensure_ascii=False).encode("utf-8"), dtype=np.uint8),
            "own_tokens": own_tokens, "own_offsets": own_offsets,
            "context_rows": context_rows, "context_offsets": context_offsets,
            "segment_tokens": np.fromiter(segment.local, dtype=np.int64, count=len(segment.local)),
            "data": np.asarray(scores["data"]), "indices": np.asarray(scores["indices"]),
            "indptr": np.asarray(scores["indptr"]), "num_docs": np.asarray([scores["num_docs"]], dtype=np.int64),
            "upper": segment.columns.upper,
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> LexicalIndex:
        """The index `to_arrays` saved, laid out as a fresh build of its rows would be (one
        main segment, or a delta for a small store), so scores are the same as a rebuild's."""
        index = cls()
        index._saved_vocab = arrays["vocab"]
        index._own = Ragged(arrays["own_tokens"], arrays["own_offsets"])
        index._context = Ragged(arrays["context_rows"], arrays["context_offsets"])
        rows = len(index._own)
        if len(index._context) != rows or int(arrays["num_docs"][0]) != rows:
            raise ValueError("the saved lexical index disagrees with itself about its rows")
        if rows:
            segment = _Segment(0, rows, saved=arrays)
            if rows > delta_limit(rows):
                index._main = segment
            else:
                index._delta = segment
        return index


_VOCAB_FIELDS = ("word_to_stem", "stem_to_sid", "word_to_id")


def _top_rows(scores: np.ndarray, count: int) -> np.ndarray:
    """The rows of the `count` highest positive scores (any order)."""
    matched = np.flatnonzero(scores > 0)
    return _top_rows_of(matched, scores[matched], count)


def _top_rows_of(rows: np.ndarray, scores: np.ndarray, count: int) -> np.ndarray:
    if len(rows) > count:
        rows = rows[np.argpartition(-scores, count - 1)[:count]]
    return rows.astype(np.int64)


class Ragged:
    """Rows of int32 arrays of any length: a flat array and its offsets as a file holds them
    (memory-mapped, never split into a hundred thousand arrays), and the rows appended since."""

    def __init__(self, flat: np.ndarray | None = None, offsets: np.ndarray | None = None) -> None:
        self._flat = np.zeros(0, dtype=np.int32) if flat is None else np.asarray(flat, dtype=np.int32)
        self._offsets = np.zeros(1, dtype=np.int64) if offsets is None else np.asarray(offsets, dtype=np.int64)
        if len(self._offsets) < 1 or self._offsets[0] != 0 or self._offsets[-1] != len(self._flat):
            raise ValueError("the saved rows' offsets do not fit their data")  # (the store checks the rest)
        self._saved = len(self._offsets) - 1
        self._more: list[np.ndarray] = []

    def __len__(self) -> int:
        return self._saved + len(self._more)

    def __getitem__(self, row: int) -> np.ndarray:
        if row < self._saved:
            return self._flat[self._offsets[row] : self._offsets[row + 1]]
        return self._more[row - self._saved]

    def extend(self, rows: Iterable[np.ndarray]) -> None:
        self._more.extend(rows)

    def flatten(self) -> tuple[np.ndarray, np.ndarray]:
        """Every row as one flat array and its offsets."""
        lengths = np.fromiter((len(row) for row in self._more), dtype=np.int64, count=len(self._more))
        offsets = np.concatenate([self._offsets, self._offsets[-1] + np.cumsum(lengths)])
        flat = np.concatenate([self._flat, *self._more]).astype(np.int32)
        return flat, offsets


def _saved_bm25(rows: int, arrays: Mapping[str, np.ndarray], local: dict[int, int]) -> bm25s.BM25:
    import bm25s

    bm25 = bm25s.BM25()
    bm25.scores = {"data": arrays["data"], "indices": arrays["indices"], "indptr": arrays["indptr"], "num_docs": rows}
    bm25.vocab_dict = dict(local)
    bm25.unique_token_ids_set = set(local.values())
    bm25.nonoccurrence_array = None  # the default method ("lucene") has none
    return bm25
