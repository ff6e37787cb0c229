"""Candidate expressions (local_agent/reading/problems/candidates.py): the right expression is
always among them, with floor, ceiling and remainder for sharing out, and percentages only
where a percentage can go."""

from __future__ import annotations

from local_agent.reading.problems.candidates import Candidate, candidates
from local_agent.reading.problems.quantities import read


def texts(problem: str) -> dict[str, float]:
    reading = read(problem)
    return {c.text(reading.quantities): round(c.value, 4) for c in candidates(reading.quantities)}


def test_one_operation_candidates_both_ways() -> None:
    found = texts("I paid 36 euros for 4 tickets.")
    assert found["36 ÷ 4"] == 9 and found["4 ÷ 36"] == 0.1111
    assert found["36 + 4"] == 40 and found["36 × 4"] == 144 and found["36 - 4"] == 32
    assert "4 - 36" not in found  # a negative value is no everyday answer


def test_sharing_out_has_floor_ceiling_and_remainder() -> None:
    found = texts("A box holds 8 eggs. I have 50 eggs.")
    assert found["⌊50 ÷ 8⌋"] == 6 and found["⌈50 ÷ 8⌉"] == 7 and found["the remainder of 50 ÷ 8"] == 2


def test_a_whole_quotient_has_no_floor_or_ceiling() -> None:
    found = texts("A box holds 8 eggs. I have 48 eggs.")
    assert found["48 ÷ 8"] == 6
    assert "⌊48 ÷ 8⌋" not in found and "⌈48 ÷ 8⌉" not in found and "the remainder of 48 ÷ 8" not in found


def test_two_operation_candidates() -> None:
    found = texts("A store had 45 puppies. It sold 39 and put the rest into cages with 2 in each cage.")
    assert found["(45 - 39) ÷ 2"] == 3


def test_percentages_only_off_on_or_of_an_amount() -> None:
    found = texts("The TV costs 600, with 15% off and then 21% VAT.")
    assert found["(600 less 15%) plus 21%"] == 617.1
    assert found["600 × 15%"] == 90
    assert not any(text.startswith(("15%", "21%")) and "×" not in text for text in found)
    assert "15% + 21%" not in found and "600 + 15%" not in found


def test_no_division_by_zero() -> None:
    assert "5 ÷ 0" not in texts("I have 5 apples and 0 pears.")


def test_leaves_and_sides() -> None:
    reading = read("Tom has 7 pens and 4 pencils and 2 rulers.")
    made = [c for c in candidates(reading.quantities) if c.text(reading.quantities) == "(7 + 4) - 2"]
    assert len(made) == 1
    candidate = made[0]
    assert isinstance(candidate.left, Candidate) and candidate.inner == "+"
    assert candidate.leaves() == ((0, "L"), (1, "L"), (2, "R"))


def test_fewer_than_two_quantities_have_no_candidate() -> None:
    assert candidates(read("I have 5 apples.").quantities) == []


def both_texts(problem: str) -> dict[str, float]:
    from local_agent.reading.problems.candidates import asks_for_both

    reading = read(problem)
    made = candidates(reading.quantities, both=asks_for_both(reading.question_words))
    return {c.text(reading.quantities): round(c.value, 4) for c in made}


def test_a_question_for_both_sides_uses_the_compared_quantity_again() -> None:
    """"Kim has 4 more than Jo" makes Kim's 7 + 4; the two together use Jo's 7 again, and "14,
    6 more than Kai" makes Kai's 14 - 6 with Rosa's 14 again."""
    assert both_texts("Jo has 7 pens and Kim has 4 more than Jo. How many pens do they have together?")[
        "(7 + 4) + 7"] == 18
    assert both_texts("Rosa has 14 shells, 6 more than Kai. How many shells do they have altogether?")[
        "(14 - 6) + 14"] == 22


def test_no_quantity_is_used_twice_otherwise() -> None:
    asked_one = both_texts("Jo has 7 pens and Kim has 4 more than Jo. How many pens does Kim have?")
    assert "(7 + 4) + 7" not in asked_one  # a question about one side
    no_comparison = both_texts("Jo has 7 pens and Kim has 4 pens. How many pens do they have together?")
    assert "(7 + 4) + 7" not in no_comparison and "(7 + 4) + 4" not in no_comparison
