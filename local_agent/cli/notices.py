"""Warnings from the layers below, printed as one `local-agent: ...` line each on stderr.

Nothing below the CLI prints: the memory store logs what it did on its own (vectors rebuilt, a
torn journal line dropped, a kept copy deleted) as warnings of the "local_agent" logger, and
the command line shows them to the user.
"""

from __future__ import annotations

import logging
import sys

LOGGER = "local_agent"
PREFIX = "local-agent: "


class NoticePrinter(logging.Handler):
    """Prints each warning on the stderr of the moment (so a captured stderr gets it too)."""

    def __init__(self) -> None:
        super().__init__(level=logging.WARNING)
        self.setFormatter(logging.Formatter(PREFIX + "%(message)s"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            print(self.format(record), file=sys.stderr, flush=True)
        except Exception:  # a broken stderr must not break the command; logging reports it
            self.handleError(record)


def install_notice_printer() -> NoticePrinter:
    """Print the "local_agent" logger's warnings from now on; installed once per process."""
    logger = logging.getLogger(LOGGER)
    for handler in logger.handlers:
        if isinstance(handler, NoticePrinter):
            return handler
    printer = NoticePrinter()
    logger.addHandler(printer)
    return printer
