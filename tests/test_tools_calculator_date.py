"""calculator (safe evaluation with capped numbers) and date (arithmetic from an injected today)."""

from __future__ import annotations

import datetime as dt
import time

import pytest

from local_agent.errors import ToolError
from local_agent.tools.calculator import MAX_DIGITS, calculator, evaluate, make_calculator
from local_agent.tools.dates import make_date, shift

TODAY = dt.date(2025, 3, 14)  # a Friday


@pytest.mark.parametrize(("expression", "value"), [
    ("17 * 23", 391), ("2^10", 1024), ("(3 + 4) * 2", 14), ("10 / 4", 2.5), ("7 // 2", 3), ("7 % 3", 1),
    ("sqrt(16)", 4.0), ("12 / 100 * 250", 30.0), ("2 ** -2", 0.25), ("round(2.567, 2)", 2.57),
    ("max(3, 9, 4)", 9), ("-5 + +2", -3), ("3 × 4 ÷ 2", 6.0), ("1e3 + 1", 1001.0),
])
def test_arithmetic(expression: str, value: float):
    assert evaluate(expression) == pytest.approx(value)


def test_result_text():
    assert calculator("17 * 23") == "17 * 23 = 391"
    assert calculator("10 / 3") == "10 / 3 = 3.33333333333"
    assert calculator("2.5 * 2") == "2.5 * 2 = 5"


@pytest.mark.parametrize(("expression", "message"), [
    ("9" * (MAX_DIGITS + 1), "more than 30 digits"),
    ("2 ** 5000", "exponents above"),
    ("2 ** 999", "reaches 10\\^100"),
    ("10 ** 60 * 10 ** 60", "reaches 10\\^100"),
    ("9 ** 9 ** 9", "exponents above"),
    ("1e308 * 10", "not a finite number|reaches 10\\^100"),
    ("(-8) ** 0.5", "numbers only"),
    ("1 / 0", "division by zero"),
    ("sqrt(-1)", "cannot compute"),
    ("__import__('os').system('true')", "not allowed|only numbers|plain calls"),
    ("(1).real", "Attribute is not allowed"),
    ("[1, 2]", "List is not allowed"),
    ("'a' * 10", "only numbers"),
    ("x", "not allowed in the calculator"),
    ("open('f')", "only numbers"),
    ("1; 2", "not an arithmetic expression"),
    ("a = 1", "not an arithmetic expression"),
    ("1 < 2", "Compare is not allowed"),
    ("round(2.5, ndigits=1)", "plain calls"),
    ("", "1 to 200 characters"),
    ("1 + " * 60 + "1", "1 to 200 characters"),
])
def test_refused(expression: str, message: str):
    with pytest.raises(ToolError, match=message):
        evaluate(expression)


def test_capped_expressions_end_fast():
    start = time.perf_counter()
    for expression in ("9 ** 1000", "99999 ** 999", "(10 ** 99) * (10 ** 99)"):
        with pytest.raises(ToolError):
            evaluate(expression)
    assert time.perf_counter() - start < 1


def test_calculator_tool_checks_its_arguments():
    tool = make_calculator()
    assert tool({"expression": "1 + 1"}) == "1 + 1 = 2"
    with pytest.raises(ToolError, match="bad arguments"):
        tool({"expr": "1 + 1"})


def _date(**arguments) -> str:
    return make_date(TODAY)(arguments)


def test_today_and_weekdays():
    assert _date(operation="today") == "Today is Friday, 14 March 2025 (2025-03-14)."
    assert _date(operation="weekday", date="2024-02-29") == "29 February 2024 (2024-02-29) is a Thursday."


def test_date_arithmetic():
    assert _date(operation="add", amount=3, unit="weeks") == (
        "3 weeks after Friday, 14 March 2025 (2025-03-14) is Friday, 4 April 2025 (2025-04-04).")
    assert _date(operation="add", amount=-1, unit="days").endswith("is Thursday, 13 March 2025 (2025-03-13).")
    assert _date(operation="between", date="today", other="2025-12-25").endswith("is 286 days.")
    # told from the earlier end, so a count of days is never negative ("how many days have we lived here")
    assert _date(operation="between", date="2025-12-25", other="today") == (
        "From Friday, 14 March 2025 (2025-03-14) to Thursday, 25 December 2025 (2025-12-25) is 286 days.")


def test_months_land_on_the_last_day_when_needed():
    assert shift(dt.date(2024, 1, 31), 1, "months") == dt.date(2024, 2, 29)
    assert shift(dt.date(2024, 2, 29), 1, "years") == dt.date(2025, 2, 28)
    assert shift(dt.date(2025, 3, 14), -15, "months") == dt.date(2023, 12, 14)


@pytest.mark.parametrize(("arguments", "message"), [
    ({"operation": "weekday", "date": "2025-02-30"}, "not a date"),
    ({"operation": "weekday", "date": "next friday"}, "bad arguments"),
    ({"operation": "add", "amount": 100_000, "unit": "years"}, "outside the years"),
    ({"operation": "between"}, "needs other"),
    ({"operation": "yesterday"}, "bad arguments"),
])
def test_date_refusals(arguments: dict, message: str):
    with pytest.raises(ToolError, match=message):
        make_date(TODAY)(arguments)


@pytest.mark.parametrize("expression", ["10**-400", "1e-200 * 1e-200", "1 / 10**99 / 10**99 / 10**99 / 10**99",
                                        "exp(-1000)", "1e-99 ** 4"])
def test_a_result_too_small_to_represent_is_an_error_not_zero(expression: str):
    # issue 23: the calculator said 10**-400 = 0
    with pytest.raises(ToolError, match="too small"):
        evaluate(expression)


def test_small_results_that_fit_are_given():
    assert calculator("10**-300") == "10**-300 = 1e-300"
    assert evaluate("0 * 1e-300") == 0
