"""The `local-agent` command line: thin front ends over the agent, memory and batch runner."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..errors import LocalAgentError
from ..process import interrupts
from .group import cli, print_json
from .notices import install_notice_printer
from .options import debug_enabled, echo_err


def main(obj: dict[str, Any] | None = None) -> None:
    """Console entry point: errors become one line and a non-zero exit code. `obj` starts the
    commands' context object (see options.backend_factory)."""
    install_notice_printer()
    interrupts.install()  # a Ctrl-C that lands in llama.cpp's log callback is not lost
    try:
        cli.main(standalone_mode=False, prog_name="local-agent", obj=obj)
    except click.exceptions.Abort:
        echo_err("aborted")
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        echo_err("interrupted")
        sys.exit(130)
    except (LocalAgentError, OSError) as exc:
        if debug_enabled():
            raise
        echo_err(f"error: {_one_line(exc)}")
        sys.exit(1)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, OSError) and not isinstance(exc, LocalAgentError):
        return f"{exc.strerror or text}: {exc.filename}" if exc.filename else text
    return text


__all__ = ["cli", "main", "print_json"]
