"""Ctrl-C that is never lost inside llama.cpp's log callback.

llama-cpp-python hands every llama.cpp log line to a Python function called from C through
ctypes. Python runs a signal's handler at the next Python instruction, and when llama.cpp is
busy in C that instruction is the callback's first. KeyboardInterrupt raised there is printed
as "Exception ignored" and dropped by ctypes, so a Ctrl-C that lands while a model loads (a
burst of log lines) could be lost. The handler installed here raises KeyboardInterrupt as
Python's own does, except inside that callback: there it asks for the interrupt again a moment
later, when the callback has returned. A finaliser (`__del__`, which llama-cpp-python's batches,
samplers and contexts run when freed) drops an exception the same way, so it is treated alike.
"""

from __future__ import annotations

import _thread
import signal
import threading
from collections.abc import Callable
from types import CodeType, FrameType

RETRY_S = 0.005  # how soon an interrupt that landed in the callback is delivered again
CALLBACK_FILE = "_logger.py"  # llama_cpp/_logger.py defines the callback
CALLBACK_NAME = "llama_log_callback"
FINALISER_NAME = "__del__"  # Python prints "Exception ignored in" and drops what a finaliser raises
SEARCH_DEPTH = 8  # frames looked through: a finaliser's close() runs an exit stack's callbacks


def install() -> None:
    """Take over Ctrl-C from Python's default handler (main thread only). A SIGINT that is
    ignored (a job started in the background) or handled by someone else is left alone."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, on_interrupt)


def on_interrupt(signum: int, frame: FrameType | None) -> None:
    if inside_log_callback(frame) or inside_finaliser(frame):
        retry = threading.Timer(RETRY_S, _thread.interrupt_main, args=(signum,))
        retry.daemon = True
        retry.start()
        return
    raise KeyboardInterrupt


def inside_log_callback(frame: FrameType | None) -> bool:
    """Whether `frame`, or one of the few it was called from, is llama-cpp-python's log callback."""
    # the callback calls print and logging, a frame or two deep at most
    return _any_frame(frame, 4, lambda code: code.co_name == CALLBACK_NAME and code.co_filename.endswith(CALLBACK_FILE))


def inside_finaliser(frame: FrameType | None) -> bool:
    """Whether `frame`, or one of those it was called from, is a `__del__` method."""
    return _any_frame(frame, SEARCH_DEPTH, lambda code: code.co_name == FINALISER_NAME)


def _any_frame(frame: FrameType | None, depth: int, matches: Callable[[CodeType], bool]) -> bool:
    for _ in range(depth):
        if frame is None:
            return False
        if matches(frame.f_code):
            return True
        frame = frame.f_back
    return False
