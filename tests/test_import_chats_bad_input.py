"""`memory import-chats` with bad input: a huge line and a file of 100k lines are per-line
errors (or a dry run) in bounded time and memory; an import killed or interrupted midway leaves
the store consistent and a re-run completes it without duplicates. And `memory forget
--with-source` of a user's turn takes the assistant's answer of that exchange with it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from local_agent.conversations.chat_import import MAX_MESSAGE_CHARS
from tests.cli_helpers import run_main
from tests.fakes import ScriptedBackend
from tests.file_helpers import all_bytes

ROOT = Path(__file__).resolve().parent.parent


def _line(session: str, role: str, content: str, date: str = "2024-03-01T10:00") -> str:
    return json.dumps({"session": session, "role": role, "content": content, "date": date})


def _cli(data_dir: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The real command in a child process, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "local_agent", *args, "--data-dir", str(data_dir)], cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


# The command in a child that writes its own peak resident memory (VmHWM, KiB) as the last line
# of stderr. Not getrusage: its peak carries over an exec, so a child forked from a big test
# process would report the parent's size.
WITH_PEAK = ("import atexit, runpy, sys; atexit.register(lambda: sys.stderr.write(next("
             "line for line in open('/proc/self/status') if line.startswith('VmHWM')))); "
             "sys.argv[0] = 'local_agent'; runpy.run_module('local_agent', run_name='__main__')")


def _cli_with_peak(data_dir: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], int]:
    """`_cli`, and the peak resident memory (KiB) of the command's own process."""
    done = subprocess.run([sys.executable, "-c", WITH_PEAK, *args, "--data-dir", str(data_dir)], cwd=ROOT,
                          capture_output=True, text=True, timeout=240, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    last = done.stderr.rstrip().splitlines()[-1]
    assert last.startswith("VmHWM:"), done.stderr[-2000:]
    return done, int(last.split()[1])


# A suite started in the background (`make test &`) passes SIGINT on ignored, and Python then
# sets up no KeyboardInterrupt: the child installs it first, as a user's terminal would have it.
WITH_SIGINT = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
               "sys.argv[0] = 'local_agent'; runpy.run_module('local_agent', run_name='__main__')")


def _spawn(data_dir: Path, source: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", WITH_SIGINT, "memory", "import-chats", str(source), "--no-digests",
                             "--json", "--data-dir", str(data_dir)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _turns(data_dir: Path) -> list[dict]:
    listed = _cli(data_dir, "memory", "list", "--kind", "turn", "--json")
    assert listed.returncode == 0, listed.stderr
    return json.loads(listed.stdout)


def test_a_20_mb_line_is_a_named_error_in_bounded_time_and_memory(tmp_path: Path) -> None:
    source = tmp_path / "huge.jsonl"
    source.write_text("\n".join([_line("s", "user", "I like tea. " * 1_700_000),  # about 20 MB
                                 _line("s", "user", "I have a cat called Miso.")]) + "\n", encoding="utf-8")
    assert source.stat().st_size > 20_000_000
    start = time.monotonic()
    done, peak_kib = _cli_with_peak(tmp_path / "d", "memory", "import-chats", str(source), "--no-digests")
    assert time.monotonic() - start < 240
    assert peak_kib < 600_000  # KiB: about 190 MB here; no blow-up on a 20 MB line
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"line 1: content has 20400000 characters, over the {MAX_MESSAGE_CHARS}" in done.stderr
    assert "imported 1 messages" in done.stdout
    assert [turn["text"] for turn in _turns(tmp_path / "d")] == ["I have a cat called Miso."]


def test_100k_lines_are_per_line_errors_or_a_quick_dry_run(tmp_path: Path, capsys, monkeypatch) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(_line("s", "robot", f"beep {n}") for n in range(100_000)) + "\n", encoding="utf-8")
    start = time.monotonic()
    code, out, err = run_main(["memory", "import-chats", str(bad), "--data-dir", str(tmp_path / "d"), "--json"],
                              capsys, monkeypatch)
    assert code == 1 and json.loads(out)["bad_lines"] == 100_000 and json.loads(out)["turns"] == 0
    named = [line for line in err.splitlines() if line.startswith("line ")]
    assert len(named) == 100_000 and named[-1].startswith("line 100000: role must be")
    good = tmp_path / "good.jsonl"
    good.write_text("\n".join(_line(f"s{n // 10}", "user", f"note {n}") for n in range(100_000)) + "\n",
                    encoding="utf-8")
    code, out, _ = run_main(["memory", "import-chats", str(good), "--data-dir", str(tmp_path / "d"), "--json",
                             "--dry-run"], capsys, monkeypatch)
    assert code == 0 and json.loads(out)["turns"] == 100_000 and json.loads(out)["sessions"] == 10_000
    assert time.monotonic() - start < 120


def _history(sessions: int) -> str:
    lines = []
    for number in range(sessions):
        day = f"2024-{1 + number // 28:02d}-{1 + number % 28:02d}"
        lines += [_line(f"s{number}", "user", f"On day {number} I walked to the harbour number {number}.", day),
                  _line(f"s{number}", "assistant", f"The harbour {number} is lovely. Bring a coat.", day)]
    return "\n".join(lines) + "\n"


def _wait_for_a_write(data_dir: Path, process: subprocess.Popen[str]) -> None:
    journal = data_dir / "memory" / "journal.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if journal.exists() and journal.read_bytes().count(b"\n") >= 3:  # some whole writes, not a torn first
            return
        time.sleep(0.05)
    pytest.fail("the import wrote nothing, or finished, before it could be interrupted")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_an_interrupted_import_is_consistent_and_a_rerun_completes_it(tmp_path: Path, sig: int) -> None:
    source, data_dir = tmp_path / "history.jsonl", tmp_path / "d"
    source.write_text(_history(150), encoding="utf-8")
    process = _spawn(data_dir, source)
    _wait_for_a_write(data_dir, process)
    process.send_signal(sig)
    process.communicate(timeout=120)
    if sig == signal.SIGINT:
        assert process.returncode == 130
    partial = _turns(data_dir)
    assert 0 < len(partial) < 300  # cut short midway
    checked = _cli(data_dir, "memory", "doctor")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    again = _cli(data_dir, "memory", "import-chats", str(source), "--no-digests", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["skipped_existing"] == len({t["provenance"]["import_key"] for t in partial})
    turns = _turns(data_dir)
    keys = Counter((t["provenance"]["import_key"], t["text"]) for t in turns)
    assert len(turns) == 300 and max(keys.values()) == 1  # every message once, none twice
    assert json.loads(_cli(data_dir, "memory", "import-chats", str(source), "--json").stdout)["turns"] == 0


ANSWER = "Try the Zanzibar pilaf tonight. It is quick to cook. Add lemon at the end. Serve it with flatbread."


def test_forget_with_source_of_a_user_turn_removes_its_answer(isolated_dirs: Path, capsys, monkeypatch) -> None:
    def ask(message: str, answer: str) -> None:
        code, _, err = run_main(["ask", "--session", "food", message], capsys, monkeypatch,
                                backend=ScriptedBackend(default=answer))
        assert code == 0, err

    ask("What should I cook for dinner with rice?", ANSWER)
    ask("And a drink with it?", "Mint tea goes well with it.")
    code, out, _ = run_main(["memory", "list", "--kind", "turn", "--json"], capsys, monkeypatch)
    turns = json.loads(out)
    answers = [t for t in turns
               if t["provenance"]["role"] == "assistant" and ("Zanzibar" in t["text"] or "flatbread" in t["text"])]
    assert len(answers) == 2  # the answer's two passages
    (question,) = [t for t in turns if t["text"] == "What should I cook for dinner with rice?"]
    assert b"Zanzibar" in all_bytes(isolated_dirs) and b"flatbread" in all_bytes(isolated_dirs)

    code, _, err = run_main(["memory", "forget", question["id"], "--with-source"], capsys, monkeypatch)

    assert code == 0, err
    stored = all_bytes(isolated_dirs)
    for gone in (b"Zanzibar", b"flatbread", b"cook for dinner with rice"):
        assert gone not in stored
    assert b"Mint tea goes well" in stored and b"And a drink with it?" in stored  # the other exchange stays


@pytest.mark.parametrize("command", ["import", "import-chats"])
def test_a_device_is_refused_before_it_is_read(command: str, capsys, monkeypatch) -> None:
    """/dev/zero never ends: `memory import` read it until memory ran out."""
    code, _, err = run_main(["memory", command, "/dev/zero"], capsys, monkeypatch)
    assert code == 1 and "/dev/zero: is a device, not a file" in err
