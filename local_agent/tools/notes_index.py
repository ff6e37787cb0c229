"""A hybrid index over the notes folder: BM25 (bm25s, stemmed) and, when an embedding
function is given, dense vectors; the two rankings are merged by reciprocal rank fusion.

Chunks and vectors are cached in a private file and kept per note with the note's mtime and
size, so a refresh re-reads and re-embeds only the notes that changed. The BM25 side is
rebuilt from the cached chunks, which takes milliseconds for a personal folder.

Embedding is the slow part (a 1 MB note is about 2,000 chunks: minutes on a busy CPU), so a
refresh may be given a deadline: it embeds in pieces of EMBED_PIECE chunks and stops between
two pieces once the deadline has passed. A note's chunks are always all searched by words;
those not yet embedded wait for the next refresh, which goes on where this one stopped (the
partial vectors are cached too). Between pieces the embedder is free for others (the turn's
own memory work shares it)."""

from __future__ import annotations

import base64
import json
import logging
import re
import time
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

FORMAT_VERSION = 2  # 2: a note's vectors may cover only its first chunks (indexing goes on)
READABLE_VERSIONS = (1, FORMAT_VERSION)
CHUNK_WORDS = 120
EMBED_PIECE = 4  # chunks embedded at once: under a second on a busy 2-core machine
RRF_K = 60  # the usual constant of reciprocal rank fusion
_PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Chunk:
    note: str  # relative path of the note
    text: str


@dataclass
class _Entry:
    """One note: its chunks, and the vectors of its first `len(vectors)` chunks (None: none yet)."""

    mtime_ns: int
    size: int
    chunks: list[str]
    vectors: np.ndarray | None

    @property
    def embedded(self) -> int:
        return 0 if self.vectors is None else len(self.vectors)


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
        self._vector_rows: np.ndarray = np.zeros(0, dtype=np.int64)  # the chunk row of each vector
        self._bm25: tuple[bm25s.BM25, Tokenizer] | None = None

    def refresh(self, deadline: float | None = None) -> bool:
        """Bring the index up to date with the folder and write the cache when anything
        changed. With a `deadline` (time.monotonic()), reading notes and embedding stop
        between two pieces before it would pass. True when the index is complete."""
        notes = list_notes(self.root)
        changed = set(self._entries) - {note.relative for note in notes}
        for relative in changed:
            del self._entries[relative]
        unread = 0
        for note in notes:
            entry = self._entries.get(note.relative)
            if entry is None or (entry.mtime_ns, entry.size) != (note.mtime_ns, note.size):
                if deadline is not None and time.monotonic() >= deadline:
                    unread += 1
                    continue
                self._entries[note.relative] = self._read_note(note)
                changed.add(note.relative)
        changed |= self._embed_pending(deadline)
        if changed or self._bm25 is None:
            self._rebuild()
        if changed:
            self._save_cache()
        return unread == 0 and self.pending() == 0

    def pending(self) -> int:
        """Chunks read but not embedded yet."""
        if self.embed is None:
            return 0
        return sum(len(entry.chunks) - entry.embedded for entry in self._entries.values())

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
    def _read_note(self, note: NoteFile) -> _Entry:
        return _Entry(note.mtime_ns, note.size, chunk_text(read_note(note, self.root)), None)

    def _embed_pending(self, deadline: float | None) -> set[str]:
        """Embed the chunks still without a vector, EMBED_PIECE at a time, as long as the
        next piece (expected to take as long as the last) ends before `deadline`; the notes
        that got vectors."""
        embedded: set[str] = set()
        if self.embed is None:
            return embedded
        last_piece = 0.0
        for relative, entry in sorted(self._entries.items()):
            while entry.embedded < len(entry.chunks):
                started = time.monotonic()
                if deadline is not None and started + last_piece >= deadline:
                    return embedded
                piece = entry.chunks[entry.embedded : entry.embedded + EMBED_PIECE]
                vectors = _normalized(self.embed(piece))
                entry.vectors = vectors if entry.vectors is None else np.concatenate([entry.vectors, vectors])
                embedded.add(relative)
                last_piece = time.monotonic() - started
        return embedded

    def _rebuild(self) -> None:
        entries = sorted(self._entries.items())
        self._chunks = [Chunk(relative, text) for relative, entry in entries for text in entry.chunks]
        blocks: list[np.ndarray] = []
        rows: list[np.ndarray] = []
        first = 0
        for _, entry in entries:
            if entry.vectors is not None and entry.embedded:
                blocks.append(entry.vectors)
                rows.append(np.arange(first, first + entry.embedded))
            first += len(entry.chunks)
        self._vectors = np.concatenate(blocks) if self.embed is not None and blocks else None
        self._vector_rows = np.concatenate(rows) if self._vectors is not None else np.zeros(0, dtype=np.int64)
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
        """Chunk rows by closeness of meaning, over the chunks embedded so far."""
        if self.embed is None or self._vectors is None:
            return []
        similarity = self._vectors @ _normalized(self.embed([query]))[0]
        return [int(self._vector_rows[row]) for row in np.argsort(-similarity, kind="stable")[:depth]]

    # -- cache ---------------------------------------------------------------------------
    def _load_cache(self) -> dict[str, _Entry]:
        try:
            data = json.loads(self.cache_file.read_text(encoding="utf-8"))
            if data.get("format_version") not in READABLE_VERSIONS or (
                    data.get("folder"), data.get("embedder_id")) != (str(self.root), self.embedder_id):
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
    if vectors is not None and len(vectors) > len(chunks):
        raise ValueError("more vectors than chunks")
    return _Entry(int(raw["mtime_ns"]), int(raw["size"]), chunks, vectors)
