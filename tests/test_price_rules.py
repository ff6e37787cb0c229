"""Prices read exactly (tools/price_rules.py, through arithmetic_rules): the price of one, of an
amount in another unit, and groups at a price each; with the look-alikes they must not read."""

from __future__ import annotations

import pytest

from local_agent.tools.arithmetic_rules import arithmetic
from local_agent.tools.calculator import evaluate


@pytest.mark.parametrize(("message", "value"), [
    ("price per item: 12 pens for $7.80?", 0.65),
    ("12 pens for 7.80, how much is each?", 0.65),
    ("1 kg of cofee beans is $28, how much for 350 grams", 9.8),  # converted to the priced unit
    ("How much more do 5 boxes at $14 each cost than 3 boxes at $19 each?", 13),
    ("I bought 4 sandwiches at $6.50 each and 3 drinks at $2.25 each. What is the total?", 32.75),
])
def test_prices_are_read_exactly(message: str, value: float) -> None:
    expression = arithmetic(message)
    assert expression is not None and evaluate(expression) == pytest.approx(value)


@pytest.mark.parametrize("message", [
    "I paid 36 euros for 4 tickets. How much was each ticket?",  # money for a count: the solver's, never 4 / 36
    "12 pens for $7.80 each, total?",  # a price each, not a price for all twelve
])
def test_price_look_alikes_are_not_read_as_the_price_of_one(message: str) -> None:
    expression = arithmetic(message)
    assert expression is None or "/" not in expression


@pytest.mark.parametrize(("message", "value"), [
    ("If 5 notebooks cost $12.50, how much does one cost?", 2.5),
    ("3 shirts for 45, how much is one shirt?", 15),  # "one" read as 1 is no number of the problem
    ("A pack of 6 yogurts is $4.20, what is that per yogurt?", 0.7),  # per the thing counted
    ("How much more do 4 tickets at $12 each cost than 6 at $7 each?", 6),  # the second group names no thing
])
def test_the_price_of_one_in_other_words(message: str, value: float) -> None:
    expression = arithmetic(message)
    assert expression is not None and evaluate(expression) == pytest.approx(value)
