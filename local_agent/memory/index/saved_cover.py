"""Which rows a snapshot's saved columns still describe: those it holds, less the ones replaced
in place since (mention_times.py and traits.py read the others from their records)."""

from __future__ import annotations

import numpy as np


class SavedCover:
    def __init__(self, saved_rows: int) -> None:
        self._saved_rows = saved_rows
        self._changed: set[int] = set()  # snapshot rows replaced since (their saved columns may be stale)

    def refresh(self, row: int) -> None:
        """A record replaced in place: its saved columns no longer count."""
        if row < self._saved_rows:
            self._changed.add(row)

    def covers(self, rows: np.ndarray) -> np.ndarray:
        """For each of `rows`, whether the saved columns describe it."""
        inside = np.asarray(rows) < self._saved_rows
        if self._changed and inside.any():
            inside &= ~np.isin(rows, np.fromiter(self._changed, dtype=np.int64, count=len(self._changed)))
        return inside
