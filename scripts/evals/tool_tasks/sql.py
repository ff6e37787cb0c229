"""SQL tasks over a generated SQLite database with the original design's schema:
users(id, email, age, location, signup_date, last_login, job_industry) and
user_activity(id, user_id, activity_date, activity_type). Gold answers come from gold SQL."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path

from .common import Task, number_text

LOCATIONS = ["Lisbon", "Toronto", "Nairobi", "Osaka", "Krakow", "Denver", "Melbourne", "Bogota"]
INDUSTRIES = ["healthcare", "finance", "education", "retail", "software", "manufacturing", "media"]
ACTIVITIES = ["login", "purchase", "post", "comment", "upload"]
SCHEMA = """
CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, age INTEGER, location TEXT,
                    signup_date TEXT, last_login TEXT, job_industry TEXT);
CREATE TABLE user_activity (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id),
                            activity_date TEXT, activity_type TEXT);
"""
Template = Callable[[random.Random], tuple[str, str]]


def build_database(path: Path, rng: random.Random, users: int = 300, activities: int = 2000) -> None:
    """Write the sample database (replacing any file at `path`)."""
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as connection:
        connection.executescript(SCHEMA)
        start = dt.date(2021, 1, 1)
        rows = []
        for user in range(1, users + 1):
            signup = start + dt.timedelta(days=rng.randint(0, 1200))
            last = signup + dt.timedelta(days=rng.randint(0, 400))
            rows.append((user, f"user{user:04d}@example.com", rng.randint(18, 75), rng.choice(LOCATIONS),
                         signup.isoformat(), last.isoformat(), rng.choice(INDUSTRIES)))
        connection.executemany("INSERT INTO users VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        connection.executemany("INSERT INTO user_activity VALUES (?, ?, ?, ?)", [
            (index, rng.randint(1, users), (start + dt.timedelta(days=rng.randint(0, 1500))).isoformat(),
             rng.choice(ACTIVITIES)) for index in range(1, activities + 1)])
    connection.close()


TEMPLATES: tuple[Template, ...] = (
    lambda r: ("How many users are in the database?", "SELECT count(*) FROM users"),
    lambda r: (f"How many users in the database live in {(c := r.choice(LOCATIONS))}?",
               f"SELECT count(*) FROM users WHERE location = '{c}'"),
    lambda r: ((f"What is the average age of users in the {(i := r.choice(INDUSTRIES))} industry in the database? "
                "Round to one decimal."), f"SELECT round(avg(age), 1) FROM users WHERE job_industry = '{i}'"),
    lambda r: ("Which location has the most users in the database?",
               "SELECT location FROM users GROUP BY location ORDER BY count(*) DESC, location LIMIT 1"),
    lambda r: (f"How many users signed up in {(y := r.choice([2021, 2022, 2023]))}, according to the database?",
               f"SELECT count(*) FROM users WHERE signup_date LIKE '{y}-%'"),
    lambda r: ((f"How many {(a := r.choice(ACTIVITIES))} activities are recorded in the database for "
                f"{(y := r.choice([2021, 2022, 2023, 2024]))}?"),
               f"SELECT count(*) FROM user_activity WHERE activity_type = '{a}' AND activity_date LIKE '{y}-%'"),
    lambda r: ("What is the email of the oldest user in the database? If several, the lowest id.",
               "SELECT email FROM users ORDER BY age DESC, id LIMIT 1"),
    lambda r: ("How many distinct users made a purchase, according to the database?",
               "SELECT count(DISTINCT user_id) FROM user_activity WHERE activity_type = 'purchase'"),
    lambda r: ("Which job industry has the most users in the database?",
               "SELECT job_industry FROM users GROUP BY job_industry ORDER BY count(*) DESC, job_industry LIMIT 1"),
    lambda r: (f"How many users in the database are older than {(n := r.randint(30, 60))}?",
               f"SELECT count(*) FROM users WHERE age > {n}"),
)


def gold_answer(path: Path, sql: str) -> str:
    """The gold SQL's single value as text."""
    with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as connection:
        rows = connection.execute(sql).fetchall()
    connection.close()
    if len(rows) != 1 or len(rows[0]) != 1:
        raise ValueError(f"gold SQL must return one value: {sql}")
    value = rows[0][0]
    return number_text(value) if isinstance(value, (int, float)) else str(value)


def sql_tasks(path: Path, rng: random.Random, count: int, today: str) -> list[Task]:
    tasks = []
    for index in range(count):
        message, sql = TEMPLATES[index % len(TEMPLATES)](rng)
        tasks.append(Task(f"sql-{index:03d}", "sql", message, gold_answer(path, sql), ("sql_schema", "sql_query"),
                          today, gold_sql=sql))
    return tasks
