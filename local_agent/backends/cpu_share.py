"""How many cores other programs are using: the llama.cpp backend decodes with the rest.

llama.cpp's threads meet at a barrier after every operation, so one thread that waits for a
core holds the others up: with another busy program on a 2-core machine, two threads decode
slower than one. `CoreShare` compares the machine's busy time (/proc/stat) with this process's
own CPU time over the last stretch of wall time; `fitting_threads` turns that into a thread
count. Where /proc/stat does not exist (macOS, Windows) nothing is measured and the
configured count stays.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

PROC_STAT = Path("/proc/stat")
PROC_LOADAVG = Path("/proc/loadavg")
# Shorter stretches than this say too little (/proc/stat counts in 10 ms ticks).
MIN_WINDOW_S = 0.2
# A longer stretch (the pause between two answers) says what ran then, not what runs now.
STALE_S = 1.0


def _busy_seconds(stat: Path) -> float | None:
    """Seconds all CPUs spent busy since boot: user, nice, system, irq and softirq (not idle,
    I/O wait or time the hypervisor took)."""
    try:
        with stat.open() as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu" or len(fields) < 8:
        return None
    ticks = sum(int(fields[index]) for index in (1, 2, 3, 6, 7))
    return ticks / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    times = os.times()
    return times.user + times.system


class CoreShare:
    """Cores that other processes kept busy between two calls of `others_busy`."""

    def __init__(self, stat: Path = PROC_STAT, loadavg: Path = PROC_LOADAVG) -> None:
        self._stat, self._loadavg = stat, loadavg
        self._last = self._sample()

    def _sample(self) -> tuple[float, float, float] | None:
        busy = _busy_seconds(self._stat)
        return None if busy is None else (time.monotonic(), busy, _own_seconds())

    def others_busy(self) -> float | None:
        """Cores' worth of CPU time other processes used since the last call (or creation);
        None when nothing can be measured or the stretch is too short to tell (the stretch
        then goes on). After a stale stretch, the threads of other processes running right now
        (this one's calling thread aside) stand in, and a new stretch starts."""
        if self._last is None or time.monotonic() - self._last[0] < MIN_WINDOW_S:
            return None
        now = self._sample()
        if now is None:
            return None
        if now[0] - self._last[0] > STALE_S:
            self._last = now
            return self._others_running()
        (start, busy0, own0), (end, busy1, own1) = self._last, now
        self._last = now
        return max(0.0, (busy1 - busy0) - (own1 - own0)) / (end - start)

    def _others_running(self) -> float | None:
        """Runnable threads of the whole machine right now, less this one (/proc/loadavg)."""
        try:
            running = int(self._loadavg.read_text().split()[3].split("/")[0])
        except (OSError, IndexError, ValueError):
            return None
        return float(max(0, running - 1))


def available_cores() -> int:
    """Cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def fitting_threads(wanted: int, cores: int, others_busy: float) -> int:
    """Threads that fit on the cores other processes leave free, between 1 and `wanted`: a core
    counts as taken when others used more than half of it."""
    free = int(cores - others_busy + 0.5)
    return max(1, min(wanted, free))
