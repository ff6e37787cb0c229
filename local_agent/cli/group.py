"""The `local-agent` command group; every command module registers itself on it."""

from __future__ import annotations

import json

import click

from .. import __version__
from .options import common_options


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


def print_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=None))
