"""Ctrl-C is not lost when it lands inside llama-cpp-python's log callback (a ctypes callback,
where a raised KeyboardInterrupt is printed and dropped): it is delivered again just after."""

from __future__ import annotations

import logging
import signal
import sys
import time
from collections.abc import Iterator

import pytest

from local_agent.process import interrupts


class _Stderr:
    """Stands in for stderr while the real callback prints: sees the callback's frame."""

    def __init__(self) -> None:
        self.seen_inside: list[bool] = []

    def write(self, text: str) -> int:
        if text:  # (print also writes its empty `end`)
            frame = sys._getframe(1)
            self.seen_inside.append(interrupts.inside_log_callback(frame))
            interrupts.on_interrupt(signal.SIGINT, frame)  # Ctrl-C arriving right here
        return len(text)

    def flush(self) -> None:
        pass


@pytest.fixture
def latch() -> Iterator[None]:
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    interrupts.install()
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_ctrl_c_inside_the_log_callback_is_delivered_after_it(latch: None, monkeypatch: pytest.MonkeyPatch) -> None:
    from llama_cpp import _logger

    assert signal.getsignal(signal.SIGINT) is interrupts.on_interrupt
    stderr = _Stderr()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(_logger.logger, "level", logging.DEBUG)  # so the callback prints
    _logger.llama_log_callback(2, b"a llama.cpp log line\n", None)  # through ctypes, as llama.cpp calls it
    assert stderr.seen_inside == [True]
    with pytest.raises(KeyboardInterrupt):
        time.sleep(2)  # the interrupt comes again once the callback has returned


def test_a_ctrl_c_anywhere_else_interrupts_at_once(latch: None) -> None:
    with pytest.raises(KeyboardInterrupt):
        interrupts.on_interrupt(signal.SIGINT, sys._getframe())
    assert not interrupts.inside_log_callback(None)


def test_an_ignored_or_foreign_handler_is_left_alone() -> None:
    before = signal.getsignal(signal.SIGINT)
    try:
        for handler in (signal.SIG_IGN, lambda signum, frame: None):
            signal.signal(signal.SIGINT, handler)
            interrupts.install()
            assert signal.getsignal(signal.SIGINT) is handler
    finally:
        signal.signal(signal.SIGINT, before)


class _Freed:
    """An object whose finaliser is where the Ctrl-C lands, as when llama-cpp-python frees a batch."""

    def __init__(self) -> None:
        self.seen_inside: list[bool] = []

    def __del__(self) -> None:
        frame = sys._getframe()
        self.seen_inside.append(interrupts.inside_finaliser(frame))
        _seen.extend(self.seen_inside)
        interrupts.on_interrupt(signal.SIGINT, frame)  # raised here, Python would print and drop it


_seen: list[bool] = []


def test_a_ctrl_c_inside_a_finaliser_is_delivered_after_it(latch: None) -> None:
    _seen.clear()
    freed = _Freed()
    del freed  # the finaliser runs now (reference counting)
    assert _seen == [True]
    with pytest.raises(KeyboardInterrupt):
        time.sleep(2)  # delivered again once the finaliser has returned


def test_a_function_that_only_looks_like_cleanup_is_not_a_finaliser() -> None:
    def close() -> bool:
        return interrupts.inside_finaliser(sys._getframe())

    assert not close()
    assert not interrupts.inside_finaliser(None)
