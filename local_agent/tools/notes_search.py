"""`notes_search`: the passages of the user's notes folder that best match a query."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from .base import Tool, object_schema, text_property
from .notes_index import EmbedFunction, NotesIndex
from .text import cut

MAX_QUERY_CHARS = 200
PASSAGE_CHARS = 700
DESCRIPTION = "Search the user's notes (text and markdown files) for a query; returns the best passages."


def cache_file_for(folder: Path, cache_dir: Path) -> Path:
    """One private cache file per notes folder, named by a hash of its real path."""
    digest = hashlib.sha256(str(Path(folder).expanduser().resolve()).encode("utf-8")).hexdigest()[:16]
    return cache_dir / f"notes-{digest}.json"


class NotesSearch:
    """Refreshes the index (a stat of each note) before every search, so edits show at once."""

    def __init__(self, index: NotesIndex, k: int = 3) -> None:
        self.index = index
        self.k = k
        self._lock = threading.Lock()  # a timed-out call may still be running in its thread

    def __call__(self, query: str) -> str:
        with self._lock:
            self.index.refresh()
            hits = self.index.search(query, self.k)
        if not hits:
            return "No note matches this query."
        return "\n".join(f"[{chunk.note}] {cut(chunk.text, PASSAGE_CHARS)}" for chunk, _ in hits)


def make_notes_search(folder: Path, cache_dir: Path, embed: EmbedFunction | None = None,
                      embedder_id: str = "", k: int = 3) -> Tool:
    index = NotesIndex(folder, cache_file_for(folder, cache_dir), embed, embedder_id)
    parameters = object_schema({"query": text_property("what to look for", MAX_QUERY_CHARS)})
    return Tool("notes_search", DESCRIPTION, parameters, NotesSearch(index, k))
