"""Ray, privately: imported only for `batch --ray`, with usage statistics off, no dashboard, a
local cluster on 127.0.0.1 in a short temp dir.

Ray sends usage statistics unless RAY_USAGE_STATS_ENABLED=0 is set before it is imported; a
local cluster otherwise finds its IP by routing towards an outside address (and turns even
`_node_ip_address="127.0.0.1"` into that IP), unless Ray's one-machine switch is set before
import; its default temp dir can make socket paths longer than the 107 bytes a Unix socket
name may have. With the switch, its servers listen on 127.0.0.1 only.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from ..errors import ConfigError

LOCAL = "local"  # `--ray` without an address: a cluster started for the run
LOOPBACK = "127.0.0.1"
SOCKET_NAME_MAX = 107
# the longest socket Ray makes under its temp dir: session_<date>_<time>_<micro>_<pid>/sockets/plasma_store
RAY_SOCKET_TAIL = len("/session_2026-12-01_22-03-50_123456_4194304/sockets/plasma_store")


def import_ray(*, local: bool) -> ModuleType:
    """Ray, with its usage statistics off; ConfigError naming the extra when it is missing.
    `local`: for a cluster on this machine only, whose node address is 127.0.0.1 (Ray reads
    this switch at import: without it, it asks the network for an outside address even when
    told 127.0.0.1)."""
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    if local and "ray" not in sys.modules:
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # its name says platforms; it means "one machine"
    try:
        import ray
    except ImportError:
        raise ConfigError("batch --ray needs Ray: pip install 'local-agent[cluster]'") from None
    return ray


def short_temp_dir() -> Path:
    """A private temp dir short enough for the socket paths Ray makes inside it."""
    for base in (tempfile.gettempdir(), "/tmp"):
        if len(base) + len("/la-ray-12345678") + RAY_SOCKET_TAIL <= SOCKET_NAME_MAX:
            return Path(tempfile.mkdtemp(prefix="la-ray-", dir=base))
    raise ConfigError(f"no temp dir is short enough for Ray's sockets ({SOCKET_NAME_MAX} bytes): "
                      "set TMPDIR to a short path such as /tmp")


def init_local(ray: ModuleType, temp_dir: Path, cpus: int | None = None) -> None:
    """Start a local cluster in this process: loopback only, no dashboard, no log forwarding."""
    ray.init(num_cpus=cpus, include_dashboard=False, _node_ip_address=LOOPBACK, _temp_dir=str(temp_dir),
             log_to_driver=False, configure_logging=False)


@contextmanager
def connected(address: str) -> Iterator[ModuleType]:
    """Ray, connected: to a cluster started for the run (`LOCAL`), or to `address` ("auto": the
    cluster this machine belongs to). A connection this process already has is used as it is
    (and left open)."""
    ray = import_ray(local=address == LOCAL)
    if ray.is_initialized():
        yield ray
        return
    temp_dir = short_temp_dir() if address == LOCAL else None
    try:
        try:
            if temp_dir is not None:
                init_local(ray, temp_dir)
            else:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
        except ConnectionError as exc:
            raise ConfigError(f"cannot reach the Ray cluster at {address}: {exc}") from None
        yield ray
    finally:
        ray.shutdown()
        if temp_dir is not None:
            shutil.rmtree(temp_dir, ignore_errors=True)
