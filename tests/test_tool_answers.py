"""The answers of tool turns are grounded (issue 24): a failed or empty tool never becomes a
made-up answer, every number and date in an answer comes from this turn's results or the
question (accepted, one retry, then a template), and no worked example can reach an answer.
On a scripted model, through `ask --json` as a user runs it."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from local_agent.tools.loop import ToolCall
from local_agent.tools.plain import failure_answer, plain_answer
from local_agent.turn.tool_turn import _all_examples
from tests.test_tools_agent import action, ask_json, tool

OSLO = "How many users in the database live in Oslo?"  # read by rule: the answer step phrases the result
MY_TOWN = "Which users in the database live in my town?"  # about the database, left to the model


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "users.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT, location TEXT)")
        connection.executemany("INSERT INTO users VALUES (?, ?, ?)",
                               [(1, "a@x.org", "Oslo"), (2, "b@x.org", "Lima"), (3, "c@x.org", "Oslo")])
    connection.close()
    return path


def numbers(text: str) -> set[str]:
    return set(re.findall(r"\d+(?:\.\d+)?", text))


def assert_no_new_number(answer: str, question: str) -> None:
    assert numbers(answer) <= numbers(question), answer


# -- 1. a failed tool never yields a number the question does not hold ------------------------
def test_a_failed_sql_query_is_said_and_the_model_is_not_asked_to_answer(scripted, db):
    scripted.queue(tool("sql_query", table="users", select="avg", column="*"), action("final"),
                   "There are 57 users in Oslo.")
    data = ask_json("--db", str(db), MY_TOWN, backend=scripted)
    assert data["answer"] == "I could not answer this. The database query failed: avg needs a column, not *."
    assert data["tools"]["check"] == "failed"
    assert_no_new_number(data["answer"], MY_TOWN)
    assert len(scripted.prompts) == 2  # the two steps; no answer step was run


def test_a_place_the_database_does_not_hold_is_said_and_no_count_is_made_up(scripted, db):
    question = "How many users live in Paris?"  # the "57 users in Oslo": the schema listing's row count
    scripted.queue("There are 57 users in Paris.")
    data = ask_json("--db", str(db), question, backend=scripted)
    assert data["answer"] == ("I could not answer this. The database query failed: bad arguments for sql_query: "
                              "'Paris' is not a location in the database (its location values: Lima, Oslo).")
    assert_no_new_number(data["answer"], question)
    assert scripted.prompts == []


def test_a_failed_date_call_is_said_without_numbers_of_its_own(scripted):
    question = "What day is it 1e20 days from now?"
    scripted.queue(tool("date", operation="add", amount=100000, unit="years"), action("final"),
                   "80 days are left until your birthday.")
    data = ask_json("--tools", "--today", "2026-03-11", question, backend=scripted)
    assert data["tool_calls"][0]["error"] and data["tools"]["check"] == "failed"
    assert data["answer"].startswith("I could not answer this. The date tool failed")
    assert_no_new_number(data["answer"], question)


def test_a_failed_calculation_is_said_by_rule_and_by_the_model(scripted):
    direct = ask_json("--tools", "What is 5 / 0?", backend=scripted)
    assert direct["answer"] == "I could not answer this. The calculator failed: division by zero."
    assert direct["tools"]["check"] == "failed" and scripted.prompts == []
    question = "Can you calculate my taxes?"
    scripted.queue(tool("calculator", expression="4 / 0"), action("final"), "Each pays 37.5 dollars.")
    data = ask_json("--tools", question, backend=scripted)
    assert data["tools"]["route"] == "model" and data["tools"]["check"] == "failed"
    assert_no_new_number(data["answer"], question)


def test_a_query_that_finds_no_rows_says_so(scripted, db):
    scripted.queue(tool("sql_query", table="users", select="value", column="email", filters=[
        {"column": "location", "op": "=", "value": "Oslo"}, {"column": "id", "op": ">", "value": 10}]),
                   action("final"), "The users are x@x.org.")
    data = ask_json("--db", str(db), MY_TOWN, backend=scripted)
    assert data["answer"] == "I could not answer this. The database query found nothing."


def test_an_error_with_numbers_the_question_lacks_is_left_to_the_trace():
    call = ToolCall("calculator", {"expression": "9" * 31}, "", "numbers with more than 30 digits are too long", 0.0)
    assert failure_answer([call], "What is that big number times two?") == (
        "I could not answer this. The calculator failed (the error is in the trace).")


# -- 2. every number and date comes from somewhere -------------------------------------------
def test_a_supported_answer_is_accepted(scripted, db):
    scripted.queue("Two users live in Oslo: 2 in all.")
    data = ask_json("--db", str(db), OSLO, backend=scripted)
    assert data["answer"] == "Two users live in Oslo: 2 in all." and data["tools"]["check"] == "accepted"


def test_an_unsupported_number_gets_one_retry_with_the_result_before_the_answer(scripted, db):
    scripted.queue("There are 57 users in Oslo.", "There are 2 users in Oslo.")
    data = ask_json("--db", str(db), OSLO, backend=scripted)
    assert data["answer"] == "There are 2 users in Oslo." and data["tools"]["check"] == "retried"
    assert data["tools"]["rejected"] == ["57"]
    retry = scripted.prompts[-1][-1].content
    assert retry.rstrip().endswith("The result: The result is 2.\n"
                                   "Answer the question in one sentence with this result.")


def test_after_a_failed_retry_the_answer_is_built_from_the_result(scripted, db):
    scripted.queue("There are 57 users in Oslo.", "Oslo has 37 users since 10 April 2026.")
    data = ask_json("--db", str(db), OSLO, backend=scripted)
    assert data["answer"] == "The result is 2." and data["tools"]["check"] == "templated"
    assert data["tools"]["rejected"] == ["57", "37", "10 April 2026"]


def test_a_weekday_that_is_not_the_dates_own_is_rejected(scripted):
    question = "Which weekday will the first day of next month be, do you know?"
    scripted.queue(tool("date", operation="weekday", date="2026-04-01"), action("final"),
                   "It is Thursday, 1 April 2026.", "It is Friday.")
    data = ask_json("--tools", "--today", "2026-03-11", question, backend=scripted)
    assert data["tools"]["check"] == "templated" and data["outcome"] == "unsure"  # the model read the date: a guess
    assert data["answer"] == ("I'm not sure this answers your question (the model chose the date reading). It says: "
                              "1 April 2026 (2026-04-01) is a Wednesday.")


# -- 3. worked examples cannot leak -----------------------------------------------------------
def _example_values() -> set[str]:
    examples = _all_examples()
    return {number for name, items in examples.items() if not name.startswith("_") for item in items
            for _, _, result in item["calls"] for number in numbers(result)}


def test_the_answer_step_never_sees_a_worked_example(scripted, db):
    scripted.queue(tool("sql_query", table="users", select="value", column="email",
                        filters=[{"column": "location", "op": "=", "value": "Oslo"}]), action("final"),
                   "a@x.org and c@x.org live there.")
    ask_json("--db", str(db), MY_TOWN, backend=scripted)
    steps, answer_step = scripted.prompts[:-1], scripted.prompts[-1]
    shown = "\n".join(message.content for message in answer_step)
    assert any("orders" in message.content for step in steps for message in step)  # the steps had the examples
    assert "orders" not in shown and len(answer_step) == 2  # the answer step: instructions, question and results


@pytest.mark.parametrize("leaked", ["There are 37 orders over 100 dollars.", "You paid 12.8 dollars altogether.",
                                    "80 days are left until your birthday.", "3 pizzas cost 37.5 dollars."])
def test_no_example_value_can_reach_an_answer(scripted, db, leaked):
    scripted.queue(leaked, leaked)
    data = ask_json("--db", str(db), OSLO, backend=scripted)
    assert not (numbers(data["answer"]) & _example_values() - numbers(OSLO) - {"2"})
    assert data["answer"] == "The result is 2."


def test_the_worked_examples_hold_no_answer():
    assert all("answer" not in item for name, items in _all_examples().items() if not name.startswith("_")
               for item in items)


# -- templates --------------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "result", "answer"), [
    ("calculator", "15 / 100 * 84 = 12.6", "The result is 12.6."),
    ("sql_query", "count(*)\n41\n(1 rows)", "The result is 41."),
    ("sql_query", "location | n\nLisbon | 41\n(1 rows)", "The result is location Lisbon, n 41."),
    ("sql_query", "email\na@x.org\nb@x.org\n(2 rows)", "The query returned 2 rows (email): a@x.org; b@x.org."),
    ("date", "1 April 2026 (2026-04-01) is a Wednesday.", "1 April 2026 (2026-04-01) is a Wednesday."),
    ("memory_search", "1. The user's sister is called Maya.\n2. x",
     "From your memory: The user's sister is called Maya."),
])
def test_plain_answers(name, result, answer):
    assert plain_answer(ToolCall(name, {}, result, None, 0.0)) == answer


def test_the_trace_says_how_the_answer_was_reached_in_the_session_file(scripted, db, isolated_dirs):
    scripted.queue("There are 3 users.")
    data = ask_json("--db", str(db), "--session", "s1", "How many users are in the database?", backend=scripted)
    assert data["tools"]["check"] == "accepted"
    saved = json.loads((isolated_dirs / "sessions" / "s1.json").read_text())
    assert saved["turns"][1]["content"] == "There are 3 users."


def test_an_answer_that_states_no_result_is_retried(scripted, db):
    scripted.queue("You want to know the number of users in Oslo.", "There are 2 users in Oslo.")
    data = ask_json("--db", str(db), OSLO, backend=scripted)
    assert data["answer"] == "There are 2 users in Oslo." and data["tools"]["check"] == "retried"


def test_a_rule_call_is_not_narrowed_to_the_messages_numbers(scripted):
    data = ask_json("--tools", "what is the square root of 1764", backend=scripted)
    assert data["answer"] == "sqrt(1764) = 42" and data["tools"]["check"] == "direct"


def test_an_underflow_is_said_not_answered_as_zero(scripted):
    data = ask_json("--tools", "What is 10**-400?", backend=scripted)
    assert data["answer"] == ("I could not answer this. The calculator failed: the result is too small for the "
                              "calculator to represent (it underflows).")
    assert data["tools"]["route"] == "direct" and scripted.prompts == []


def test_an_answer_to_a_one_row_result_names_its_words():
    from local_agent.turn.tool_answer import names_row
    grouped = ToolCall("sql_query", {}, "job_industry | count(*)\nhealthcare | 13\n(1 rows)", None, 0.0)
    assert not names_row("The answer is: 13.", grouped) and names_row("Most work in healthcare (13).", grouped)
    counted = ToolCall("sql_query", {}, "count(*)\n41\n(1 rows)", None, 0.0)  # a number alone: nothing to name
    assert names_row("The result is 41.", counted)
    many = ToolCall("sql_query", {}, "city | n\nLisbon | 4\nPorto | 2\n(2 rows)", None, 0.0)
    assert names_row("Lisbon has 4.", many)  # several rows: the first value is enough (checked elsewhere)
