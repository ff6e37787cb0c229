"""The `local-agent` command line: thin front ends over the agent, memory and batch runner."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .. import __version__
from ..errors import LocalAgentError
from .notices import install_notice_printer
from .options import common_options, debug_enabled, echo_err


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="local-agent")
@common_options
def cli() -> None:
    """A private assistant that runs a small local model and remembers you.

    Nothing leaves this machine: no network, no API key, no account. Settings come from
    flags, then LOCAL_AGENT_* environment variables, then config.toml in your config folder.

    \b
    Start here:
      local-agent chat                 talk, with memory (Ctrl-D exits)
      local-agent ask "question"       one answer for scripts (--json)
      local-agent memory list          what it remembers about you
      local-agent info                 hardware and the backend it picks
    """


def main(obj: dict[str, Any] | None = None) -> None:
    """Console entry point: errors become one line and a non-zero exit code. `obj` starts the
    commands' context object (see options.backend_factory)."""
    install_notice_printer()
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


def print_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=None))


# Commands register themselves on `cli` when imported.
from . import batch_cmd, bench_cmd, chat, info, memory, serve_cmd  # noqa: E402,F401
