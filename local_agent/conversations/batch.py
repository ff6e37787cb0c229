"""Scripted conversations: JSON Lines in, JSON Lines out, one record per input line.

Each input line is `{"session": "...", "input": "..."}` (optional `max_tokens`,
`temperature`, `seed`, checked as the flags are; `date`, YYYY-MM-DD or YYYY-MM-DDTHH:MM, which
is that line's today and dates what it stores; and `user`, the memory namespace the line's
session lives in, as the server's `user`: users/NAME in the data dir; any other key is an
error); turns of one session run in order with memory. A plain text file is one message a line, all in one session
named after the file. A bad line becomes an error record and the batch goes on; the output is
flushed line by line so an interrupted run leaves a valid file, and --resume cuts a torn last
record before it appends.
"""

from __future__ import annotations

import json
import os
import re
import stat
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from ..config import Settings, with_overrides
from ..dates.clock import parse_today
from ..errors import LocalAgentError
from ..limits import message_problem
from ..memory.sessions import validate_session_name
from ..memory.store.datadir import NAMESPACE_NAME
from ..turn.result import TurnResult

MAX_LINE_BYTES = 1_000_000
DEFAULT_SESSION = "batch"
OVERRIDES = ("max_tokens", "temperature", "seed")
FIELDS = ("session", "input", "date", "user", *OVERRIDES)


@dataclass
class BatchItem:
    line: int
    session: str = DEFAULT_SESSION
    input: str = ""
    overrides: dict[str, Any] = field(default_factory=dict)
    error: str | None = None
    today: str | None = None  # the line's `date`
    user: str | None = None  # the line's memory namespace (None: the data dir's own)


def _decode(line: int, raw: bytes) -> str | BatchItem:
    if len(raw) > MAX_LINE_BYTES:
        return BatchItem(line, error=f"line is over {MAX_LINE_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return BatchItem(line, error=f"line is not valid UTF-8 ({exc.reason} at byte {exc.start})")


def _load_json(text: str) -> Any:
    """The line's JSON value; raises ValueError with a message for the error record."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:  # "[[[[..." a hundred thousand deep
        raise ValueError("invalid JSON: nested too deeply") from None


def _from_json(line: int, text: str, settings: Settings) -> BatchItem:
    try:
        data = _load_json(text)
    except ValueError as exc:
        return BatchItem(line, error=str(exc))
    if not isinstance(data, dict):
        return BatchItem(line, error="each line must be a JSON object")
    if "input" not in data:
        return BatchItem(line, error="missing field 'input'")
    session = data.get("session", DEFAULT_SESSION)
    if not isinstance(data["input"], str) or not isinstance(session, str):
        return BatchItem(line, error="'input' and 'session' must be strings")
    try:
        validate_session_name(session)
    except LocalAgentError as exc:  # the record keeps the default session: no file gets this name
        return BatchItem(line, input=data["input"], error=str(exc))
    item = BatchItem(line, session=session, input=data["input"], error=_line_error(data))
    if item.error is None:
        try:  # the same conversions and bounds as flags and config (one bad line, not the batch)
            item.overrides = with_overrides(settings, {k: data[k] for k in OVERRIDES if k in data}, f"line {line}")
            if "date" in data:
                parse_today(data["date"], f"line {line}: date")
                item.today = data["date"].strip()
            item.user = data.get("user")
        except LocalAgentError as exc:
            item.error = str(exc)
    return item


def _line_error(data: dict[str, Any]) -> str | None:
    unknown = [key for key in data if key not in FIELDS]
    if unknown:
        return f"unknown field {unknown[0]!r} (known: {', '.join(FIELDS)})"
    if not data["input"].strip():
        return "'input' is empty"
    if message_problem(data["input"]):
        return f"'input' has {message_problem(data['input'])}"
    if "date" in data and not isinstance(data["date"], str):
        return "'date' must be a string, YYYY-MM-DD or YYYY-MM-DDTHH:MM"
    if "user" in data and not (isinstance(data["user"], str) and NAMESPACE_NAME.fullmatch(data["user"])):
        return "'user' must be a namespace name: 1-64 of A-Z, a-z, 0-9, _ and -"
    for name in OVERRIDES:  # JSON numbers only: "0.5" or true is no setting
        if name in data and (isinstance(data[name], bool) or not isinstance(data[name], (int, float))):
            return f"'{name}' must be a number"
    return None


def parse_lines(lines: Iterable[bytes], *, plain_text: bool, plain_session: str = DEFAULT_SESSION,
                settings: Settings | None = None) -> Iterator[BatchItem]:
    """Parse raw input lines (numbered from 1); blank lines are skipped. A line's settings are
    checked on top of `settings` (the run's; defaults when None)."""
    settings = settings if settings is not None else Settings()
    for number, line in enumerate(lines, start=1):
        decoded = _decode(number, line.rstrip(b"\r\n"))
        if isinstance(decoded, BatchItem):
            yield decoded
        elif decoded.strip() and plain_text:
            yield BatchItem(number, session=plain_session, input=decoded,
                            error=f"the line has {message_problem(decoded)}" if message_problem(decoded) else None)
        elif decoded.strip():
            yield _from_json(number, decoded, settings)


def looks_like_jsonl(path: Path | None, first_line: bytes) -> bool:
    if path is not None and path.suffix in {".jsonl", ".json", ".ndjson"}:
        return True
    return first_line.lstrip().startswith(b"{")


def session_name_for(path: Path) -> str:
    """A valid session name from a plain-text file's name: "my notes.txt" gives "my-notes"."""
    text = unicodedata.normalize("NFKD", path.stem).encode("ascii", "ignore").decode("ascii")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-_.")[:64].rstrip("-_.")
    try:
        validate_session_name(name)
    except LocalAgentError:
        return DEFAULT_SESSION
    return name


def same_file(output: Path, source: Path | int) -> bool:
    """Whether `output` is the regular file `source` (a path, or an open descriptor such as
    stdin's) under any name: symlinks, hard links and `..` all count. Devices and pipes
    (/dev/null both ways) are never the same file."""
    try:
        source_stat = os.fstat(source) if isinstance(source, int) else os.stat(source)
        output_stat = os.stat(output)
    except OSError:  # the output does not exist yet (or the source is no file)
        return False
    return stat.S_ISREG(output_stat.st_mode) and os.path.samestat(output_stat, source_stat)


def open_output(output: Path, *, append: bool) -> IO[str]:
    """Open the output privately (answers hold recalled memories): created 0600, and an
    existing file made 0600 before anything is written. With `append`, a torn last record
    left by an interrupted run is cut first so the file stays valid JSON Lines."""
    fd = os.open(output, (os.O_RDWR if append else os.O_WRONLY) | os.O_CREAT, 0o600)
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):  # leave /dev/null, a pipe or a terminal alone
            os.fchmod(fd, 0o600)
            if append:
                _end_on_a_record(fd)
            else:
                os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_END)
        return os.fdopen(fd, "w", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def _end_on_a_record(fd: int) -> None:
    """A last line without its newline is a complete record (add the newline) or a torn one
    (cut it: its input is answered again)."""
    with os.fdopen(os.dup(fd), "rb") as handle:
        data = handle.read()
    if not data or data.endswith(b"\n"):
        return
    start = data.rfind(b"\n") + 1
    try:
        complete = isinstance(_load_json(data[start:].decode("utf-8")), dict)
    except (ValueError, UnicodeDecodeError):
        complete = False
    if complete:
        os.lseek(fd, 0, os.SEEK_END)
        os.write(fd, b"\n")
    else:
        os.ftruncate(fd, start)


def done_lines(output: Path) -> set[int]:
    """Line numbers already answered in an earlier run's output (for --resume)."""
    done: set[int] = set()
    if not output.is_file():
        return done
    for raw in output.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = _load_json(raw)
        except ValueError:
            continue  # a torn line from an interrupted run is answered again
        if isinstance(record, dict) and record.get("error") is None and isinstance(record.get("line"), int):
            done.add(record["line"])
    return done


def item_record(item: BatchItem, result: TurnResult | None, turn: dict[str, Any] | None,
                error: str | None) -> dict[str, Any]:
    record: dict[str, Any] = {"line": item.line, "session": item.session, "input": item.input}
    if item.user is not None:
        record["user"] = item.user
    if turn is not None:
        record.update(turn)
    record["error"] = error
    return record


def answer_record(item: BatchItem, respond: Callable[[BatchItem], tuple[TurnResult | None, dict[str, Any]]]
                  ) -> dict[str, Any]:
    """The record of one line: its answer through `respond(item) -> (result, turn_json)`, or
    the line's error (a bad line, or the LocalAgentError answering it raised)."""
    error = item.error
    result = turn = None
    if error is None:
        try:
            result, turn = respond(item)
            error = turn.pop("error", None)
        except LocalAgentError as exc:
            error = str(exc)
    return item_record(item, result, turn, error)


@dataclass
class BatchRunner:
    """Runs items through `respond(item) -> (result, turn_json)` and writes one record each."""

    respond: Callable[[BatchItem], tuple[TurnResult | None, dict[str, Any]]]
    output: IO[str]
    fail_fast: bool = False
    failed: int = 0
    written: int = 0

    def run(self, items: Iterable[BatchItem], progress: Callable[[], None] = lambda: None) -> None:
        for item in items:
            record = answer_record(item, self.respond)
            self.write(record)
            progress()
            if record["error"] is not None:
                self.failed += 1
                if self.fail_fast:
                    break

    def write(self, record: dict[str, Any]) -> None:
        self.output.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.output.flush()
        self.written += 1
