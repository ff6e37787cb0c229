"""The hand-written tool dev sets: wide enough (40 tasks or more per category, three styles or
more besides plain), a held-out third, SQL golds that the gold SQL gives on the sample
database, and the SQL query counts of the report."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from evals import tool_dev
from evals.tool_eval import TaskOutcome, query_counts
from evals.tool_tasks.sql import build_database

from local_agent.tools.sql import SqlDatabase


@pytest.mark.parametrize("category", tool_dev.CATEGORIES)
def test_each_set_is_wide_and_has_a_held_out_third(category: str):
    tasks = tool_dev.load(category)
    assert len(tasks) >= 40
    assert len({task["style"] for task in tasks} - {"plain"}) >= 3
    first = [task for task in tasks if task["style"] != "everyday"]  # issue 24's: every third held out
    assert [task["split"] for task in first] == ["heldout" if i % 3 == 2 else "dev" for i in range(len(first))]
    for task in tasks[len(first):]:  # the everyday batches, after them: r- and t- held out
        assert task["style"] == "everyday"
        assert task["split"] == ("heldout" if task["id"][0] in "rt" else "dev"), task["id"]
    assert len({task["message"] for task in tasks}) == len(tasks)


def test_sql_golds_come_from_the_gold_sql(tmp_path: Path):
    path = tmp_path / "sample.db"
    build_database(path, random.Random(0))
    database = SqlDatabase(path, max_rows=100)
    for task in tool_dev.load("sql"):
        rows = database.query(task["gold_sql"]).splitlines()[1:-1]
        assert task["answer"] == rows[0] or float(task["answer"]) == pytest.approx(float(rows[0]), abs=1e-4), task
        assert set(task["accept"]) >= set(rows[1:]), task  # every tied answer counts


def test_query_counts():
    def outcome(*queries: dict) -> TaskOutcome:
        return TaskOutcome("t", "sql", "How many?", "41", "", False, True, (), 1, 0, 1, "final", 0.0, queries)

    counts = query_counts([outcome({"error": None, "result": "count(*)\n41\n(1 rows)"},
                                   {"error": "bad arguments for sql_query: x", "result": ""}),
                           outcome({"error": "SQLite error: no such column", "result": ""},
                                   {"error": None, "result": "count(*)\n40\n(1 rows)"})])
    assert counts == {"queries": 4, "valid": 3, "ran": 2, "right": 1}
