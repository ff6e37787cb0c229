"""Packing things into containers of a size (reading/problems/packing.py): full containers,
containers needed and what is left over, read exactly; and the look-alikes it leaves to the
solver."""

from __future__ import annotations

import pytest

from local_agent.reading.problems import reply
from local_agent.reading.problems.packing import read_packing


@pytest.mark.parametrize(("message", "answer"), [
    (("i have 250 cookies and im packing them in bags of 12, how many cookies are left over after filling as many "
      "bags as posible"), 10),  # left over
    ("A box holds twenty-four cans. I have one hundred and ten cans. How many full boxes can I make?", 4),
    ("so there are 130 students going on the trip and each bus seats 40, how many buses do we need", 4),  # need
    ("Each shelf holds 25 books. I have 180 books. How many shelves do I need?", 8),
    ("crate holds 24 bottles, how many full crates from 100 bottles", 4),
    ("We have 57 people and each van takes 8. How many vans do we need?", 8),
])
def test_packing_is_read_exactly(message: str, answer: float) -> None:
    said = reply(message)
    assert said is not None and said.outcome == "answer" and said.text.startswith(f"{answer}. I read this as")


@pytest.mark.parametrize("message", [
    "I have 3 boxes of 12 eggs, how many eggs do I have?",  # asks for things, not containers or what is left
    "A box holds 12 eggs. How many eggs do I need for 3 boxes?",  # the other number counts boxes
    "The bakery sells cupcakes in boxes of 6 and I need 40; 3 adults come too. How many boxes should I buy?",  # 3
    "I have 250 cookies. How many are left over?",  # no container size
    "27 students in groups of 4, how many groups, how many left over?",  # two questions: not one answer
])
def test_packing_look_alikes_are_not_read(message: str) -> None:
    assert read_packing(message) is None
