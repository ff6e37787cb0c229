"""The SQL reader's forms past a plain count (issue 42) on the library schema none of its rules were
written from: shares, distinct counts, rows with none in a referring table, the value a superlative
names, decades of age, parts and ranges of years, "or" between values; each read whole or not at
all, with a look-alike for each that must not be read (or must be flagged by coverage)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from evals.tool_tasks.sql import build_database

from local_agent.tools.coverage import asked_part, sql_left_out
from local_agent.tools.sql import TIED, SqlDatabase, left_out, make_sql_query, written_sql
from local_agent.tools.sql_catalog import read_catalog
from local_agent.tools.sql_reader import SqlReader
from tests.test_sql_reader import library  # noqa: F401  (the fixture)

FORMS = [
    ("What percentage of books are poetry?",
     "SELECT round(100.0 * sum(genre = 'poetry') / count(*), 2) FROM books"),
    ("share of members living in Lyon", "SELECT round(100.0 * sum(city = 'Lyon') / count(*), 2) FROM members"),
    ("How many different cities do our members live in?", "SELECT count(DISTINCT city) FROM members"),
    ("how many genres are there", "SELECT count(DISTINCT genre) FROM books"),
    ("How many members have no loans?", "SELECT count(*) FROM members WHERE id NOT IN (SELECT member_id FROM loans)"),
    ("how many books had no loans in 2024?",
     "SELECT count(*) FROM books WHERE id NOT IN (SELECT book_id FROM loans WHERE loan_date LIKE '2024-%')"),
    ("age of the oldest member in Paris", "SELECT max(age) FROM members WHERE city = 'Paris'"),
    ("How old is the youngest member?", "SELECT min(age) FROM members"),
    ("Which city has the youngest average age?",
     "SELECT city FROM members GROUP BY city ORDER BY avg(age) LIMIT 1"),
    ("how many members are in their thirties", "SELECT count(*) FROM members WHERE age BETWEEN 30 AND 39"),
    ("How many loans were made in the first half of 2024?",
     "SELECT count(*) FROM loans WHERE loan_date >= '2024-01-01' AND loan_date < '2024-07-01'"),
    ("How many loans were made after June 2023?", "SELECT count(*) FROM loans WHERE loan_date >= '2023-07-01'"),
    ("how many loans between 2023 and 2024", "SELECT count(*) FROM loans WHERE loan_date BETWEEN '2023' AND '2025'"),
    ("how many members live in Lyon or Porto", "SELECT count(*) FROM members WHERE city IN ('Lyon', 'Porto')"),
    ("how many members don't live in Lyon", "SELECT count(*) FROM members WHERE city != 'Lyon'"),
    ("how many books are not poetry and have more than 200 pages",
     "SELECT count(*) FROM books WHERE genre != 'poetry' AND pages > 200"),
]


@pytest.mark.parametrize(("question", "gold"), FORMS)
def test_forms_read_whole(library: Path, question: str, gold: str):  # noqa: F811
    tool = make_sql_query(library)
    query = SqlReader(read_catalog(library)).read(question)
    assert query is not None, question
    assert sql_left_out(question, *written_sql(tool, query)) is None, query  # type: ignore[misc]
    got = tool(query).splitlines()[1].split(" | ")[0]
    want = SqlDatabase(library).query(gold).splitlines()[1]
    assert got == want, (question, query)


@pytest.mark.parametrize("question", [
    "the oldest member in Paris is my aunt",  # a statement, not a question
    "how many members have borrowed more than 3 loans",  # a number of rows per row: no query form
    "how many members borrowed books between March and May 2024",  # two months: a range it cannot pair
    "What is the average age of members in Lyon and Porto?",  # both together, or each?
    "what percentage of members in Paris are over 40",  # which part is the whole?
    "how many members are not in Lyon or Porto",  # NOT IN: no query form
])
def test_look_alikes_are_not_read(library: Path, question: str):  # noqa: F811
    assert SqlReader(read_catalog(library)).read(question) is None


@pytest.mark.parametrize(("question", "part"), [
    ("How many loans per member?", "a value for each"),
    ("What's the second most common genre?", "which place it asks for"),
    ("How many members are older than the average?", "a comparison with the average"),
    ("Which genre has the fewest pages on average?", "an average"),  # read as the fewest books: said, not answered
])
def test_parts_no_form_reads_are_flagged(library: Path, question: str, part: str):  # noqa: F811
    tool = make_sql_query(library)
    query = SqlReader(read_catalog(library)).read(question)
    assert query is not None, question
    assert sql_left_out(question, *written_sql(tool, query)) == part  # type: ignore[misc]


def test_a_tie_for_first_place_is_said(library: Path):  # noqa: F811
    tool = make_sql_query(library)  # Paris and Porto have 7 members each
    query = SqlReader(read_catalog(library)).read("Which city has the most members?")
    assert query is not None and query["limit"] == 1
    assert tool(query).endswith(TIED)
    fewest = SqlReader(read_catalog(library)).read("Which city has the fewest members?")
    assert fewest is not None and not tool(fewest).endswith(TIED)


@pytest.mark.parametrize(("question", "part"), [
    ("How many members are premium?", 'the word "premium"'),  # the database holds no such thing
    ("how many members in Paris are retired", 'the word "retired"'),
    ("I'm preparing a talk for Monday. How many members live in Porto?", None),  # the context is no part of it
    ("I'm curious, how many loans were recorded in 2024 in total?", None),
    ("How many members joined in Lyon?", 'the word "joined"'),  # a sign-up word, and no sign-up date here
])
def test_a_word_the_query_cannot_place_is_said(library: Path, question: str, part: str | None):  # noqa: F811
    tool = make_sql_query(library)
    query = SqlReader(read_catalog(library)).read(question)
    assert query is not None, question
    assert left_out(tool, question, query) == part


def test_a_value_the_question_names_must_be_in_the_query(library: Path):  # noqa: F811
    reader = SqlReader(read_catalog(library))
    assert reader.unread("How many members are there for poetry?", 'SELECT count(*) FROM "members"', []) == '"poetry"'
    assert reader.unread("How many books are poetry?", 'SELECT count(*) FROM "books" WHERE genre = ?',
                         ["poetry"]) is None


def test_the_part_that_asks():
    assert asked_part("My manager, who loves spreadsheets, wants to know: how many loans?") == "how many loans?"
    assert asked_part("I'm curious, how many loans were there?") == "how many loans were there?"
    assert asked_part("age of the oldest member") == "age of the oldest member"


def test_a_verb_of_a_value_after_never_is_that_value(tmp_path: Path):
    """"never uploaded": the rows with no upload (a value of the referring table's short column)."""
    path = tmp_path / "sample.db"
    build_database(path, random.Random(0))
    query = SqlReader(read_catalog(path)).read("How many users older than 60 have never uploaded anything?")
    assert query is not None
    assert query["without"] == {"table": "user_activity", "filters": [
        {"column": "activity_type", "op": "=", "value": "upload"}]}
    assert query["filters"] == [{"column": "age", "op": ">", "value": 60}]


@pytest.mark.parametrize("question", ["how many people live in Osaka?", "How many customers work in media?"])
def test_people_are_the_rows_of_the_people_table_not_of_their_activity(tmp_path: Path, question: str):
    path = tmp_path / "sample.db"
    build_database(path, random.Random(0))
    query = SqlReader(read_catalog(path)).read(question)
    assert query is not None and query["table"] == "users", query
