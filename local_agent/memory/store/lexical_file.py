"""The persisted lexical (BM25) index: `lexical-<gen>.bin` beside the snapshot of that generation.

Opening a store then tokenizes and indexes only the journal's tail, not every record, and reads
none of the index: the file is an arrays file (arrays_file.py), memory-mapped, and a search
reads the postings of its query's words. The file is derived data and never trusted: its
header names the generation, the record count and what it indexes: the snapshot's own
checksum of its record lines (which cover every id, text and session the index is made from),
or, for a snapshot without a checksum that holds, a checksum of the record ids and of the text
each row is indexed by; a file that disagrees
with the snapshot, or cannot be read, is ignored and the index is rebuilt from the records
(with one logged notice) and saved again. It is written at compaction, atomically, before the
snapshot that it belongs to (like the vectors), so `forget` rewrites it without the forgotten
words and compaction deletes the old generations'.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from ...types import MemoryRecord
from ..index.lexical import LexicalIndex
from ..index.render import lexical_text
from .arrays_file import ArraysFile, write_arrays

log = logging.getLogger(__name__)

LEXICAL_FORMAT = 3  # 2 was lexical-<gen>.npz, read whole
LEXICAL_KIND = "local-agent lexical index"


@dataclass(frozen=True)
class LexicalStamp:
    """What a lexical file must match to be used."""

    format: int
    generation: int
    count: int
    content: str  # "records:<the snapshot's records_sha256>" or "texts:<ids and texts checksum>"


def stamp_for(generation: int, records: Sequence[MemoryRecord], records_sha256: str | None = None) -> LexicalStamp:
    """The stamp of an index over `records`; `records_sha256`: the checksum of the snapshot
    lines that hold them (only when it was verified or just written)."""
    if records_sha256 is not None:
        return LexicalStamp(LEXICAL_FORMAT, generation, len(records), f"records:{records_sha256}")
    texts = hashlib.sha256("\n".join(record.id for record in records).encode("utf-8") + b"\0")
    for record in records:
        texts.update(lexical_text(record).encode("utf-8", "surrogatepass") + b"\0")
    return LexicalStamp(LEXICAL_FORMAT, generation, len(records), f"texts:{texts.hexdigest()}")


def write_lexical(path: Path, index: LexicalIndex, stamp: LexicalStamp) -> None:
    """Save `index` (covering exactly the records `stamp` describes) atomically."""
    write_arrays(path, LEXICAL_KIND, index.to_arrays(), {"stamp": asdict(stamp)})


def read_lexical(path: Path, stamp: LexicalStamp, *, check_up_to: int = 0) -> tuple[LexicalIndex | None, str]:
    """The saved index (memory-mapped) if it matches `stamp`, else (None, why not). A file no
    larger than `check_up_to` bytes is read whole against its checksums (arrays_file.py)."""
    try:
        saved = ArraysFile(path, LEXICAL_KIND, check_up_to=check_up_to)
        if saved.meta.get("stamp") != asdict(stamp):
            return None, f"{path.name} does not match the snapshot"
        return LexicalIndex.from_arrays(saved), ""
    except FileNotFoundError:
        return None, f"{path.name} is missing"
    except (OSError, ValueError, KeyError, UnicodeDecodeError) as exc:
        return None, f"{path.name} cannot be read ({exc})"


def load_or_rebuild(path: Path, stamp: LexicalStamp, texts_known: bool, *, check_up_to: int) -> LexicalIndex | None:
    """The saved index, or None (the caller indexes the records) with one logged notice.
    `texts_known` False: there are no records, so nothing to load or say."""
    if not texts_known:
        return None
    index, reason = read_lexical(path, stamp, check_up_to=check_up_to)
    if index is None:
        log.warning("%s: rebuilding the lexical index of %d memories", reason, stamp.count)
    return index


def save_quietly(path: Path, index: LexicalIndex, stamp: LexicalStamp) -> None:
    """Save a rebuilt index for the next open; a failure only costs that open a rebuild."""
    try:
        write_lexical(path, index, stamp)
    except OSError as exc:
        log.warning("could not save the lexical index to %s (%s); it will be rebuilt next time", path, exc)
