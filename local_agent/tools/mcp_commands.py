"""The MCP servers the user names (`mcp_servers` in config.toml, or `--mcp-server 'CMD ARGS'`):
each a command line, split as a shell would, started as a stdio MCP server.

The SDK starts a server with a stripped environment (HOME, PATH and a few more), so the
command is resolved here, in the assistant's own process: `python`/`python3` is the running
interpreter (sys.executable), and a bare name is looked for next to it first (a server
installed in the same virtual environment, as `pip install mcp-server-time` puts it), then
on PATH. A command found nowhere is a one-line ConfigError before any model loads.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError

PYTHON_NAMES = frozenset({"python", "python3", Path(sys.executable).name})
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]+")


@dataclass(frozen=True)
class ServerCommand:
    """One server: a short name (from its command), the program and its arguments."""

    name: str
    program: str
    args: tuple[str, ...]

    @property
    def line(self) -> str:
        return shlex.join([self.program, *self.args])


def server_name(argv: list[str]) -> str:
    """A short name for messages and logs: the program's name, or the module after `-m`."""
    program = Path(argv[0]).name
    if program in PYTHON_NAMES and "-m" in argv[:-1]:
        program = argv[argv.index("-m") + 1]
    return _NAME_CHARS.sub("-", program).strip("-")[:40] or "server"


def resolve_program(program: str) -> str:
    """The executable to start for `program`; ConfigError when there is none."""
    if program in PYTHON_NAMES:
        return sys.executable
    if os.sep in program:
        path = Path(program).expanduser()
        if path.is_file() and os.access(path, os.X_OK):
            return str(path.absolute())  # not resolved: a virtual environment's python is a link
        raise ConfigError(f"MCP server {program!r}: not an executable file")
    beside = Path(sys.executable).parent / program
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which(program)
    if found is None:
        raise ConfigError(f"MCP server {program!r}: command not found (installed? on PATH?)")
    return found


def parse_servers(lines: tuple[str, ...]) -> list[ServerCommand]:
    """The servers named in `lines`, resolved; ConfigError (one line) for a line that is empty,
    badly quoted or names no program; names made unique (`time`, `time-2`)."""
    servers: list[ServerCommand] = []
    taken: set[str] = set()
    for line in lines:
        try:
            argv = shlex.split(line)
        except ValueError as exc:
            raise ConfigError(f"mcp_servers: cannot split {line!r}: {exc}") from None
        if not argv:
            raise ConfigError("mcp_servers: an entry is empty")
        name = base = server_name(argv)
        number = 1
        while name in taken:
            number += 1
            name = f"{base}-{number}"
        taken.add(name)
        servers.append(ServerCommand(name, resolve_program(argv[0]), tuple(argv[1:])))
    return servers
