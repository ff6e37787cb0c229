"""Forms of database questions written by strangers to the code (issue 42): a rounding
instruction applied to the number shown and counted as covered, value verbs ("commented"),
a terse noun phrase ("distinct users who ..."), and their look-alikes. Rules only, on a real
SQLite file."""

from __future__ import annotations

import datetime as dt
import sqlite3

import pytest

from local_agent.reading import read
from local_agent.tools.calculator import make_calculator
from local_agent.tools.router import Router
from local_agent.tools.sql import left_out, make_sql_query

NOW = dt.datetime(2026, 3, 11, 12, 0)
USERS = [(1, "a@x.org", 31, "Oslo", "retail", "2022-02-01"), (2, "b@x.org", 30, "Lima", "retail", "2023-05-01"),
         (3, "c@x.org", 45, "Oslo", "finance", "2023-07-09"), (4, "d@x.org", 30, "Lima", "finance", "2024-01-03"),
         (5, "e@x.org", 52, "Kyiv", "retail", "2024-03-03"), (6, "f@x.org", 28, "Kyiv", "finance", "2022-09-09")]
ACTIVITY = [(1, 1, "comment", "2023-01-02"), (2, 1, "purchase", "2023-02-02"), (3, 2, "comment", "2023-03-02"),
            (4, 3, "purchase", "2024-04-02"), (5, 2, "comment", "2024-01-02"), (6, 4, "post", "2023-06-06")]


@pytest.fixture(scope="module")
def tools(tmp_path_factory: pytest.TempPathFactory) -> dict:
    path = tmp_path_factory.mktemp("db") / "sample.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT UNIQUE, age INTEGER, location TEXT, "
                           "job_industry TEXT, signup_date TEXT)")
        connection.execute("CREATE TABLE user_activity (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id), "
                           "activity_type TEXT, activity_date TEXT)")
        connection.executemany("INSERT INTO users VALUES (?, ?, ?, ?, ?, ?)", USERS)
        connection.executemany("INSERT INTO user_activity VALUES (?, ?, ?, ?)", ACTIVITY)
    connection.close()
    return {"sql_query": make_sql_query(path), "calculator": make_calculator()}


def run(tools: dict, message: str) -> tuple[str, str | None]:
    """The result of the route's direct call and what its query leaves out."""
    route = Router(tools).route(read(message, NOW))
    assert route.kind == "direct", route
    tool = tools[route.tools[0]]
    result = tool.function(**route.arguments)
    return result, left_out(tool, message, route.arguments) if route.tools[0] == "sql_query" else None


@pytest.mark.parametrize(("message", "shown"), [
    ("What's the average age of users in Oslo? One decimal is fine.", "38.0"),
    ("average age of our users, round to one decimal", "36.0"),
    ("What share of users live in Kyiv, as a percentage rounded to one decimal?", "33.3"),
    ("What percentage of all activities are purchases? 3 dp", "33.333"),
    ("average age of users in Oslo to the nearest whole number", "38"),
])
def test_a_rounding_instruction_is_the_places_of_the_answer_and_covered(tools: dict, message: str, shown: str):
    result, part = run(tools, message)
    assert result.splitlines()[1] == shown and part is None


def test_without_an_instruction_an_average_keeps_two_places(tools: dict):
    assert run(tools, "average age of users in Kyiv")[0].splitlines()[1] == "40.0"
    assert run(tools, "What percentage of users live in Oslo?")[0].splitlines()[1] == "33.33"


def test_a_calculation_is_rounded_as_asked(tools: dict):
    assert run(tools, "what is 17/3 to 2 decimal places?")[0] == "round(17/3, 2) = 5.67"
    assert run(tools, "round 3.14159 to two decimal places")[0] == "round(3.14159, 2) = 3.14"
    assert run(tools, "what is 3.14159 rounded to 2 decimal places?")[0] == "round(3.14159, 2) = 3.14"
    assert Router(tools).route(read("I have 3 cats, one decimal is fine", NOW)).kind != "direct"
    assert run(tools, "what is 17/3?")[0].endswith("= 5.66666666667")


@pytest.mark.parametrize("message", ["How much is a round trip for 2 people at 45 each?",
                                     "We sat at a round table, what is 12 times 3?"])
def test_round_in_other_senses_is_no_instruction(tools: dict, message: str):
    assert "round(" not in str(Router(tools).route(read(message, NOW)).arguments)


def test_a_value_verb_is_the_value(tools: dict):
    result, part = run(tools, "how many users commented in 2023?")
    assert result.splitlines()[1] == "2" and part is None
    assert run(tools, "how many users have never purchased anything?")[0].splitlines()[1] == "4"


def test_a_terse_database_noun_phrase_is_never_chat(tools: dict):
    result, part = run(tools, "distinct users who commented in 2023")
    assert result.splitlines()[1] == "2" and part is None
    assert Router(tools).route(read("unique users with a post", NOW)).kind == "direct"
    assert Router(tools).route(read("distinct memories of my childhood", NOW)).kind == "none"
    assert Router(tools).route(read("distinct locations", NOW)).kind != "direct"  # the list, or a count?


@pytest.mark.parametrize(("message", "shown"), [
    ("Which location has the fewest users? If there's a tie, the alphabetically first.", "Kyiv | 2"),
    ("whats the email of the oldest user in Lima, highest id if tie", "d@x.org"),
    ("whats the email of the oldest user in Lima, lowest id if tie", "b@x.org"),
    ("Which industry has the most users? Break ties alphabetically.", "finance | 3"),
    ("Who is the oldest user in Lima? If tied, pick the highest id.", "d@x.org"),
])
def test_a_tie_break_is_a_second_sort_key_and_settles_the_tie(tools: dict, message: str, shown: str):
    result, part = run(tools, message)
    assert result.splitlines()[1] == shown and "tied" not in result and part is None


@pytest.mark.parametrize("message", ["Which location has the fewest users?",
                                     "Which location has the fewest users? We tied with them last year."])
def test_without_a_tie_break_a_tie_is_still_said(tools: dict, message: str):
    result, _ = run(tools, message)
    assert "tied" in result


@pytest.mark.parametrize(("message", "shown", "part"), [
    ("How many users are between 30 and 45 years old, inclusive?", "4", None),
    ("Give me the number of users aged 30 to 31 inclusive", "3", None),
    ("how many retail users in Oslo or Lima are 31 or older", "1", None),
    ("how many users are 30 years or younger?", "3", None),
    ("How many users aged 30+?", "5", None),
    ("how many users are 45 and over?", "2", None),
    ("How many users in Oslo, inclusive?", "2", 'the word "inclusive"'),  # no range to include the ends of
    ("How many users have never made a single purchase?", "4", None),
    ("How many single users live in Oslo?", "2", 'the word "single"'),  # a qualifier no column holds
    ("how many users have a post activity logged?", "1", None),
    ("How many users does the database hold?", "6", None),
    ("how many sign-ups did we get in q3 2023", "1", None),
    ("how many sign-ups did we get in q5 2023", "2", 'the word "q"'),  # no fifth quarter
    ("how many premium users live in Oslo?", "2", 'the word "premium"'),
])
def test_words_a_query_covers_and_words_it_does_not(tools: dict, message: str, shown: str, part: str | None):
    result, left = run(tools, message)
    assert result.splitlines()[1] == shown and left == part


@pytest.mark.parametrize("message", ["how many users in finance have at least one 'post' activity?",
                                     "how many users in finance made 1 or more posts?"])
def test_at_least_one_row_is_that_there_is_one(tools: dict, message: str):
    route = Router(tools).route(read(message, NOW))
    result, part = run(tools, message)
    assert result.splitlines()[1] == "1" and part is None and "age" not in str(route.arguments)


def test_more_than_one_row_per_row_is_no_form_yet(tools: dict):
    assert Router(tools).route(read("how many users have 3 or more purchases?", NOW)).kind != "direct"


@pytest.mark.parametrize(("message", "shown"), [
    ("whats the avg number of activites per user (all users, incl ones with none), 2 decimals", "1.0"),
    ("average number of activities per user among users with at least one activity", "1.5"),
])
def test_rows_per_row_of_the_table_they_refer_to(tools: dict, message: str, shown: str):
    result, part = run(tools, message)
    assert result.splitlines()[1] == shown and part is None


@pytest.mark.parametrize("message", [
    "what is the average number of activities per user?",  # those with none counted, or not?
    "average number of activities per user with no purchases, including those with none",
])
def test_rows_per_row_that_do_not_say_which_rows_are_not_read(tools: dict, message: str):
    assert Router(tools).route(read(message, NOW)).arguments.get("select") != "per"


def test_question_words_misspelled_short_are_read(tools: dict):
    assert run(tools, "hw many usrs in oslo")[0].splitlines()[1] == "2"
    assert run(tools, "wich industry has most users? break ties alphabetically")[0].splitlines()[1] == "finance | 3"
    assert Router(tools).route(read("hw are you?", NOW)).kind == "none"


def test_a_question_naming_a_table_is_never_chat_and_a_place_alone_is(tools: dict):
    for message in ("Do we have any users older than 80?", "users in oslo?", "Quick q: purchases in 2023?",
                    "users between 30 and 40?",
                    "emails of the 2 oldest users"):
        assert Router(tools).route(read(message, NOW)).kind in ("direct", "model"), message
    for message in ("Have you ever been to Oslo?", "what's the weather in Oslo?",
                    "My users keep asking for a dark mode, any tips?", "any good purchase advice?"):
        assert Router(tools).route(read(message, NOW)).kind == "none", message


def test_the_top_rows_a_count_does_not_list_are_left_out(tools: dict):
    _, part = run(tools, "top 2 locations by number of users")
    assert part is not None


def test_a_request_in_the_first_person_asks_too(tools: dict):
    assert run(tools, "I need the count of users in Oslo")[0].splitlines()[1] == "2"
    for message in ("I need users to stop spamming", "I want to delete all users"):
        assert Router(tools).route(read(message, NOW)).kind == "none", message


def test_a_count_of_days_is_no_count_of_rows(tools: dict):
    route = Router(tools).route(read("I was born on 5 May 1992. How many days old am I?", NOW))
    assert route.tools != ("sql_query",)


def test_a_number_in_words_the_query_does_not_use_is_left_out(tools: dict):
    _, part = run(tools, "Which two cities have the most users?")
    assert part == "the condition on 2"
    assert run(tools, "Which city has the most users? Break ties alphabetically.")[1] is None


def test_a_column_named_in_the_plural_is_about_the_data(tools: dict):
    assert Router(tools).route(read("List the industries.", NOW)).kind == "model"
    assert Router(tools).route(read("List the best pizza places.", NOW)).kind == "none"
