"""Running the real console entry point in-process: exit code, stdout and stderr."""

from __future__ import annotations

import sys

import pytest

from local_agent.backends.base import Backend
from local_agent.cli import main
from tests.fakes import scripted_cli_obj


def run_main(args: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
             stdin: bytes | None = None, *, backend: Backend | None = None) -> tuple[int, str, str]:
    """`local-agent ARGS` as a user runs it: errors become one line and an exit code. With
    `backend`, that (scripted) model answers instead of a real one."""
    import io

    capsys.readouterr()
    monkeypatch.setattr(sys, "argv", ["local-agent", *args])
    if stdin is not None:
        wrapper = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", wrapper)
    try:
        main(scripted_cli_obj(backend))
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def error_line(err: str) -> str:
    """The one `error: ...` line on stderr (notices may precede it)."""
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]
