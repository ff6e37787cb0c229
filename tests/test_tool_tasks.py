"""The generated tool task set: deterministic, consistent gold answers, and the tools' exact
paths (router rules, SQL, notes search) answer it."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from pathlib import Path

import pytest
from evals.tool_tasks.build import COUNTS, build_task_set

from local_agent.tools.calculator import make_calculator
from local_agent.tools.dates import make_date
from local_agent.tools.loop import ToolLoop
from local_agent.tools.notes_search import make_notes_search
from local_agent.tools.registry import TOOL_NAMES
from local_agent.tools.router import Router
from local_agent.tools.sql import SqlDatabase


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tasks") / "set"
    build_task_set(out, seed=7)
    return out


def _tasks(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "tasks.jsonl").read_text().splitlines()]


def _correct(task: dict, text: str) -> bool:
    return any(answer.lower() in text.lower() for answer in [task["answer"], *task.get("accept", [])])


def test_same_seed_same_files(task_dir: Path, tmp_path: Path):
    build_task_set(tmp_path / "again", seed=7)
    assert (tmp_path / "again" / "tasks.jsonl").read_bytes() == (task_dir / "tasks.jsonl").read_bytes()
    for note in (task_dir / "notes").rglob("*.*"):
        assert (tmp_path / "again" / "notes" / note.relative_to(task_dir / "notes")).read_bytes() == note.read_bytes()
    build_task_set(tmp_path / "other", seed=8)
    assert (tmp_path / "other" / "tasks.jsonl").read_bytes() != (task_dir / "tasks.jsonl").read_bytes()


def test_refuses_a_folder_that_is_not_empty(task_dir: Path):
    with pytest.raises(FileExistsError):
        build_task_set(task_dir)


def test_categories_and_fields(task_dir: Path):
    tasks = _tasks(task_dir)
    counts = {c: sum(t["category"] == c for t in tasks) for c in ("arithmetic", "date", "memory", "notes", "sql")}
    assert {c: counts[c] for c in COUNTS} == COUNTS and counts["notes"] >= 14
    assert len({t["id"] for t in tasks}) == len(tasks)
    assert all(t["message"] and t["answer"] and t["tools"] for t in tasks)
    assert all(len(t["memories"]) == 5 for t in tasks if t["category"] == "memory")
    manifest = json.loads((task_dir / "manifest.json").read_text())
    assert manifest["seed"] == 7 and manifest["counts"] == counts


def test_sql_gold_answers_match_the_database(task_dir: Path):
    connection = sqlite3.connect(task_dir / "sample.db")
    assert connection.execute("SELECT count(*) FROM users").fetchone()[0] == 300
    columns = [row[1] for row in connection.execute("PRAGMA table_info(user_activity)")]
    assert columns == ["id", "user_id", "activity_date", "activity_type"]
    for task in (t for t in _tasks(task_dir) if t["category"] == "sql"):
        value = connection.execute(task["gold_sql"]).fetchone()[0]
        assert str(value).removesuffix(".0") == task["answer"]
    connection.close()


def test_the_sql_tool_gives_the_gold_answers(task_dir: Path):
    database = SqlDatabase(task_dir / "sample.db")
    for task in (t for t in _tasks(task_dir) if t["category"] == "sql"):
        rows = database.query(task["gold_sql"]).splitlines()
        assert rows[1] == task["answer"], task


def test_router_rules_answer_the_arithmetic_and_date_tasks(task_dir: Path):
    router = Router(TOOL_NAMES)
    direct = correct = 0
    for task in (t for t in _tasks(task_dir) if t["category"] in ("arithmetic", "date")):
        route = router.route(task["message"])
        assert route.kind != "none", task
        if route.kind == "direct":
            today = dt.date.fromisoformat(task["today"])
            loop = ToolLoop([make_calculator(), make_date(today)], decide=lambda m, s: {})
            direct += 1
            correct += _correct(task, loop.run_direct(route.tools[0], route.arguments).answer)
    assert direct >= 60 and correct == direct


def test_notes_search_finds_the_note_of_every_question(task_dir: Path, tmp_path: Path):
    tool = make_notes_search(task_dir / "notes", tmp_path / "cache")
    notes = [t for t in _tasks(task_dir) if t["category"] == "notes"]
    found = sum(f"[{t['extra']['note']}]" in tool({"query": t["message"]}) for t in notes)
    assert found >= len(notes) - 1
