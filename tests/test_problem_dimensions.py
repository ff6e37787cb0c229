"""The units check of the word-problem solver (reading/problems/dimensions.py): a winner whose
units are not the ones asked is no answer, with look-alikes whose units do fit."""

from __future__ import annotations

import pytest

from local_agent.reading.problems import Solved, Unsure, solve
from local_agent.reading.problems.candidates import candidates
from local_agent.reading.problems.dimensions import ITEM, MONEY, asked_measure, rate_of, unit_check
from local_agent.reading.problems.quantities import read


@pytest.mark.parametrize(("text", "rates"), [
    ("my car does 32 miles per gallon and gas is $3.89 a gallon. How much?", [("mile", "gallon"), ("", "gallon")]),
    ("5 boxes at $14 each. How much?", [("", ""), ("", ITEM)]),
    ("I earn 18 dollars an hour. How much?", [("", "hour")]),
    ("If each ball costs $1.54, how much for 3 balls?", [("", ITEM), ("", "")]),  # "each" before money
    ("He spent $3 on a toy truck and 4 tires each. How much?", [("", ""), ("", "")]),  # no rate: "on a toy"
])
def test_what_a_quantity_is_per(text: str, rates: list[tuple[str, str]]) -> None:
    assert [rate_of(q) for q in read(text).quantities] == rates


@pytest.mark.parametrize(("text", "asked"), [
    ("price per item: 12 pens for $7.80?", {MONEY: 1, ITEM: -1}),
    ("I paid 36 euros for 4 tickets. How much was each ticket?", {MONEY: 1, ITEM: -1}),
    ("32 miles per gallon, gas is $3.89 a gallon. How much will the fuel cost me?", {MONEY: 1}),
    ("If each ball costs $1.54, how much must Kyoko pay for three balls?", {MONEY: 1}),  # "each" before the question
])
def test_the_measure_asked(text: str, asked: dict[str, int]) -> None:
    found = asked_measure(read(text))
    assert found is not None and {k: v for k, v in found.items() if v} == asked


@pytest.mark.parametrize("text", [
    "I have 80 cents. A pencil costs 5 cents. How many pencils can I buy with the money?",  # a count
    "Sam has 12 apples and eats 5. How many are left?",
])
def test_a_question_for_a_count_asks_no_measure(text: str) -> None:
    assert asked_measure(read(text)) is None


def test_units_that_do_not_compose_to_the_asked_one_are_left_out() -> None:
    reading = read("price per item: 12 pens for $7.80?")
    fits = unit_check(reading)
    assert fits is not None
    kept = {round(c.value, 2) for c in candidates(reading.quantities) if fits(c)}
    assert 0.65 in kept and 93.6 not in kept


@pytest.mark.parametrize("text", [
    "price per item: 12 pens for $7.80?",  # 12 × 7.80 is no price per item
    "my car does about 32 miles per gallon and gas is $3.89 a gallon. How much will the fuel cost me?",  # no distance
])
def test_a_winner_in_the_wrong_units_is_said_back_and_asked(text: str) -> None:
    result = solve(text)
    assert isinstance(result, Unsure) and result.reason == "units"


@pytest.mark.parametrize(("text", "value"), [
    ("I paid 36 euros for 4 tickets. How much was each ticket?", 9),
    ("3 coffees at 2.40 each, total?", 7.2),
    ("If each ball costs $1.54, how much must Kyoko pay for three balls?", 4.62),
])
def test_look_alikes_whose_units_fit_are_answered(text: str, value: float) -> None:
    result = solve(text)
    assert isinstance(result, Solved) and result.value == pytest.approx(value)


@pytest.mark.parametrize("text", [
    "If 5 notebooks cost $12.50, how much does one notebook cost?",  # "one notebook": one item's money
    "A pack of 6 yogurts is $4.20, what is that per yogurt?",  # "per yogurt", money in the problem
])
def test_one_items_money_asked_in_other_words_is_checked(text: str) -> None:
    result = solve(text)
    assert not (isinstance(result, Solved) and result.value > 5)  # never the count times the price


@pytest.mark.parametrize("text", [
    "5 apples at 2 dollars each, how much each?",  # "each" asked at the end
    "I bought 5 apples for 2 dollars each, how much per apple?",
])
def test_a_price_each_times_the_count_is_no_price_of_one(text: str) -> None:
    result = solve(text)
    assert isinstance(result, Unsure) and result.reason == "units"


def test_each_in_the_statement_is_not_asked() -> None:
    result = solve("tickets 12 euros each, we are 7, total?")
    assert isinstance(result, Solved) and result.value == 84
