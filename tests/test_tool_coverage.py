"""A reading that leaves part of a question out says so (issue 42): date forms no rule reads
whole are said back and asked about; a database question whose structured query lacks a part
of it gets the query shown and "I'm not sure this answers your question". Through `ask --json`
on a scripted model, and the readers' checks on their own."""

from __future__ import annotations

import pytest

from local_agent.reading.values import extract
from local_agent.tools.coverage import date_left_out, sql_left_out, sql_text, unused_numbers
from local_agent.tools.date_rules import date_question
from tests.test_tool_answers import db  # noqa: F401  (the fixture)
from tests.test_tools_agent import action, ask_json, tool


@pytest.mark.parametrize(("message", "part"), [
    ("How many working days are there from Monday 16 March to Friday 27 March?", "a count of working days"),
    ("What date is the second Tuesday of April 2026?", "the nth weekday of a month"),
    ("How many Mondays are left this year?", "a count of one weekday"),
    ("What week number is it today?", "a week number"),
    ("Someone born on 14 August 1990, how old will they turn this year?", "an age still to come"),
])
def test_date_forms_no_rule_reads_whole(message: str, part: str):
    assert date_left_out(message) == part


@pytest.mark.parametrize("message", [
    "What was the date last Friday?", "Which weekday will the first day of next month be?",
    "How many days until June 3?", "what's the date two weeks after next Monday?",
])
def test_date_forms_the_rules_read_leave_nothing_out(message: str):
    assert date_left_out(message) is None


@pytest.mark.parametrize(("message", "part"), [
    ("What date is the second Tuesday of April 2026?", None),
    ("How many working days are there from Monday 16 March to Friday 27 March 2026?", None),
    ("how many Mondays are left this month?", None),
    ("What week number is it today?", None),
    ("Someone born on 14 August 1990, how old will they turn this year?", None),
    ("when is the 3rd friday of next month", "the nth weekday of a month"),  # read as "which Friday": not covered
    ("How many business days until the deadline?", "a count of working days"),
    ("how old will someone born on 1990-08-14 be next year?", "an age still to come"),  # read as today's age
    ("how many working days until the 2nd Monday of April 2026?", "a count of working days"),
    ("How many days until the second Friday of May?", "the nth weekday of a month"),
    ("How many weekends are left this year?", "a count of weekends or holidays"),
    ("How old would someone born on March 3, 2000 be next year?", "an age still to come"),
    ("How old would someone born on March 3, 2000 be today?", None),
    ("How many hours until Friday?", "a count of hours or minutes"),
    ("what's the 2nd monday next month", "the nth weekday of a month"),
    ("When is the first Friday after 20 March 2026?", "the weekday after or before a date"),
    ("I worked 3 hours 40 minutes on Monday and 2 hours 35 minutes on Tuesday, how long is that altogether?",
     "a calculation with 3"),  # not the days from Monday to Tuesday
    ("I'm knitting a scarf, she turns 80 next month! Anyway, what's the date 3 weeks from today?", None),  # context
    ("what day is 100 days from 1 jan 2026", None),
])
def test_a_form_is_covered_only_by_the_operation_that_computes_it(message: str, part: str | None):
    assert date_left_out(message, date_question(message)) == part


SQL = 'SELECT count(*) FROM "users" WHERE "users"."location" = ?'


@pytest.mark.parametrize(("message", "sql", "parameters", "part"), [
    ("How many users do not live in Oslo?", SQL, ["Oslo"], "the negation"),
    ("How many users have never done anything?", 'SELECT count(*) FROM "user_activity"', [], "the negation"),
    ("How many users live in Oslo or Lima?", SQL, ["Oslo"], 'the "or"'),
    ("How many users are in their twenties?", 'SELECT count(*) FROM "users"', [], "a range"),
    ("Which city has the most users?", 'SELECT count(*) FROM "users"', [], "which one it asks for"),
    ("How many users in Oslo are over 40?", SQL, ["Oslo"], "the condition on 40"),
    ("How many users live in Oslo?", SQL, ["Oslo"], None),
    ("how many users are in the most common city?", 'SELECT count(*) FROM "users"', [],
     "the most or least it asks for"),
    ("age of the oldest user in Oslo", 'SELECT max("users"."age") FROM "users" WHERE "users"."location" = ?', ["Oslo"],
     None),  # a MAX covers it
    ("How many users live in Oslo or Lima?", 'SELECT count(*) FROM "users" WHERE "location" IN (?, ?)',
     ["Oslo", "Lima"], None),
])
def test_sql_parts_a_query_leaves_out(message: str, sql: str, parameters: list[str], part: str | None):
    assert sql_left_out(message, sql, parameters) == part


def test_a_query_is_shown_with_its_values():
    assert sql_text(SQL, ["Oslo"]) == SQL.replace("?", "'Oslo'")


def test_a_date_form_no_rule_reads_is_said_back_and_asked(scripted):
    data = ask_json("--tools", "--today", "2026-03-11", "When is the third Friday of next month?", backend=scripted)
    assert data["outcome"] == "unsure" and data["answer"].startswith("I'm not sure: this asks for the nth weekday")
    assert data["tools"]["route"] == "unsure" and scripted.prompts == []


def test_the_nth_weekday_of_a_named_month_is_answered(scripted):
    data = ask_json("--tools", "--today", "2026-03-11", "What date is the second Tuesday of April 2026?",
                    backend=scripted)
    assert data["outcome"] == "answer" and data["tools"]["route"] == "direct" and scripted.prompts == []
    assert data["answer"] == "The second Tuesday of April 2026 is Tuesday, 14 April 2026 (2026-04-14)."


def test_a_read_date_question_is_answered(scripted):
    data = ask_json("--tools", "--today", "2026-03-11", "How many days until June 3?", backend=scripted)
    assert data["outcome"] == "answer" and "84" in data["answer"]


def test_a_database_question_with_a_negation_shows_its_query(scripted, db):  # noqa: F811
    scripted.queue("2 users live in Oslo.")
    data = ask_json("--db", str(db), "How many users in the database in Oslo are not listed?", backend=scripted)
    assert data["outcome"] == "unsure"
    assert data["answer"].startswith("I'm not sure this answers your question (the negation). I ran: SELECT")
    assert "'Oslo'" in data["answer"]


def test_a_negated_value_is_read_as_not_that_value(scripted, db):  # noqa: F811
    scripted.queue("1 user does not live in Oslo.")
    data = ask_json("--db", str(db), "How many users in the database do not live in Oslo?", backend=scripted)
    assert data["outcome"] == "answer" and data["answer"] == "1 user does not live in Oslo."
    assert data["tool_calls"][0]["arguments"]["filters"] == [{"column": "location", "op": "!=", "value": "Oslo"}]


def test_a_database_question_read_whole_is_answered(scripted, db):  # noqa: F811
    scripted.queue("2 users live in Oslo.")
    data = ask_json("--db", str(db), "How many users in the database live in Oslo?", backend=scripted)
    assert data["outcome"] == "answer" and data["answer"] == "2 users live in Oslo."


def test_a_calculation_the_model_chose_is_shown_and_not_stood_behind(scripted):
    scripted.queue(tool("calculator", expression="1000 * 0.2"), action("final"), "Your taxes are 200.")
    data = ask_json("--tools", "Can you calculate my taxes?", backend=scripted)
    assert data["tools"]["route"] == "model" and data["outcome"] == "unsure"
    assert data["answer"] == ("I'm not sure this answers your question (the model chose the calculation). "
                              "I worked out: 1000 * 0.2. Your taxes are 200.")


@pytest.mark.parametrize(("message", "arguments", "unused"), [
    ("My daughter is 9. What is 56 divided by 8?", {"expression": "56 / 8"}, ["9"]),
    ("Convert 5 feet 10 inches to centimetres.", {"expression": "5 * 30.48"}, ["10"]),
    ("3 bags of 12 apples, I gave 5 away, how many left?", {"expression": "3 * 12"}, ["5"]),
    ("date in 30 days, then 2 more weeks", {"operation": "add", "date": "today", "amount": 30, "unit": "days"},
     ["2"]),
])
def test_a_number_the_reading_does_not_use_is_named(message: str, arguments: dict, unused: list[str]):
    assert unused_numbers(extract(message, ("number",)), arguments) == unused


@pytest.mark.parametrize(("message", "arguments"), [
    ("A jacket costs 80 euros with 25% off. What's the sale price?", {"expression": "80 * (1 - 0.25)"}),
    ("what's 5 percent of 1 million", {"expression": "(5/100) * 1000000"}),
    ("What was the date 100 days ago?", {"operation": "add", "date": "today", "amount": -100, "unit": "days"}),
    ("How many days until 25 December 2026?", {"operation": "between", "date": "today", "other": "2026-12-25"}),
])
def test_a_reading_that_uses_every_number_leaves_none_out(message: str, arguments: dict):
    assert unused_numbers(extract(message, ("number",)), arguments) == []


def test_a_calculation_that_leaves_a_number_out_is_said_back_and_asked(scripted):
    data = ask_json("--tools", "My daughter is 9 and loves maths. What is 56 divided by 8?", backend=scripted)
    assert data["tools"]["route"] == "direct" and data["outcome"] == "unsure"
    assert data["answer"] == ("I'm not sure this answers your question: it leaves out the 9 you gave. "
                              "I read it as: 56 / 8 = 7")
    assert scripted.prompts == []


def test_a_calculation_that_uses_every_number_is_answered(scripted):
    data = ask_json("--tools", "What is 56 divided by 8?", backend=scripted)
    assert data["outcome"] == "answer" and data["answer"] == "56 / 8 = 7"


def test_a_date_reading_the_model_chose_is_not_stood_behind(scripted):
    scripted.queue(tool("date", operation="today"), action("final"), "Today is Wednesday, 11 March 2026.")
    data = ask_json("--tools", "--today", "2026-03-11", "How many days until my birthday?", backend=scripted)
    assert data["tools"]["route"] == "model" and data["outcome"] == "unsure"
    assert data["answer"].startswith("I'm not sure this answers your question (the model chose the date reading).")


def test_a_number_written_twice_and_used_once_is_left_out(scripted):
    """Each use of a number counts for one of the message's: "3/4 cup ... 3 batches" read as 3/4."""
    data = ask_json("--tools", "A recipe calls for 3/4 cup of sugar. I want to make 3 batches. How much sugar?",
                    backend=scripted)
    assert data["tools"]["route"] == "direct" and data["outcome"] == "unsure"
    assert "it leaves out the 3 you gave" in data["answer"]


def test_a_mixed_number_in_words_is_one_number_used():
    message = "I earn eighteen dollars an hour and worked thirty-two and a half hours this week. What's my pay?"
    assert unused_numbers(extract(message, ("number",)), {"expression": "18 * 32.5"}) == []


def test_a_database_question_the_model_answers_without_a_query_is_not_stood_behind(scripted, db):  # noqa: F811
    scripted.queue(action("final"), "Most users live in Oslo.")
    data = ask_json("--db", str(db), "What fraction of users in the database live in Oslo?", backend=scripted)
    assert data["tools"]["route"] == "model" and data["tool_calls"] == [] and data["outcome"] == "unsure"
    assert data["answer"].startswith("I'm not sure this answers your question (no query of your database was run).")


@pytest.mark.parametrize(("message", "expression", "said"), [
    ("6 of us, I added an 18% tip. how much does everyone owe me?", "18 / 6", "18%"),  # a percentage as an amount
    ("what's 15% of 80?", "15 / 100 * 80", None),  # used as its fraction
    ("bill $86.40, 20% tip, split 4 ways", "86.40 * (1 + 20 / 100) / 4", None),
])
def test_a_percentage_used_as_a_plain_number_is_said(message, expression, said):
    from local_agent.tools.coverage import percent_as_amount
    assert percent_as_amount(message, expression) == said


@pytest.mark.parametrize(("message", "expression", "said"), [
    ("my phone plan costs 35 a month plus 8 for insurance. yearly total?", "35 + 8", "the year"),
    ("rent is 1200 a month and bills 300 a month. how much per year?", "1200 + 300", "the year"),
    ("gym is 40 a month, how much for a year?", "40 * 1 * 12", None),  # converted: 12 months
    ("I walk 4 km a day. how far in 2 weeks?", "4 * 2 * 7", None),
    ("netflix 15 a month and spotify 11 a month, monthly total?", "15 + 11", None),  # the same period
])
def test_a_period_asked_that_a_rate_over_another_leaves_out_is_said(message, expression, said):
    from local_agent.tools.coverage import period_left_out
    assert period_left_out(message, expression) == said


def test_an_average_no_query_computes_is_said():
    assert sql_left_out("how many activity records does a user have on average?",
                        'SELECT count(*) FROM "user_activity"', []) == "an average"
    assert sql_left_out("average age of users in Oslo?", 'SELECT round(avg("users"."age"), 1) FROM "users" WHERE '
                        '"users"."location" = ?', ["Oslo"]) is None


def test_a_calculation_or_date_the_model_answers_without_a_tool_is_not_stood_behind(scripted):
    scripted.queue(action("final"), "The user wants to know how many days until the birthday.")
    data = ask_json("--tools", "um how many days till my sisters birthday on the twentieth of may", backend=scripted)
    assert data["tools"]["route"] == "model" and data["tool_calls"] == [] and data["outcome"] == "unsure"
    assert data["answer"].startswith("I'm not sure this answers your question (nothing was worked out).")
