"""A SQLite file opened for reading only, three times over: the URI asks for mode=ro (the
file name percent-quoted, so a '?' or '#' in it cannot add or cut URI parameters), the
connection is query_only, and an authorizer allows nothing but reading. A progress handler
ends any statement that runs past its time limit, and SQLite's own limits bound what one
value or statement may take."""

from __future__ import annotations

import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import ToolError

# PRAGMAs that describe the schema, allowed as statements; every other PRAGMA is refused.
TABLE_PRAGMAS = frozenset({"table_info", "table_xinfo", "table_list", "index_list", "index_info",
                           "index_xinfo", "foreign_key_list"})  # of a table or index, or of them all
VALUE_PRAGMAS = frozenset({"user_version", "schema_version", "application_id"})  # read only, never set
READ_PRAGMAS = TABLE_PRAGMAS | VALUE_PRAGMAS
# Functions that write files or load code, and printf/format: SQLite 3.40 repeats `%.*c` once
# per character even past SQLITE_LIMIT_LENGTH, so printf('%.*c', 2000000000, 'x') ran for
# 15 s in one call, where neither the progress handler nor an interrupt can stop it.
REFUSED_FUNCTIONS = frozenset({"load_extension", "fts3_tokenizer", "readfile", "writefile", "edit",
                               "printf", "format"})
_RECURSIVE = getattr(sqlite3, "SQLITE_RECURSIVE", 33)
MAX_VALUE_BYTES = 1_000_000  # the longest string or blob one value may be
MAX_SQL_CHARS = 10_000
MAX_LIKE_PATTERN_CHARS = 200  # LIKE and GLOB backtrack over the pattern
SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file
PROGRESS_STEPS = 1000  # virtual-machine steps between two looks at the clock


def database_uri(file: Path) -> str:
    """The read-only URI of `file`; Path.as_uri percent-quotes '?', '#' and '%'."""
    return Path(file).resolve().as_uri() + "?mode=ro"


def authorize(action: int, arg1: str | None, arg2: str | None, database: str | None, source: str | None) -> int:
    """SQLite's authorizer callback: reading yes, anything else no."""
    if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_READ, _RECURSIVE):
        return sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_FUNCTION:
        return sqlite3.SQLITE_DENY if (arg2 or "").lower() in REFUSED_FUNCTIONS else sqlite3.SQLITE_OK
    if action == sqlite3.SQLITE_PRAGMA:
        name = (arg1 or "").lower()
        if name in TABLE_PRAGMAS or (name in VALUE_PRAGMAS and arg2 is None):
            return sqlite3.SQLITE_OK
    return sqlite3.SQLITE_DENY


def check_database_file(file: Path) -> Path:
    """The resolved path of an existing regular file that is a SQLite database: it starts with
    SQLite's header, or is empty (SQLite's empty database). A FIFO would block SQLite's open,
    and any other file would be read as a database with no tables."""
    path = Path(file).expanduser().resolve()
    try:
        mode = path.stat().st_mode
    except OSError:
        raise ToolError(f"the database {file} does not exist") from None
    if not stat.S_ISREG(mode):
        raise ToolError(f"the database {file} is not a regular file")
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise ToolError(f"cannot read the database {file}: {exc.strerror}") from None
    if header and header != SQLITE_HEADER:
        raise ToolError(f"the database {file} is not a SQLite database")
    return path


@contextmanager
def read_only(file: Path, time_limit: float, stop: threading.Event | None = None) -> Iterator[sqlite3.Connection]:
    """A connection that can only read `file`; statements stop after `time_limit` seconds, or
    as soon as `stop` is set (by a caller that gave up waiting)."""
    path = check_database_file(file)
    try:
        connection = sqlite3.connect(database_uri(path), uri=True, check_same_thread=True)
    except sqlite3.Error as exc:
        raise ToolError(f"cannot open the database {file}: {exc}") from None
    try:
        connection.execute("PRAGMA query_only = ON")
        for limit, value in ((sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES),
                             (sqlite3.SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_CHARS),
                             (sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH, MAX_LIKE_PATTERN_CHARS),
                             (sqlite3.SQLITE_LIMIT_ATTACHED, 0)):
            connection.setlimit(limit, value)
        connection.set_authorizer(authorize)
        deadline = time.monotonic() + time_limit
        stopped = stop or threading.Event()
        connection.set_progress_handler(lambda: int(stopped.is_set() or time.monotonic() > deadline),
                                        PROGRESS_STEPS)
        yield connection
    finally:
        connection.close()
