"""What `memory import-chats` needs besides the import itself: a progress bar and, for digests,
the model loaded as a summarizer."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from .options import backend_factory, is_terminal, settings_from

if TYPE_CHECKING:
    from ..memory.summary import Summarizer


@contextmanager
def summarizer_for(ctx: click.Context, wanted: bool) -> Iterator[Summarizer | None]:
    """The chat model as a summarizer (closed afterwards), or None when not wanted."""
    if not wanted:
        yield None
        return
    from ..memory.summary import Summarizer

    backend, _ = backend_factory(ctx)(settings_from(ctx))
    try:
        yield Summarizer(backend)
    finally:
        backend.close()


@contextmanager
def progress_bar(total: int, *, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A bar on stderr while messages are imported (none when quiet or not on a terminal)."""
    from tqdm import tqdm

    with tqdm(total=total, desc="importing", unit="msg", file=sys.stderr, disable=quiet or not is_terminal()) as bar:
        yield bar.update
