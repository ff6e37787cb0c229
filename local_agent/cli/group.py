"""The `local-agent` command group. Each command module registers its commands on it when
imported, and it is imported only when one of its commands runs (or --help lists them all),
so that `ask` through a warm server loads none of the model and memory libraries."""

from __future__ import annotations

import importlib
import json

import click

from .. import __version__
from .options import common_options

# The module (in this package) that defines each command; tests check it is complete.
COMMAND_MODULES = {
    "ask": "chat", "chat": "chat", "batch": "batch_cmd", "bench": "bench_cmd", "info": "info",
    "models": "models_cmd", "sessions": "info", "memory": "memory", "serve": "serve_cmd",
    "mcp": "mcp_cmd",
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | COMMAND_MODULES.keys())

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(f"{__package__}.{COMMAND_MODULES[cmd_name]}")
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="local-agent")
@common_options
def cli() -> None:
    """A private assistant that runs a small local model and remembers you.

    Nothing leaves this machine: no API key, no account, and no network but the
    download you ask for with `models pull`. Settings come from flags, then
    LOCAL_AGENT_* environment variables, then config.toml in your config folder.

    \b
    Start here:
      local-agent chat                 talk, with memory (Ctrl-D exits)
      local-agent ask "question"       one answer for scripts (--json)
      local-agent batch FILE.jsonl     scripted conversations, JSON Lines in and out
      local-agent serve                OpenAI-compatible API and a page in the browser
      local-agent mcp                  your memory for MCP clients
      local-agent memory list          what it remembers about you
      local-agent models pull NAME     a bigger model, downloaded at your request
      local-agent bench --quick        speed of every backend on this machine
      local-agent info                 hardware and the backend it picks
    """


def print_json(data: object) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=None))
