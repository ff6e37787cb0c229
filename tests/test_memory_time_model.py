"""Scenarios on the real default model, each across processes: the assistant's answers, dates,
corrections and imported history, remembered in a later process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_import_chats import HISTORY
from tests.test_integration import cli

pytestmark = pytest.mark.model


def _batch(tmp_path: Path, lines: list[dict], data_dir: Path) -> list[dict]:
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    done = cli("batch", str(path), "--quiet", "--max-tokens", "64", data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def _ask(question: str, today: str, data_dir: Path) -> dict:
    done = cli("ask", "--json", "--no-server", "--max-tokens", "48", "--today", today, question, data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _memories(kind: str, data_dir: Path) -> list[dict]:
    done = cli("memory", "list", "--kind", kind, "--json", data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_recommendation_and_a_day_are_recalled_later(tmp_path, isolated_dirs):
    _batch(tmp_path, [
        {"session": "books", "input": "Can you recommend a science fiction novel for me?", "date": "2024-05-02T20:00"},
        {"session": "garden", "input": "I planted tomatoes in my garden today.", "date": "2024-05-05T09:00"},
    ], isolated_dirs)
    answers = [r for r in _memories("turn", isolated_dirs) if r["provenance"]["role"] == "assistant"]
    assert answers and all(r["provenance"]["date"] for r in answers)
    said = {r["id"] for r in answers if r["provenance"]["session"] == "books"}
    asked = _ask("Which book did you recommend to me last week?", "2024-05-09", isolated_dirs)
    assert said & {m["id"] for m in asked["memories_recalled"]}
    # ("What did we talk about on May 2nd?" is a recap the program answers from that day's sessions, issue 25)
    day = _ask("What did you suggest on May 2nd?", "2024-05-09", isolated_dirs)
    turns = {r["id"]: r for r in _memories("turn", isolated_dirs)}
    dates = [turns[m["id"]]["provenance"]["date"][:10] for m in day["memories_recalled"] if m["id"] in turns]
    assert dates and dates[0] == "2024-05-02"


def test_a_correction_supersedes(tmp_path, isolated_dirs):
    _batch(tmp_path, [{"session": "me", "input": "My name is Alex."},
                      {"session": "me", "input": "No, my name is Alexa, not Alex."}], isolated_dirs)
    facts = [f["text"] for f in _memories("fact", isolated_dirs)]
    assert any("Alexa" in f for f in facts) and not any("Alex." in f for f in facts)
    asked = _ask("What is my name?", "2024-05-09", isolated_dirs)
    assert any("Alexa" in m["text"] for m in asked["memories_recalled"])


def test_an_imported_history_is_recalled_with_its_dates_and_not_imported_twice(tmp_path, isolated_dirs):
    source = tmp_path / "history.jsonl"
    source.write_text(HISTORY, encoding="utf-8")
    first = cli("memory", "import-chats", str(source), "--json", data_dir=isolated_dirs)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["digests"] == 1
    again = cli("memory", "import-chats", str(source), "--json", data_dir=isolated_dirs)
    assert json.loads(again.stdout)["skipped_existing"] == 7 and json.loads(again.stdout)["turns"] == 0
    asked = _ask("Which book did you suggest in March?", "2024-07-01", isolated_dirs)
    assert any("Hobbit" in m["text"] for m in asked["memories_recalled"])


def test_a_yesterday_told_long_ago_is_answered_with_its_day(tmp_path, isolated_dirs):
    history = tmp_path / "support.jsonl"
    history.write_text("".join(json.dumps(line) + "\n" for line in [
        {"session": "may", "role": "user", "content": "I went to a support group yesterday and it was so powerful.",
         "date": "2023-05-08T13:56"},
        {"session": "may", "role": "assistant", "content": "That sounds wonderful. I'm glad it helped you.",
         "date": "2023-05-08T13:57"},
    ]), encoding="utf-8")
    assert cli("memory", "import-chats", str(history), data_dir=isolated_dirs).returncode == 0
    asked = _ask("When did I go to the support group?", "2023-07-20", isolated_dirs)
    assert "7 May 2023" in asked["answer"]  # the day the message's "yesterday" meant, not the day it was said
