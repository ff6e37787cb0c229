"""A hybrid index over the notes folder: BM25 (bm25s, stemmed) and, when an embedding
function is given, dense vectors; the two rankings are merged by reciprocal rank fusion.

Chunks and vectors are cached in a private file and kept per note with the note's mtime and
size, so a refresh re-reads and re-embeds only the notes that changed. The BM25 side is
rebuilt from the cached chunks, which takes milliseconds for a personal folder."""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import Stemmer
from bm25s.tokenization import Tokenizer

from ..process.files import atomic_write_json
from .notes_files import NoteFile, list_notes, notes_root, read_note

log = logging.getLogger(__name__)

EmbedFunction = Callable[[list[str]], np.ndarray]
"""texts -> one row vector per text (normalized or not: rows are normalized here)."""

FORMAT_VERSION = 1
CHUNK_WORDS = 120
RRF_K = 60  # the usual constant of reciprocal rank fusion
_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Chunk:
    note: str  # relative path of the note
    text: str


@dataclass
class _Entry:
    mtime_ns: int
    size: int
    chunks: list[str]
    vectors: np.ndarray | None


def chunk_text(text: str, words: int = CHUNK_WORDS) -> list[str]:
    """Paragraphs joined up to `words` words a chunk; a longer paragraph split by words."""
    chunks: list[str] = []
    current: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        tokens = paragraph.split()
        if current and len(current) + len(tokens) > words:
            chunks.append(" ".join(current))
            current = []
        while len(tokens) > words:
            chunks.append(" ".join(tokens[:words]))
            tokens = tokens[words:]
        current += tokens
    if current:
        chunks.append(" ".join(current))
    return chunks


class NotesIndex:
    """Search over one notes folder. `cache_file` is private to the user (0600)."""

    def __init__(self, folder: Path, cache_file: Path, embed: EmbedFunction | None = None,
                 embedder_id: str = "") -> None:
        self.root = notes_root(folder)
        self.cache_file = cache_file
        self.embed = embed
        self.embedder_id = embedder_id if embed is not None else ""
        self._entries = self._load_cache()
        self._chunks: list[Chunk] = []
        self._vectors: np.ndarray | None = None
        self._bm25: tuple[bm25s.BM25, Tokenizer] | None = None

    def refresh(self) -> None:
        """Bring the index up to date with the folder; write the cache when anything changed."""
        notes = list_notes(self.root)
        changed = set(self._entries) - {note.relative for note in notes}
        for relative in changed:
            del self._entries[relative]
        for note in notes:
            entry = self._entries.get(note.relative)
            if entry is None or (entry.mtime_ns, entry.size) != (note.mtime_ns, note.size):
                self._entries[note.relative] = self._index_note(note)
                changed.add(note.relative)
        if changed or self._bm25 is None:
            self._rebuild()
        if changed:
            self._save_cache()

    def search(self, query: str, k: int = 3) -> list[tuple[Chunk, float]]:
        """The `k` best chunks for `query` with their fused score (higher is closer)."""
        if not self._chunks:
            return []
        fused = np.zeros(len(self._chunks), dtype=np.float64)
        for ranking in (self._lexical_ranking(query), self._dense_ranking(query)):
            for rank, row in enumerate(ranking):
                fused[row] += 1.0 / (RRF_K + rank + 1)
        best = [int(row) for row in np.argsort(-fused, kind="stable")[:k] if fused[row] > 0]
        return [(self._chunks[row], float(fused[row])) for row in best]

    # -- indexing ------------------------------------------------------------------------
    def _index_note(self, note: NoteFile) -> _Entry:
        chunks = chunk_text(read_note(note, self.root))
        vectors = _normalized(self.embed(chunks)) if self.embed is not None and chunks else None
        return _Entry(note.mtime_ns, note.size, chunks, vectors)

    def _rebuild(self) -> None:
        self._chunks = [Chunk(relative, text) for relative, entry in sorted(self._entries.items())
                        for text in entry.chunks]
        blocks = [entry.vectors for _, entry in sorted(self._entries.items())
                  if entry.vectors is not None and len(entry.chunks)]
        self._vectors = np.concatenate(blocks) if self.embed is not None and blocks else None
        self._bm25 = _build_bm25([f"{c.note} {c.text}" for c in self._chunks]) if self._chunks else None

    def _lexical_ranking(self, query: str) -> list[int]:
        if self._bm25 is None:
            return []
        bm25, tokenizer = self._bm25
        empty = tokenizer.get_vocab_dict().get("")  # what a query of unknown words becomes
        known = [token for token in tokenizer.tokenize([query], update_vocab=False, show_progress=False)[0]
                 if token != empty]
        if not known:
            return []
        scores = bm25.get_scores(list(known))
        return [int(row) for row in np.argsort(-scores, kind="stable") if scores[row] > 0]

    def _dense_ranking(self, query: str, depth: int = 50) -> list[int]:
        if self.embed is None or self._vectors is None or len(self._vectors) != len(self._chunks):
            return []
        similarity = self._vectors @ _normalized(self.embed([query]))[0]
        return [int(row) for row in np.argsort(-similarity, kind="stable")[:depth]]

    # -- cache ---------------------------------------------------------------------------
    def _load_cache(self) -> dict[str, _Entry]:
        try:
            data = json.loads(self.cache_file.read_text(encoding="utf-8"))
            if (data.get("format_version"), data.get("folder"), data.get("embedder_id")) != (
                    FORMAT_VERSION, str(self.root), self.embedder_id):
                return {}
            return {relative: _entry_from(raw) for relative, raw in data["files"].items()}
        except FileNotFoundError:
            return {}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("notes index cache %s is unreadable (%s); rebuilding it", self.cache_file, exc)
            return {}

    def _save_cache(self) -> None:
        files = {relative: _entry_to(entry) for relative, entry in self._entries.items()}
        atomic_write_json(self.cache_file, {"format_version": FORMAT_VERSION, "folder": str(self.root),
                                            "embedder_id": self.embedder_id, "files": files})


def _build_bm25(documents: list[str]) -> tuple[bm25s.BM25, Tokenizer]:
    tokenizer = Tokenizer(lower=True, stopwords="en", stemmer=Stemmer.Stemmer("english"))
    ids = tokenizer.tokenize(documents, update_vocab=True, show_progress=False)
    bm25 = bm25s.BM25()
    bm25.index((ids, tokenizer.get_vocab_dict()), show_progress=False)
    return bm25, tokenizer


def _normalized(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def _entry_to(entry: _Entry) -> dict[str, Any]:
    vectors = None
    if entry.vectors is not None:
        vectors = {"shape": list(entry.vectors.shape),
                   "float32": base64.b64encode(entry.vectors.astype("<f4").tobytes()).decode("ascii")}
    return {"mtime_ns": entry.mtime_ns, "size": entry.size, "chunks": entry.chunks, "vectors": vectors}


def _entry_from(raw: dict[str, Any]) -> _Entry:
    vectors = None
    if raw.get("vectors"):
        flat = np.frombuffer(base64.b64decode(raw["vectors"]["float32"]), dtype="<f4")
        vectors = flat.reshape(raw["vectors"]["shape"]).astype(np.float32)
    chunks = [str(text) for text in raw["chunks"]]
    if vectors is not None and len(vectors) != len(chunks):
        raise ValueError("vectors and chunks differ in number")
    return _Entry(int(raw["mtime_ns"]), int(raw["size"]), chunks, vectors)
