"""Scripted conversations: JSON Lines in, JSON Lines out, one record per input line.

Each input line is `{"session": "...", "input": "..."}` (optional `max_tokens`,
`temperature`, `seed`); turns of one session run in order with memory. A plain text file is
one message a line, all in one session. A bad line becomes an error record and the batch
goes on; the output is flushed line by line so an interrupted run leaves a valid file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .agent import TurnResult
from .errors import LocalAgentError
from .memory.sessions import validate_session_name

MAX_LINE_BYTES = 1_000_000
DEFAULT_SESSION = "batch"
OVERRIDES = {"max_tokens": int, "temperature": (int, float), "seed": int}


@dataclass
class BatchItem:
    line: int
    session: str = DEFAULT_SESSION
    input: str = ""
    overrides: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


def _decode(line: int, raw: bytes) -> str | BatchItem:
    if len(raw) > MAX_LINE_BYTES:
        return BatchItem(line, error=f"line is over {MAX_LINE_BYTES} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return BatchItem(line, error=f"line is not valid UTF-8 ({exc.reason} at byte {exc.start})")


def _from_json(line: int, text: str) -> BatchItem:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return BatchItem(line, error=f"invalid JSON: {exc.msg} at column {exc.colno}")
    if not isinstance(data, dict):
        return BatchItem(line, error="each line must be a JSON object")
    if "input" not in data:
        return BatchItem(line, error="missing field 'input'")
    session = data.get("session", DEFAULT_SESSION)
    if not isinstance(data["input"], str) or not isinstance(session, str):
        return BatchItem(line, error="'input' and 'session' must be strings")
    try:
        validate_session_name(session)
    except LocalAgentError as exc:  # one bad line must not stop the batch
        return BatchItem(line, error=str(exc))
    if not data["input"].strip():
        return BatchItem(line, session=session, error="'input' is empty")
    item = BatchItem(line, session=session, input=data["input"])
    for name, kinds in OVERRIDES.items():
        if name in data:
            value = data[name]
            if isinstance(value, bool) or not isinstance(value, kinds):
                return BatchItem(line, session=session, input=data["input"], error=f"'{name}' must be a number")
            item.overrides[name] = value
    return item


def parse_lines(lines: Iterable[bytes], *, plain_text: bool, plain_session: str = DEFAULT_SESSION) -> Iterator[BatchItem]:
    """Parse raw input lines (numbered from 1); blank lines are skipped."""
    for number, raw in enumerate(lines, start=1):
        raw = raw.rstrip(b"\r\n")
        decoded = _decode(number, raw)
        if isinstance(decoded, BatchItem):
            yield decoded
        elif decoded.strip():
            yield BatchItem(number, session=plain_session, input=decoded) if plain_text else _from_json(number, decoded)


def looks_like_jsonl(path: Path | None, first_line: bytes) -> bool:
    if path is not None and path.suffix in {".jsonl", ".json", ".ndjson"}:
        return True
    return first_line.lstrip().startswith(b"{")


def done_lines(output: Path) -> set[int]:
    """Line numbers already answered in an earlier run's output (for --resume)."""
    done: set[int] = set()
    if not output.is_file():
        return done
    for raw in output.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            record = json.loads(raw)
        except json.JSONDecodeError:
            continue  # a torn last line from an interrupted run is answered again
        if isinstance(record, dict) and record.get("error") is None and isinstance(record.get("line"), int):
            done.add(record["line"])
    return done


def item_record(item: BatchItem, result: TurnResult | None, turn: dict[str, Any] | None, error: str | None) -> dict[str, Any]:
    record: dict[str, Any] = {"line": item.line, "session": item.session, "input": item.input}
    if turn is not None:
        record.update(turn)
    record["error"] = error
    return record


@dataclass
class BatchRunner:
    """Runs items through `respond(item) -> (result, turn_json)` and writes one record each."""

    respond: Callable[[BatchItem], tuple[TurnResult, dict[str, Any]]]
    output: IO[str]
    fail_fast: bool = False
    failed: int = 0
    written: int = 0

    def run(self, items: Iterable[BatchItem], progress: Callable[[], None] = lambda: None) -> None:
        for item in items:
            error = item.error
            result = turn = None
            if error is None:
                try:
                    result, turn = self.respond(item)
                    error = turn.pop("error", None)
                except LocalAgentError as exc:
                    error = str(exc)
            self._write(item_record(item, result, turn, error))
            progress()
            if error is not None:
                self.failed += 1
                if self.fail_fast:
                    break

    def _write(self, record: dict[str, Any]) -> None:
        self.output.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.output.flush()
        self.written += 1
