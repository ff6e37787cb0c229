"""notes_search: hybrid search over a notes folder, its cache, and what it refuses to read."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from local_agent.errors import ToolError
from local_agent.tools.notes_files import MAX_NOTE_BYTES, NoteFile, list_notes, notes_root, read_note
from local_agent.tools.notes_index import EMBED_PIECE, FORMAT_VERSION, NotesIndex, chunk_text
from local_agent.tools.notes_search import cache_file_for, make_notes_search
from local_agent.tools.runner import run_tool

CONCEPTS = {"car": 0, "automobile": 0, "vehicle": 0, "wifi": 1, "password": 1, "dentist": 2, "tooth": 2}


class CountingEmbed:
    """A tiny embedding: one dimension per concept, so synonyms meet without sharing a word."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.texts += texts
        vectors = np.full((len(texts), 4), 0.01, dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().replace(".", " ").split():
                if word in CONCEPTS:
                    vectors[row, CONCEPTS[word]] += 1.0
        return vectors


class SlowEmbed(CountingEmbed):
    """CountingEmbed at `seconds` a text, which records whether two calls ever overlapped."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.calls = 0
        self._busy = threading.Lock()

    def __call__(self, texts: list[str]) -> np.ndarray:
        if not self._busy.acquire(blocking=False):
            raise AssertionError("two embed calls overlapped")
        try:
            self.calls += 1
            time.sleep(self.seconds * len(texts))
            return super().__call__(texts)
        finally:
            self._busy.release()


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    (folder / "home").mkdir(parents=True)
    (folder / "home" / "wifi.txt").write_text("Guest network Home-42.\nPassword: amber-7781\n")
    (folder / "dentist.md").write_text("# Dentist\nAppointment with Dr. Chen on 2025-04-02 at 9:15.\n")
    (folder / "garage.md").write_text("The car needs new tyres before winter.\n")
    (folder / "shopping.txt").write_text("Milk, eggs, bread.\n")
    return folder


def _search(folder: Path, cache: Path, query: str, embed=None) -> str:
    return make_notes_search(folder, cache, embed, "counting-v1")({"query": query})


def test_finds_the_note_that_answers(notes: Path, tmp_path: Path):
    text = _search(notes, tmp_path / "cache", "what is the guest wifi password")
    assert text.splitlines()[0] == "[home/wifi.txt] Guest network Home-42. Password: amber-7781"


def test_dense_side_finds_a_synonym(notes: Path, tmp_path: Path):
    assert "No note matches" in _search(notes, tmp_path / "c1", "automobile")
    assert _search(notes, tmp_path / "c2", "automobile", CountingEmbed()).startswith("[garage.md]")


def test_cache_is_private_and_reused_until_a_note_changes(notes: Path, tmp_path: Path):
    cache_dir = tmp_path / "cache"
    first = CountingEmbed()
    index = NotesIndex(notes, cache_file_for(notes, cache_dir), first, "counting-v1")
    index.refresh()
    cache = cache_file_for(notes, cache_dir)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600 and len(first.texts) == 4
    second = CountingEmbed()
    again = NotesIndex(notes, cache, second, "counting-v1")
    again.refresh()
    assert second.texts == []  # nothing re-embedded
    assert again.search("automobile")[0][0].note == "garage.md"
    assert second.texts == ["automobile"]  # only the query
    (notes / "garage.md").write_text("The bicycle needs a new chain.\n")
    os.utime(notes / "garage.md", ns=(1, 1))
    (notes / "shopping.txt").unlink()
    again.refresh()
    assert second.texts == ["automobile", "The bicycle needs a new chain."]
    hits = [chunk.note for chunk, _ in again.search("milk eggs bicycle", k=5)]
    assert hits[0] == "garage.md" and "shopping.txt" not in hits
    saved = json.loads(cache.read_text())
    assert sorted(saved["files"]) == ["dentist.md", "garage.md", "home/wifi.txt"]


def test_another_embedder_does_not_use_the_cached_vectors(notes: Path, tmp_path: Path):
    cache = cache_file_for(notes, tmp_path / "cache")
    NotesIndex(notes, cache, CountingEmbed(), "counting-v1").refresh()
    other = CountingEmbed()
    NotesIndex(notes, cache, other, "counting-v2").refresh()
    assert len(other.texts) == 4


def test_a_damaged_cache_is_rebuilt(notes: Path, tmp_path: Path):
    cache = cache_file_for(notes, tmp_path / "cache")
    cache.parent.mkdir()
    cache.write_text("{not json")
    index = NotesIndex(notes, cache)
    index.refresh()
    assert index.search("dentist")[0][0].note == "dentist.md"
    assert json.loads(cache.read_text())["format_version"] == FORMAT_VERSION


def test_symlinks_out_of_the_folder_are_refused(notes: Path, tmp_path: Path):
    secret = tmp_path / "secret.txt"
    secret.write_text("The launch code is zebra-99.\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "more.md").write_text("zebra-99 again\n")
    (notes / "link.txt").symlink_to(secret)
    (notes / "linked-folder").symlink_to(outside, target_is_directory=True)
    (notes / "inside.md").symlink_to(notes / "dentist.md")
    relatives = [note.relative for note in list_notes(notes_root(notes))]
    assert "link.txt" not in relatives and not any(r.startswith("linked-folder") for r in relatives)
    assert "inside.md" in relatives  # a link that stays inside is fine
    assert "No note matches" in _search(notes, tmp_path / "cache", "launch code zebra")


def test_a_fifo_in_the_folder_does_not_hang(notes: Path, tmp_path: Path):
    os.mkfifo(notes / "pipe.md")
    tool = make_notes_search(notes, tmp_path / "cache")
    outcome = run_tool(tool, {"query": "dentist"}, timeout=10)
    assert not outcome.timed_out and outcome.error is None
    assert outcome.result.startswith("[dentist.md]")


def test_a_note_swapped_for_a_fifo_or_link_after_listing_is_refused(notes: Path, tmp_path: Path):
    root = notes_root(notes)
    [note] = [n for n in list_notes(root) if n.relative == "shopping.txt"]
    (notes / "shopping.txt").unlink()
    os.mkfifo(notes / "shopping.txt")
    with pytest.raises(ToolError):
        read_note(note, root)
    (notes / "shopping.txt").unlink()
    (notes / "shopping.txt").symlink_to(tmp_path / "elsewhere.txt")
    (tmp_path / "elsewhere.txt").write_text("private")
    with pytest.raises(ToolError):
        read_note(note, root)
    with pytest.raises(ToolError, match="outside"):
        read_note(NoteFile("x.txt", tmp_path / "elsewhere.txt", 0, 7), root)


def test_only_small_visible_text_notes_are_read(notes: Path):
    (notes / "big.txt").write_bytes(b"a " * (MAX_NOTE_BYTES // 2 + 1))
    (notes / ".hidden.md").write_text("hidden")
    (notes / ".git").mkdir()
    (notes / ".git" / "HEAD.txt").write_text("ref")
    (notes / "photo.jpg").write_bytes(b"\xff\xd8")
    relatives = {note.relative for note in list_notes(notes_root(notes))}
    assert relatives == {"home/wifi.txt", "dentist.md", "garage.md", "shopping.txt"}


def test_a_missing_folder_is_an_error(tmp_path: Path):
    with pytest.raises(ToolError, match="does not exist"):
        make_notes_search(tmp_path / "nope", tmp_path / "cache")


def test_an_empty_folder_finds_nothing(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    assert _search(tmp_path / "empty", tmp_path / "cache", "anything") == "No note matches this query."


def test_chunks_join_paragraphs_and_split_long_ones():
    assert chunk_text("a b\n\nc d", words=3) == ["a b", "c d"]
    assert chunk_text("a b\n\nc", words=3) == ["a b c"]
    assert chunk_text(" ".join("w" for _ in range(7)), words=3) == ["w w w", "w w w", "w"]


def _large_note(folder: Path, chunks: int) -> None:
    """A note of `chunks` chunks, each a paragraph of its own; the last says where the car is."""
    paragraphs = [" ".join(f"filler{i}w{j}" for j in range(115)) for i in range(chunks - 1)]
    (folder / "journal.md").write_text("\n\n".join([*paragraphs, "The car is parked on level 3."]) + "\n")


def _saved_vectors(cache: Path, note: str) -> int:
    vectors = json.loads(cache.read_text())["files"][note]["vectors"]
    return 0 if vectors is None else vectors["shape"][0]


def test_a_large_note_is_indexed_in_pieces_within_the_time_given(notes: Path, tmp_path: Path):
    """Issue 23: a large note kept a search embedding for minutes. A search indexes for at most
    its `index_time`, searches every chunk by words at once, keeps the partial vectors, and the
    next search goes on where it stopped."""
    _large_note(notes, 200)
    embed = SlowEmbed(0.05)  # 10 s for the whole note
    tool = make_notes_search(notes, tmp_path / "cache", embed, "counting-v1", index_time=0.3)
    cache = cache_file_for(notes, tmp_path / "cache")
    start = time.monotonic()
    outcome = run_tool(tool, {"query": "where is it parked"}, timeout=5)
    assert time.monotonic() - start < 3 and not outcome.timed_out and outcome.error is None
    # the last chunk, found by its words before it is embedded
    assert "[journal.md] The car is parked on level 3." in outcome.result.splitlines()
    first = _saved_vectors(cache, "journal.md")
    assert 0 < first < 200 and first % EMBED_PIECE == 0
    tool({"query": "where is the car parked"})
    assert first < _saved_vectors(cache, "journal.md") < 200  # went on, kept in the cache
    embed.seconds = 0.0
    index = NotesIndex(notes, cache, embed, "counting-v1")
    assert index.pending() >= 200 - _saved_vectors(cache, "journal.md")  # shopping.txt may wait too
    assert index.refresh() and index.pending() == 0  # no deadline: all of it
    assert _saved_vectors(cache, "journal.md") == 200


def test_a_partly_embedded_note_is_searched_by_meaning_as_far_as_it_goes(notes: Path, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch):
    import local_agent.tools.notes_index as notes_index

    clock = [0.0]
    monkeypatch.setattr(notes_index, "time", SimpleNamespace(monotonic=lambda: clock[0]))

    def embed(texts: list[str]) -> np.ndarray:  # each piece takes a second of the index's clock
        clock[0] += 1.0
        return CountingEmbed()(texts)

    _large_note(notes, 40)
    partial = NotesIndex(notes, cache_file_for(notes, tmp_path / "cache"), embed, "counting-v1")
    assert not partial.refresh(deadline=2.5)  # dentist.md and garage.md, then out of time
    assert partial.pending() == 1 + 40 + 1
    assert partial.search("automobile")[0][0].note == "garage.md"  # by meaning
    by_words = [chunk.text for chunk, _ in partial.search("parked on level 3")]
    assert "The car is parked on level 3." in by_words  # by words, not embedded yet
    assert partial.refresh() and partial.pending() == 0


def test_the_embedder_is_free_soon_after_a_search_that_ran_out_of_time(notes: Path, tmp_path: Path):
    """What the turn's own memory work needs: no search thread still embedding after the call."""
    _large_note(notes, 400)
    embed = SlowEmbed(0.02)
    tool = make_notes_search(notes, tmp_path / "cache", embed, "counting-v1", index_time=0.2)
    outcome = run_tool(tool, {"query": "parked car"}, timeout=5)
    assert not outcome.timed_out
    calls = embed.calls
    time.sleep(0.5)
    assert embed.calls == calls  # nothing embeds behind the caller's back
