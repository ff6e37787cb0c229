"""The word-problem reader (local_agent/reading/problems/quantities.py): every kind of quantity
it finds, what each counts and whose it is, and the look-alikes it must leave out."""

from __future__ import annotations

import pytest

from local_agent.reading.problems.quantities import read, singular


def values(text: str) -> list[float]:
    return [round(q.value, 4) for q in read(text).quantities]


@pytest.mark.parametrize(("text", "expected"), [
    ("I have 50 eggs and 8 boxes.", [50, 8]),
    ("A pet store had forty-five puppies and sold thirty-nine.", [45, 39]),
    ("My paycheck was 2,340 and rent is 1,150.", [2340, 1150]),
    ("Coffee is $2.40 a cup.", [2.4]),
    ("It's 25% off, then 8 percent tax.", [0.25, 0.08]),
    ("I ate 3/8 of the pizza.", [0.375]),
    ("Three quarters of the 40 guests came.", [0.75, 40]),
    ("a third of ninety", [0.3333, 90]),
    ("She bought a dozen eggs.", [12]),
    ("She deleted thirty-one of them.", [31]),
    ("Sara saved twice as much.", [2]),
])
def test_finds_every_kind_of_quantity(text: str, expected: list[float]) -> None:
    assert values(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("The film starts at 7:45 pm and 3 friends come.", [3]),  # a clock time is not a quantity
    ("One of them left, and no one stayed. 4 came.", [4]),  # "one" as a pronoun
    ("It was the 2nd time; 5 people came.", [5]),  # an ordinal
    ("Nothing here to count.", []),
])
def test_leaves_out_look_alikes(text: str, expected: list[float]) -> None:
    assert values(text) == expected


def test_reads_what_each_quantity_counts_and_whose_it_is() -> None:
    reading = read("Ana has 12 stickers, which is 5 more than Ben has. How many stickers does Ben have?")
    first, second = reading.quantities
    assert first.unit == ("sticker",) and first.owner == "ana"
    assert "more" in second.context and "than" in second.context and "ben" in second.near_names
    assert reading.asked_unit == ("sticker",) and reading.asked_owner == "ben"
    assert not first.in_question


def test_money_and_percent_are_marked() -> None:
    price, share = read("I paid 36 euros and got 10% back.").quantities
    assert price.money and "money" in price.unit and not price.percent
    assert share.percent and not share.money


def test_how_much_asks_for_money() -> None:
    assert read("I paid 36 euros for 4 tickets. How much was each ticket?").asked_unit == ("money", "ticket")


def test_the_question_sentence_is_found_without_a_question_mark() -> None:
    reading = read("tickets are 12 euros each. what is the total for 7 of us")
    assert reading.question_words[0] == "what"
    assert [q.in_question for q in reading.quantities] == [False, True]


@pytest.mark.parametrize(("word", "expected"), [
    ("apples", "apple"), ("boxes", "box"), ("puppies", "puppy"), ("bus", "bus"), ("glass", "glass"),
])
def test_singular(word: str, expected: str) -> None:
    assert singular(word) == expected


def test_a_quantity_with_no_noun_counts_what_the_one_before_it_counts() -> None:
    reading = read("Our team scored 18 points in the first half and 27 in the second.")
    assert [q.value for q in reading.quantities] == [18, 27]  # "first half" is no fraction
    assert reading.quantities[1].unit == ("point",)


def test_comparisons_and_what_is_asked_per() -> None:
    more = read("Ana has 12 stickers, which is 5 more than Ben has.").quantities[1]
    assert (more.compared, more.than) == ("more", "ben")
    younger = read("His sister is 4 years younger than Omar.").quantities[0]
    assert (younger.compared, younger.than) == ("less", "omar")
    assert read("I paid 36 euros for 4 tickets. How much was each ticket?").asked_each == ("ticket",)
    assert read("Ana has 12 stickers and Ben has 5.").quantities[1].compared == ""


def test_clock_times_said_in_words_or_with_a_dot_are_no_quantities():
    from local_agent.reading.problems.quantities import read as read_quantities
    work = ("If I start work at quarter to nine and finish at half past five, with a forty-five minute lunch, "
            "how long did I work?")
    assert [q.value for q in read_quantities(work).quantities] == [45.0]
    commute = "I leave home at 7.40 and coffee is 3.10, total a week?"
    assert [q.value for q in read_quantities(commute).quantities] == [3.1]
    # look-alikes: a price after "at", a quarter of an amount
    assert [q.value for q in read_quantities("3 boxes at 4.50 each, total?").quantities] == [3.0, 4.5]
    assert [q.value for q in read_quantities("a quarter of 20 apples?").quantities] == [0.25, 20.0]
