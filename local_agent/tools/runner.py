"""One tool call under a time limit, in a worker thread so that a hanging tool ends the step
instead of the turn. Python cannot kill a thread: a tool that never returns is left behind as
a daemon thread (it holds no lock of the loop's), and the tools that can run long stop
themselves (SQL through its progress handler) and are told to stop at once when the call is
given up (`Tool.cancel`), so that no core stays busy for a result nobody waits for."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ToolError
from .base import Tool

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Outcome:
    """What a call gave: its text, or the error the model is told; and how long it took."""

    result: str
    error: str | None
    seconds: float
    timed_out: bool = False


def run_tool(tool: Tool, arguments: Mapping[str, Any], timeout: float) -> Outcome:
    """Call `tool`, waiting at most `timeout` seconds. ToolError becomes the error text; any
    other exception too, with its type, and it is logged as a bug."""
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["result"] = tool(arguments)
        except ToolError as exc:
            box["error"] = str(exc)
        except Exception as exc:  # a tool's bug must not end the turn
            log.exception("tool %s failed", tool.name)
            box["error"] = f"the tool failed: {type(exc).__name__}: {exc}"
        finally:
            done.set()

    start = time.perf_counter()
    threading.Thread(target=work, name=f"tool-{tool.name}", daemon=True).start()
    finished = done.wait(timeout)
    seconds = time.perf_counter() - start
    if not finished:
        if tool.cancel is not None:
            tool.cancel()
        return Outcome("", f"no result within the time limit of {timeout:g} s", seconds, timed_out=True)
    result = box.get("result", "")
    if "error" not in box and not isinstance(result, str):
        return Outcome("", f"the tool returned {type(result).__name__}, not text", seconds)
    return Outcome(result, box.get("error"), seconds)
