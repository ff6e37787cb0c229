"""Options shared by every command, accepted on the group and on each command alike.

`local-agent --data-dir D memory list` and `local-agent memory list --data-dir D` both work:
a command's own value wins over the group's; values left unset fall through to the
environment (LOCAL_AGENT_*) and then the config file (see config.load_settings).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from ..config import Settings, load_settings
from ..types import BACKEND_NAMES

if TYPE_CHECKING:
    from ..app import BackendFactory

COMMON_OPTIONS: list[tuple[tuple[str, ...], dict[str, Any]]] = [
    (("--model", "-m"), dict(help="Registry name, path to a .gguf file, or path to a Hugging Face model folder.")),
    (("--distill-model",), dict(help="A separate model for distilling memories (default: the chat model).")),
    (("--backend",), dict(type=click.Choice(["auto", *BACKEND_NAMES]),
                          help="Runtime; auto picks by hardware (see `local-agent info`).")),
    (("--device",), dict(type=click.Choice(["auto", "cpu", "cuda"]), help="Where the model runs.")),
    (("--ctx-size",), dict(type=int, help=f"Context window in tokens [{Settings.ctx_size}].")),
    (("--threads",), dict(type=int, help="CPU threads, at most the machine's cores (0: physical cores).")),
    (("--max-tokens",), dict(type=int, help=f"Longest answer in tokens [{Settings.max_tokens}].")),
    (("--memory-tokens",), dict(type=int, help="Prompt room for recalled memories, in tokens "
                                                f"[{Settings.memory_tokens}]; fewer answer sooner on a slow "
                                                "CPU, from less memory.")),
    (("--temperature",), dict(type=float, help="Sampling temperature; 0 is greedy and deterministic "
                                               f"[{Settings.temperature:g}].")),
    (("--top-p",), dict(type=float, help=f"Nucleus sampling threshold [{Settings.top_p:g}].")),
    (("--repeat-penalty",), dict(type=float, help="Penalty for repeating recent tokens; 1 is off "
                                                  f"[{Settings.repeat_penalty:g}].")),
    (("--seed",), dict(type=int, help=f"Random seed for sampling [{Settings.seed}].")),
    (("--data-dir",), dict(type=click.Path(file_okay=False), help="Where memories and sessions live.")),
    (("--today",), dict(help="Take this as today: YYYY-MM-DD or YYYY-MM-DDTHH:MM (default: the clock).")),
    (("--tools",), dict(is_flag=True, default=None, help="Let the assistant use its offline tools (calculator, "
                                                        "dates, memory search; --db and --notes add more).")),
    (("--db",), dict(metavar="FILE", help="A SQLite file the SQL tools may read (never write); implies --tools.")),
    (("--notes",), dict(metavar="DIR", help="A folder of .txt/.md notes the notes search reads; implies --tools.")),
    (("--max-steps",), dict(type=int, help=f"Model steps in one tool-using turn [{Settings.max_steps}].")),
    (("--tool-timeout",), dict(type=float, help=f"Seconds one tool call may take [{Settings.tool_timeout:g}].")),
    (("--mcp-server", "mcp_servers"), dict(multiple=True, metavar="'CMD ARGS'",
                                            help="A stdio MCP server whose tools join the assistant's with "
                                                 "--tools (repeat for more; replaces config's mcp_servers).")),
    (("--approve",), dict(is_flag=True, default=None, help="Ask on the terminal before each tool call.")),
    (("--verbose", "-v"), dict(is_flag=True, default=None, help="Show the backend choice, timings and notices.")),
    (("--debug",), dict(is_flag=True, default=None, help="Show tracebacks on errors.")),
]
OPTION_NAMES = [next((d for d in decls if not d.startswith("-")), decls[0].lstrip("-").replace("-", "_"))
                for decls, _ in COMMON_OPTIONS]

_state = {"debug": False}


def debug_enabled() -> bool:
    return _state["debug"]


def common_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the shared options to a group or command and merge their values into ctx.obj."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        flags = ctx.ensure_object(dict).setdefault("flags", {})
        for name in OPTION_NAMES:
            value = kwargs.pop(name, None)
            if value is not None and value != ():  # a repeatable option given no value
                flags[name] = value
        if flags.get("debug"):
            _state["debug"] = True
        return command(*args, **kwargs)

    for decls, attrs in reversed(COMMON_OPTIONS):
        wrapper = click.option(*decls, **{"default": None, **attrs})(wrapper)
    return wrapper


def settings_from(ctx: click.Context, **extra: Any) -> Settings:
    """Resolve settings from the merged flags plus command-specific overrides."""
    flags = dict(ctx.ensure_object(dict).get("flags", {}))
    flags.update({k: v for k, v in extra.items() if v is not None})
    settings = load_settings(flags)
    if settings.debug:
        _state["debug"] = True
    return settings


def backend_factory(ctx: click.Context) -> BackendFactory:
    """What loads the model: backends.create_backend, unless whoever started the command line
    gave another as `obj={"backend_factory": ...}` (tests give a scripted model)."""
    from ..backends import create_backend

    return ctx.ensure_object(dict).get("backend_factory", create_backend)


def echo_err(message: str) -> None:
    click.echo(message, err=True)


def is_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()
