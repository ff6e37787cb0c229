"""The SQL reader reads questions about any database from its catalog alone: here a library
(books, members, loans), a schema none of its rules were written from."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from local_agent.tools.sql import SqlDatabase, make_sql_query
from local_agent.tools.sql_catalog import read_catalog
from local_agent.tools.sql_reader import SqlReader


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("library") / "library.db"
    with sqlite3.connect(path) as connection:
        connection.executescript("""
            CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT UNIQUE, genre TEXT, pages INTEGER,
                                published TEXT);
            CREATE TABLE members (id INTEGER PRIMARY KEY, name TEXT UNIQUE, city TEXT, age INTEGER);
            CREATE TABLE loans (id INTEGER PRIMARY KEY, book_id INTEGER REFERENCES books(id),
                                member_id INTEGER REFERENCES members(id), loan_date TEXT);
        """)
        genres = ["fantasy", "history", "poetry", "science"]
        connection.executemany("INSERT INTO books VALUES (?, ?, ?, ?, ?)", [
            (i, f"Book {i}", genres[i % 4] if i % 5 else "fantasy", 100 + 7 * i, f"{2000 + i % 20}-0{1 + i % 9}-15")
            for i in range(1, 41)])
        cities = ["Lyon", "Paris", "Porto"]
        connection.executemany("INSERT INTO members VALUES (?, ?, ?, ?)", [
            (i, f"Member {i}", cities[i % 3], 18 + 3 * i) for i in range(1, 21)])
        connection.executemany("INSERT INTO loans VALUES (?, ?, ?, ?)", [
            (i, 1 + i % 40, 1 + i % 20, f"202{3 + i % 2}-{1 + i % 12:02d}-0{1 + i % 9}") for i in range(1, 101)])
    connection.close()
    return path


CASES = [
    ("How many fantasy books are there?", "SELECT count(*) FROM books WHERE genre = 'fantasy'"),
    ("how many members live in Porto", "SELECT count(*) FROM members WHERE city = 'Porto'"),
    ("What is the average number of pages of history books?",
     "SELECT round(avg(pages), 2) FROM books WHERE genre = 'history'"),
    ("Which genre has the most books?",
     "SELECT genre FROM books GROUP BY genre ORDER BY count(*) DESC, genre LIMIT 1"),
    ("How many loans were made in 2024?", "SELECT count(*) FROM loans WHERE loan_date LIKE '2024-%'"),
    ("How many loans did members from Lyon make?",
     "SELECT count(*) FROM loans JOIN members ON loans.member_id = members.id WHERE city = 'Lyon'"),
    ("how many members are older than 50?", "SELECT count(*) FROM members WHERE age > 50"),
    ("Who is the youngest member?", "SELECT name FROM members ORDER BY age, id LIMIT 1"),
    ("number of loans in March 2023", "SELECT count(*) FROM loans WHERE loan_date LIKE '2023-03-%'"),
]


@pytest.mark.parametrize(("question", "gold"), CASES)
def test_questions_about_another_database(library: Path, question: str, gold: str):
    query = SqlReader(read_catalog(library)).read(question)
    assert query is not None, question
    got = make_sql_query(library)(query).splitlines()[1].split(" | ")[0]
    want = SqlDatabase(library).query(gold).splitlines()[1]
    assert got == want, (question, query)


@pytest.mark.parametrize("question", [
    "How many legs does a spider have?", "How many members live in my city?", "Tell me about the history of libraries",
])
def test_what_it_does_not_read(library: Path, question: str):
    assert SqlReader(read_catalog(library)).read(question) is None


def test_the_catalog_offers_the_values_of_columns_with_few(library: Path):
    catalog = read_catalog(library)
    books = catalog.table("books")
    assert books is not None
    assert books.column("genre").choices == ("fantasy", "history", "poetry", "science")  # type: ignore[union-attr]
    assert books.column("title").choices == () and books.column("title").unique  # type: ignore[union-attr]
    assert books.column("published").kind == "date"  # type: ignore[union-attr]
    loans = catalog.table("loans")
    assert loans is not None and sorted(table.name for table in catalog.joinable(loans)) == ["books", "members"]


def test_a_name_the_database_does_not_hold_is_said_to_be_missing(library: Path):
    from local_agent.errors import ToolError

    tool = make_sql_query(library)
    query = tool.reader("How many members live in Berlin?")  # type: ignore[misc]
    assert query == {"table": "members", "select": "count", "column": "*",
                     "filters": [{"column": "city", "op": "=", "value": "Berlin"}]}
    missing = r"'Berlin' is not a city in the database \(its city values: Lyon, Paris, Porto\)"
    with pytest.raises(ToolError, match=missing):
        tool(query)
