"""What the in-memory state asks of a snapshot on disk, so that opening a store reads no record:
the columns a search filters on, a record by its row (read when asked), an id's row, and the
rows that keys and conversations last pointed to. store/columns.py provides it over the JSON
snapshot and its columns file.

Keys and sessions are looked up through a 64-bit hash of their text (`label_hash`); the state
reads the record a hash leads to and checks its key or session, so a collision is never
taken for a match.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ...types import MemoryRecord
from .mention_times import MentionColumns
from .said_times import SaidColumns

if TYPE_CHECKING:
    from .traits import TraitColumns  # (traits.py uses label_hash below)


class SavedRows(Protocol):
    """The records of a snapshot, in row order."""

    @property
    def kinds(self) -> np.ndarray:
        """int8 per row: vectors.KIND_CODES."""
        ...

    @property
    def active(self) -> np.ndarray:
        """bool per row: not superseded."""
        ...

    @property
    def said(self) -> SaidColumns:
        """When each row was said."""
        ...

    @property
    def mentions(self) -> MentionColumns:
        """The times each row's words name."""
        ...

    @property
    def traits(self) -> TraitColumns:
        """What each row's words and provenance say to the ranker."""
        ...

    @property
    def turn_before(self) -> np.ndarray:
        """int32 per row: the row of the turn said just before it in its conversation (-1: none)."""
        ...

    def __len__(self) -> int: ...

    def record(self, row: int) -> MemoryRecord:
        """The record at `row`, read from disk (a new object each time)."""
        ...

    def find(self, ident: str) -> int | None:
        """The row of the record with id `ident`, if the snapshot holds it."""
        ...

    def with_prefix(self, prefix: str) -> list[int]:
        """The rows whose id starts with `prefix`."""
        ...

    def keyed(self, key: tuple[str, str]) -> list[int]:
        """Rows that may be the active fact with this normalized key (the last one in row order
        when the snapshot was written): to be checked by reading them."""
        ...

    def last_turns(self, session: str) -> list[int]:
        """Rows that may be the session's last turns (oldest first): to be checked likewise."""
        ...


def norm_key(key: tuple[str, str]) -> tuple[str, str]:
    """A fact's key as lookups compare it: trimmed, lowercase."""
    return (key[0].strip().lower(), key[1].strip().lower())


def label_hash(text: str) -> int:
    """A stable 64-bit hash of a key or session (never 0, which marks "none" in a column)."""
    digest = int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")
    return digest or 1


def key_label(key: tuple[str, str]) -> str:
    subject, attribute = norm_key(key)
    return f"{subject}\x1f{attribute}"
