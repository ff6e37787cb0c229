"""The calculator and SQL paths end to end on the real default model, through
`local-agent ask --tools --db ... --json` as a user runs it."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.model


def ask(*args: str, data_dir: Path) -> dict:
    env = {**os.environ, "LOCAL_AGENT_DATA_DIR": str(data_dir)}
    done = subprocess.run([sys.executable, "-m", "local_agent", "ask", "--json", "--no-memory", *args], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _no_invalid_step(data: dict) -> None:
    assert data["tools"]["stop"] != "invalid_action", data["notices"]
    assert not any(re.match(r"the model's step \d+ was not", notice) for notice in data["notices"])


def test_arithmetic_by_rule_and_a_word_problem_by_its_reading(default_gguf, isolated_dirs):
    direct = ask("--tools", "What is 17 * 23?", data_dir=isolated_dirs)
    assert direct["answer"] == "17 * 23 = 391" and direct["tools"]["route"] == "direct"

    by_rule = ask("--tools", "I bought 7 tickets at 3.56 dollars each. How much did I pay in total?",
                  data_dir=isolated_dirs)
    assert by_rule["answer"] == "7 * 3.56 = 24.92" and by_rule["tools"]["reason"] == "arithmetic rule"

    # a word problem goes to reading/problems, never to the model: right, or unsure with its reading
    data = ask("--tools", "I bought 7 tickets at 3.56 dollars each and paid with a 50 dollar note. "
               "How much change did I get?", data_dir=isolated_dirs)
    assert data["tools"]["route"] == "problem" and data["tool_calls"] == []
    assert data["answer"].startswith("25.08") if data["outcome"] == "answer" else "I read this as" in data["answer"]


def test_sql_by_rule_and_through_the_model_answers_only_what_the_tools_returned(default_gguf, isolated_dirs,
                                                                                tmp_path):
    from local_agent.grounding import check

    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, location TEXT)")
        connection.executemany("INSERT INTO users VALUES (?, ?, ?)",
                               [(n, f"user{n}@example.com", "Oslo" if n % 2 else "Lima") for n in range(1, 8)])
    connection.close()
    before = db.read_bytes()
    by_rule = ask("--db", str(db), "How many users are in the database?", data_dir=isolated_dirs)
    assert by_rule["tools"]["route"] == "direct" and by_rule["tool_calls"][0]["result"] == "count(*)\n7\n(1 rows)"
    assert "7" in by_rule["answer"] and by_rule["tools"]["check"] in ("accepted", "retried", "templated")

    question = "List the users in the database who live in Oslo"
    data = ask("--db", str(db), question, data_dir=isolated_dirs)
    _no_invalid_step(data)
    assert data["tools"]["route"] == "model" and [c["name"] for c in data["tool_calls"]][:1] == ["sql_query"]
    sources = [question, *(c["result"] for c in data["tool_calls"] if c["error"] is None),
               *(json.dumps(c["arguments"]) for c in data["tool_calls"])]
    assert check(data["answer"], sources).ok, data  # what it says, the tools returned
    assert db.read_bytes() == before  # read-only
