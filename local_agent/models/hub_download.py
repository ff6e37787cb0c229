"""Downloading one file's bytes into its part file, in the hub worker (hub_worker.py) only.

huggingface_hub's own `http_get` gathers 10 MiB before it writes, and its read timeout only
notices silence: a hub that sends a byte every few seconds would keep it going forever. So
the bytes are read here as they arrive, through huggingface_hub's session (its proxies, its
headers, its retries on 429), and every write checks progress (`Watch`): less than
`PROGRESS_BYTES` in `stall_s` seconds, or nothing at all for that long (the read timeout),
ends the download with a one-line error, the part file kept for the next pull to resume. A hub
that sends more than the size it listed is stopped there too.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

PROGRESS_BYTES = 16 * 1024  # "progress": at least this much within the stall time


class DownloadError(Exception):
    """A failed download, in one line."""


@dataclass
class Watch:
    """Progress of one download: `wrote` raises DownloadError once `stall_s` seconds pass
    with less than PROGRESS_BYTES received."""

    stall_s: float
    host: str
    clock: Any = time.monotonic
    mark: float = field(default=0.0)
    since_mark: int = 0

    def __post_init__(self) -> None:
        self.mark = self.clock()

    def wrote(self, size: int) -> None:
        self.since_mark += size
        now = self.clock()
        if self.since_mark >= PROGRESS_BYTES:
            self.mark, self.since_mark = now, 0
        elif now - self.mark > self.stall_s:
            raise self.stalled()

    def stalled(self) -> DownloadError:
        return DownloadError(f"no progress from {self.host} for {self.stall_s:g} s (under {PROGRESS_BYTES // 1024} "
                             "KiB received); the part downloaded so far is kept: run the same command again to "
                             "resume it (the stall time is the pull_stall_timeout setting)")


def download(url: str, part: Path, size: int, headers: dict[str, str], stall_s: float, name: str) -> None:
    """Append the rest of the file at `url` to `part` (resuming from its length), `size`
    bytes in all."""
    import httpx2
    from huggingface_hub.utils import hf_raise_for_status, http_stream_backoff

    resume = part.stat().st_size if part.is_file() else 0
    headers = {**headers, "Accept-Encoding": "identity"}  # the bytes as listed, so sizes and ranges hold
    if resume:
        headers["Range"] = f"bytes={resume}-"
    watch = Watch(stall_s, urlparse(url).netloc or url)
    timeout = httpx2.Timeout(stall_s, connect=min(stall_s, 30.0))
    try:
        with http_stream_backoff("GET", url, headers=headers, timeout=timeout, retry_on_exceptions=(),
                                 retry_on_status_codes=(408, 429)) as response:
            hf_raise_for_status(response)
            if resume and response.status_code != 206:  # the server ignored the Range: start again
                resume = 0
            _receive(response, part, resume, size, watch, name)
    except httpx2.TimeoutException:
        raise watch.stalled() from None


def _receive(response: Any, part: Path, resume: int, size: int, watch: Watch, name: str) -> None:
    from huggingface_hub.utils import tqdm

    bar = tqdm(total=size, initial=resume, unit="B", unit_scale=True, desc=name[-40:], name="local-agent.pull")
    with open(part, "ab" if resume else "wb") as handle, bar:
        got = resume
        for chunk in response.iter_bytes():  # as the bytes arrive, not gathered
            got += len(chunk)
            if got > size:
                raise DownloadError(f"{watch.host} sent more than the {size:,} bytes it listed for {name}")
            handle.write(chunk)
            bar.update(len(chunk))
            watch.wrote(len(chunk))
        handle.flush()
        os.fsync(handle.fileno())
    if got != size:
        raise DownloadError(f"{watch.host} ended {name} after {got:,} of its {size:,} bytes; run the same "
                            "command again to resume it")
