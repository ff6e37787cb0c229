"""`notes_search`: the passages of the user's notes folder that best match a query."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from pathlib import Path

from ..errors import ToolError
from .base import Tool, object_schema, text_property
from .notes_index import EmbedFunction, NotesIndex
from .text import cut

MAX_QUERY_CHARS = 200
PASSAGE_CHARS = 700
log = logging.getLogger(__name__)

DESCRIPTION = "Search the user's notes (text and markdown files) for a query; returns the best passages."


def cache_file_for(folder: Path, cache_dir: Path) -> Path:
    """One private cache file per notes folder, named by a hash of its real path."""
    digest = hashlib.sha256(str(Path(folder).expanduser().resolve()).encode("utf-8")).hexdigest()[:16]
    return cache_dir / f"notes-{digest}.json"


class NotesSearch:
    """Refreshes the index (a stat of each note) before every search, so edits show at once.

    `index_time` bounds the indexing one search may do, in seconds (None: all of it): a large
    new note is then searched by words at once, and by meaning as far as it is embedded; later
    searches go on embedding it. Keep it well under the call's time limit, so that the call
    answers in time and leaves no thread behind holding the embedder."""

    def __init__(self, index: NotesIndex, k: int = 3, index_time: float | None = None) -> None:
        self.index = index
        self.k = k
        self.index_time = index_time
        self._lock = threading.Lock()  # one search at a time over the index

    def __call__(self, query: str) -> str:
        started = time.monotonic()
        deadline = None if self.index_time is None else started + self.index_time
        if not self._lock.acquire(timeout=-1 if self.index_time is None else self.index_time):
            raise ToolError("the notes index is busy with an earlier search; try again")
        try:
            if not self.index.refresh(deadline):
                log.info("notes index: %d chunks still to embed; the next search goes on", self.index.pending())
            hits = self.index.search(query, self.k)
        finally:
            self._lock.release()
        if not hits:
            return "No note matches this query."
        return "\n".join(f"[{chunk.note}] {cut(chunk.text, PASSAGE_CHARS)}" for chunk, _ in hits)


def make_notes_search(folder: Path, cache_dir: Path, embed: EmbedFunction | None = None,
                      embedder_id: str = "", k: int = 3, index_time: float | None = None) -> Tool:
    index = NotesIndex(folder, cache_file_for(folder, cache_dir), embed, embedder_id)
    parameters = object_schema({"query": text_property("what to look for", MAX_QUERY_CHARS)})
    return Tool("notes_search", DESCRIPTION, parameters, NotesSearch(index, k, index_time))
