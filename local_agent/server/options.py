"""The server's own options (where it listens, who may call it, how much it takes) and the
checks that refuse an unsafe start."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..config import MAX_IMPORT_BYTES
from ..errors import ConfigError

API_KEY_ENV = "LOCAL_AGENT_API_KEY"
DEFAULT_PORT = 8765
DEFAULT_MAX_QUEUE = 16
DEFAULT_MAX_BODY = 1_000_000  # bytes; the CLI's limit for one message on stdin
DEFAULT_MAX_IMPORT = MAX_IMPORT_BYTES  # the page's upload of past chats: import-chats' own limit
# Requests answered at once. 1: on the 2-core VM, 8 clients x 25 requests with 16-token answers gave
# 79.4 tokens/s and p95 1.79 s at --parallel 1 against 77.2 and 1.99 s at 4 (scripts/bench_server.py,
# docs/performance.md), and greedy answers of later turns can differ when decoded beside others.
# Raise it where the benchmark shows a gain (more cores, a GPU, long answers).
DEFAULT_PARALLEL = 1
# What `local-agent bench --sections server` compares with one at a time.
BENCH_PARALLEL = 4
MAX_PARALLEL = 64
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


@dataclass(frozen=True)
class ServerOptions:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT  # 0: a free port
    api_key: str | None = None
    max_queue: int = DEFAULT_MAX_QUEUE  # requests waiting, not counting those being served
    parallel: int = DEFAULT_PARALLEL  # requests answered at once (a llama.cpp model decodes them together)
    max_body: int = DEFAULT_MAX_BODY
    max_import: int = DEFAULT_MAX_IMPORT  # the page's import upload only (page.IMPORT_PATH)
    cors_origins: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()  # Host header names accepted besides loopback and the bound host
    socket: bool = True  # publish the warm-ask socket in the data dir
    memory: bool = True  # False: the server neither recalls nor remembers
    system: str | None = None  # the directive when a client sends no system message
    verbose: bool = False


def is_loopback(host: str) -> bool:
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_options(options: ServerOptions) -> None:
    """ConfigError for options the server must not start with."""
    if not is_loopback(options.host) and not options.api_key:
        raise ConfigError(f"refusing to listen on {options.host} without an API key: anyone who can reach it "
                          f"could read your memories; set {API_KEY_ENV}, --api-key-file or --api-key")
    if not 0 <= options.port <= 65535:
        raise ConfigError(f"--port must be between 0 and 65535, got {options.port}")
    if options.max_queue < 1:
        raise ConfigError(f"--max-queue must be at least 1, got {options.max_queue}")
    if not 1 <= options.parallel <= MAX_PARALLEL:
        raise ConfigError(f"--parallel must be between 1 and {MAX_PARALLEL}, got {options.parallel}")
    if options.max_body < 1024:
        raise ConfigError(f"--max-body must be at least 1024 bytes, got {options.max_body}")
    if options.max_import < 1024:
        raise ConfigError(f"--max-import must be at least 1024 bytes, got {options.max_import}")
    if options.api_key is not None and len(options.api_key) < 8:
        raise ConfigError("the API key must be at least 8 characters")


def check_tool_options(options: ServerOptions, tools_on: bool, approve: bool) -> None:
    """ConfigError unless the built-in tools are off, or on with an API key: a tool reads the
    user's database and notes for whoever may call the server. Approval needs a terminal,
    which a server has not."""
    if tools_on and not options.api_key:
        raise ConfigError(f"the built-in tools run in the server only with an API key: set {API_KEY_ENV}, "
                          "--api-key-file or --api-key, or leave --tools, --db and --notes off")
    if approve:
        raise ConfigError("--approve asks on a terminal, which a server has not: leave it off for serve")


def resolve_api_key(flag: str | None, key_file: Path | None, environ: Mapping[str, str] | None = None) -> str | None:
    """The API key from --api-key, else the key file, else LOCAL_AGENT_API_KEY (None: no key).
    A file or variable keeps the key out of `ps`."""
    environ = os.environ if environ is None else environ
    if flag:
        return flag.strip()
    if key_file is not None:
        try:
            key = Path(key_file).expanduser().read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read the API key file {key_file}: {exc}") from None
        if not key:
            raise ConfigError(f"the API key file {key_file} is empty")
        return key
    return environ.get(API_KEY_ENV, "").strip() or None


def allowed_host_names(options: ServerOptions) -> frozenset[str]:
    """Host header names (lower case, no port, no brackets) the server answers to."""
    names = {options.host.strip("[]").lower(), *(name.strip("[]").lower() for name in options.allowed_hosts)}
    return LOOPBACK_NAMES | names


def url_host(host: str) -> str:
    """`host` as it goes in a URL: IPv6 addresses in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
