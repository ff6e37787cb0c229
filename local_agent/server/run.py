"""Run the server: bind, say where, load the model, serve, and on Ctrl-C or SIGTERM drain.

The sockets are bound before anything loads, so `listening on ...` comes at once and a port
of 0 is known; requests answer 503 until the model is loaded (on the worker thread, the one
that will use it). On exit uvicorn stops accepting, waits for the requests in flight (their
answers and memory work), then the worker finishes what is queued and everything closes.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import uvicorn
from sse_starlette.sse import AppStatus

from ..app import BackendFactory, check_tool_sources
from ..backends import create_backend
from ..config import Settings
from ..errors import ConfigError
from ..process.files import ensure_private_dir
from .app import create_app
from .discovery import is_socket, private_socket_dir, safe_socket_dir, socket_path
from .engine import Engine
from .options import ServerOptions, check_options, check_tool_options, url_host
from .state import ServerState
from .worker import Worker

Status = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def bind_tcp(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets that say TCP, and
    # with Nagle on, each streamed token waits ~40 ms for the client's delayed ACK.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


def _alive(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.5)
    try:
        probe.connect(str(path))
        return True
    except OSError:
        return False
    finally:
        probe.close()


def bind_unix(path: Path, status: Status) -> socket.socket | None:
    """The warm-ask socket, 0600 in a 0700 folder; None (with a note) when another server
    already answers there or the folder is not safe."""
    if path.parent == private_socket_dir():
        ensure_private_dir(path.parent)
        if not safe_socket_dir(path.parent):
            status(f"not publishing the ask socket: {path.parent} is not a private folder of yours")
            return None
    if is_socket(path):
        if _alive(path):
            status(f"another server already answers on {path}; this one listens on TCP only")
            return None
        path.unlink()  # left by a server that was killed
    elif path.exists() or path.is_symlink():
        status(f"not publishing the ask socket: {path} exists and is not a socket")
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    os.chmod(path, 0o600)
    sock.listen(128)
    sock.setblocking(False)
    return sock


class _Uvicorn(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        """As uvicorn's, but the signal is not raised again after the drain: `run()` returns,
        the queued memory work finishes, and the process exits normally."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        originals = {sig: signal.signal(sig, self.handle_exit) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in originals.items():
                signal.signal(sig, handler)


class LocalServer:
    """One server: `bind()`, then `run()` (blocking) until `stop()` or a signal."""

    def __init__(self, settings: Settings, options: ServerOptions, *, status: Status = _quiet,
                 backend_factory: BackendFactory = create_backend) -> None:
        check_options(options)
        check_tool_options(options, settings.tools_on, settings.approve)
        if settings.tools_on:
            check_tool_sources(settings)  # a missing --db or --notes fails before `listening on`
        self.settings = settings
        self.options = options
        self.status = status
        self.engine = Engine(settings, memory=options.memory, system=options.system, status=status,
                             backend_factory=backend_factory)
        self.worker = Worker(options.max_queue)
        self.sockets: list[socket.socket] = []
        self.socket_path: Path | None = None
        self._socket_inode = 0
        self.load_error: BaseException | None = None
        self._server: uvicorn.Server | None = None

    @property
    def port(self) -> int:
        return int(self.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        return f"http://{url_host(self.options.host)}:{self.port}"

    def bind(self) -> None:
        self.sockets.append(bind_tcp(self.options.host, self.options.port))
        if self.options.socket:
            from ..memory.store.datadir import claim_data_dir  # the data dir must be ours before a socket goes in

            claim_data_dir(self.settings.data_dir)
            path = socket_path(self.settings.data_dir)
            unix = bind_unix(path, self.status)
            if unix is not None:
                self.sockets.append(unix)
                self.socket_path, self._socket_inode = path, os.stat(path).st_ino

    def run(self) -> None:
        """Serve until stopped; raises the load error if the model could not be loaded."""
        AppStatus.disable_automatic_graceful_drain()  # Ctrl-C lets streams in flight finish
        app = create_app(ServerState(self.engine, self.worker, self.options))
        level = "info" if self.options.verbose else "warning"
        config = uvicorn.Config(app, log_level=level, access_log=self.options.verbose, lifespan="off",
                                timeout_graceful_shutdown=None, server_header=False)
        self._server = _Uvicorn(config)
        self.worker.start()
        self.worker.submit(self._load, force=True)
        try:
            self._server.run(sockets=self.sockets)
        finally:
            self.worker.stop()
            self.engine.close()
            self._remove_socket()
        if self.load_error is not None:
            raise self.load_error

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True

    def _load(self) -> None:
        try:
            info = self.engine.load(self.options.parallel)
        except BaseException as exc:  # reported by run(), after the server stops
            self.load_error = exc
            self.stop()
            return
        if self.engine.concurrent:  # a model that decodes several requests together takes them at once
            self.worker.widen(self.options.parallel)
        at_once = f", {self.worker.threads} requests at once" if self.worker.threads > 1 else ""
        self.status(f"ready: {info.model} on {info.backend}/{info.device}{at_once}")

    def _remove_socket(self) -> None:
        """Remove the socket file, unless another server has put its own there since."""
        if self.socket_path is not None:
            with contextlib.suppress(OSError):
                if os.stat(self.socket_path).st_ino == self._socket_inode:
                    self.socket_path.unlink()


def serve(settings: Settings, options: ServerOptions, *, announce: Callable[[str], None],
          status: Status = _quiet, backend_factory: BackendFactory = create_backend) -> None:
    """`local-agent serve`: runs in the foreground until Ctrl-C or SIGTERM."""
    if not options.verbose:
        logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    server = LocalServer(settings, options, status=status, backend_factory=backend_factory)
    server.bind()
    announce(f"listening on {server.url}")
    server.run()
