#!/usr/bin/env python
"""How often a Ctrl-C (SIGINT) sent to `memory import-chats` midway is lost: the import should
exit 130. It runs the same interrupted import as tests/test_import_chats_bad_input.py, N times,
each in a data dir of its own, and prints the runs whose exit code was not 130 with the end of
their stderr. Run it beside CPU load to look for the rare miss that test has shown.

    python scripts/probe_import_interrupt.py --runs 12
"""

from __future__ import annotations

import argparse
import signal
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's tests and package

from tests.test_import_chats_bad_input import _history, _spawn, _wait_for_a_write


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=12)
    args = parser.parse_args()
    missed = 0
    for run in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="la-interrupt-") as root:
            folder = Path(root)
            source = folder / "history.jsonl"
            source.write_text(_history(150), encoding="utf-8")
            process = _spawn(folder / "d", source)
            _wait_for_a_write(folder / "d", process)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=120)
            if process.returncode != 130:
                missed += 1
                print(f"run {run}: exit {process.returncode}\n{err[-800:]}")
    print(f"{missed} of {args.runs} interrupts lost")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
