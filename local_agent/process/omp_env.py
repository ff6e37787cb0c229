"""How llama.cpp's OpenMP threads wait for each other: the environment the package sets.

llama.cpp's CPU threads meet at a barrier after every operation of a token, many times a
token. libgomp reads how a thread waits there once, when it loads (the first `import
llama_cpp`), so this runs from the package's `__init__`, before any runtime is imported.
Whatever the user set for OpenMP's wait policy wins: then nothing is changed.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import MutableMapping

# Variables that tune libgomp's (GNU) or libomp's (LLVM, Intel) threads, and OpenBLAS's (the
# package sets OPENBLAS_NUM_THREADS too: local_agent/__init__.py). Baselines run without them.
OPENMP_PREFIXES = ("OMP_", "GOMP_", "KMP_", "OPENBLAS_")
# Set by the user, each of these says how threads wait: then the package sets nothing.
USER_CHOICES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
# Spin this many rounds at a barrier, then sleep. libgomp's default when nothing is set is
# 300,000 rounds (milliseconds on CPUs with a slow `pause`): with another busy program on the
# cores, a spinning thread holds the core its partner needs, and decode drops from about 70 to
# 1 token/s on a 2-core VM. PASSIVE (no spin) sleeps at every one of a token's barriers and
# decodes at 30% of the default's speed on idle cores. 3,000 rounds decoded at 0.96-0.99x the
# default there; 1,000 at 0.90x. With a competing process two spinning threads still stall
# (1,000: 0.7x PASSIVE, 3,000: 0.5x), which is why automatic threads drop to the free cores
# then (backends/cpu_share.py). Measured with `scripts/decode_costs.py --sections wait-policy`.
SHORT_SPIN = "3000"
OMP_PAUSE_SOFT = 1  # omp_pause_resource_t: let the threads go, keep what can be kept


def wait_policy_env(environ: MutableMapping[str, str]) -> dict[str, str]:
    """What the package adds to `environ`: a short spin, unless the user chose a policy."""
    if any(name in environ for name in USER_CHOICES):
        return {}
    return {"GOMP_SPINCOUNT": SHORT_SPIN}


def apply_wait_policy(environ: MutableMapping[str, str] | None = None) -> dict[str, str]:
    """Add the policy to `environ` (the process environment by default); returns what it added."""
    environ = os.environ if environ is None else environ
    added = wait_policy_env(environ)
    environ.update(added)
    return added


_LOADED: dict[str, ctypes.CDLL] = {}  # libgomp, once found in the process


def release_thread_team() -> None:
    """Let the calling thread's OpenMP threads go (OpenMP 5's omp_pause_resource_all), before
    model work moves to another thread. libgomp keeps a thread team for every thread that ran
    the model, and with more of its threads than cores it cuts how long they wait at the
    barriers of every operation: a second thread's decode ran at 30 tokens/s beside a live
    team, 87 once it was let go. The calling thread gets a new team (a thread start) when it
    next computes. Nothing happens where libgomp is not loaded (no llama.cpp yet, macOS)."""
    if "gomp" not in _LOADED:
        try:  # RTLD_NOLOAD: only a libgomp the process has already loaded
            _LOADED["gomp"] = ctypes.CDLL("libgomp.so.1", mode=getattr(os, "RTLD_NOLOAD", 0) | ctypes.RTLD_LOCAL)
        except OSError:
            return
    _LOADED["gomp"].omp_pause_resource_all(OMP_PAUSE_SOFT)
