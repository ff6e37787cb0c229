"""What a calculation measures against what the question asks (tools/measures.py, issue 42):
each form that is doubted has a look-alike that is not."""

from __future__ import annotations

from decimal import Decimal

import pytest

from local_agent.tools.measures import asked_measure, change_as_total, measure_left_out, reading_doubt


@pytest.mark.parametrize(("message", "expression", "said"), [
    ("how many 30x30 cm tiles do i need for the bathroom floor?", "30*30",
     "you asked for a count of tiles, and it gives an area"),
    ("how many tiles for the bathroom floor, tiles are 30x30 cm", "30*30",
     "you asked for a count of tiles, and it gives an area"),
    ("how long till my car loan is paid off if i pay 300 a month at 6% interest?", "300 * (1 - 6 / 100)",
     "you asked for a time, and it gives an amount per time"),
    ("how many cans of paint do i need for my walls, one can covers about 35 sq meters", "35 ÷ 1",
     "you asked for a count of cans, and it gives an area"),
    ("how many millilitres are in two and a half cups, if one cup is two hundred fifty ml?", "250 ÷ 2.5",
     "you asked for a volume, and it gives an amount per volume"),
    ("I drive 60 km/h for 3 hours. How many hours is that?", "60 × 3", "you asked for a time, and it gives a length"),
])
def test_a_reading_of_another_measure_than_the_one_asked_is_doubted(message: str, expression: str, said: str):
    assert measure_left_out(message, expression) == said


@pytest.mark.parametrize(("message", "expression"), [
    ("how many 30x30 cm tiles cover a floor of 270x360 cm?", "(270 × 360) ÷ (30 × 30)"),  # a count of tiles
    ("how many millilitres are in two and a half cups, if one cup is two hundred fifty ml?", "2.5 × 250"),
    ("I drive 60 km/h for 3 hours. How many km do I go?", "60 × 3"),
    ("How many hours to drive 180 km at 60 km/h?", "180 ÷ 60"),
    ("A box holds 8 eggs. I have 50 eggs. How many boxes can I fill completely?", "⌊50 ÷ 8⌋"),
    ("how much will 3 kg of apples cost at $2.50 a kg?", "3 × 2.5"),
    ("She slept 8 hours. If an hour is made of 60 minutes, how many minutes did she sleep?", "8 × 60"),
    ("how many pounds is 68 kg?", "68 * 2.20462"),  # a factor the message does not hold: not checked
    ("A machine washes 28 pounds of clothes per day. How many machines for 200 pounds a day?", "⌈200 ÷ 28⌉"),
    ("She kept 15 stones and had 78. How many did she send away?", "78 - 15"),  # asks no measure
    ("how long is the rope if I cut 3 pieces of 2 m?", "3 × 2"),  # "how long is": a length or a time
])
def test_a_reading_of_the_measure_asked_or_of_one_not_read_is_not_doubted(message: str, expression: str):
    assert measure_left_out(message, expression) is None


@pytest.mark.parametrize(("message", "asked"), [
    ("how many kg bags do I need?", "a count of bags"), ("how many miles per gallon do I get?", "a length per volume"),
    ("how much time will it take?", "a time"), ("how much will the fuel cost?", "an amount of money"),
    ("how many are left?", "a count"),
])
def test_what_a_question_asks_for(message: str, asked: str):
    found = asked_measure(message)
    assert found is not None and found[1] == asked


@pytest.mark.parametrize("message", ["how much flour do I need?", "what is 3 times 4?",
                                     "how many pounds is that?"])
def test_questions_that_ask_no_measure_this_reads(message: str):
    assert asked_measure(message) is None


def test_a_change_asked_and_a_total_worked_out_is_doubted():
    message = "I put $2,000 into a CD at 3.5% simple interest per year. How much interest will I have earned?"
    assert change_as_total(message, "2000 * (1 + 3.5 / 100)") == "interest"
    assert reading_doubt(message, "2000 * (1 + 3.5 / 100)") == \
        "you asked for the interest, and it gives the amount after it"
    assert change_as_total("what is the tip on $80 at 15%?", "80 plus 15%") == "tip"


@pytest.mark.parametrize(("message", "expression"), [
    ("How much interest will I earn on $2000 at 3.5% a year?", "3.5 / 100 * 2000"),  # the interest itself
    ("what's the total with a 15% tip on $80?", "80 * (1 + 15 / 100)"),  # a total asked
    ("how much do I pay including 8% tax on $40?", "40 * (1 + 8 / 100)"),
])
def test_a_change_worked_out_or_a_total_asked_is_not_doubted(message: str, expression: str):
    assert change_as_total(message, expression) is None


@pytest.mark.parametrize(("message", "expression", "change"), [
    ("I got a 20% raise on my $3000 salary, how much more do I earn now?", "3000 * (1 + 20 / 100)", "more"),
    ("How much will I save on a $120 coat at 30% off?", "120 * (1 - 30 / 100)", "save"),
    ("how much tax do I pay on $80 at 8%?", "80 * (1 + 8 / 100)", "tax"),
])
def test_more_forms_of_a_change_asked(message: str, expression: str, change: str):
    assert change_as_total(message, expression) == change


@pytest.mark.parametrize(("message", "expression"), [
    ("I got a 20% raise on my $3000 salary, how much do I earn now?", "3000 * (1 + 20 / 100)"),  # the new amount
    ("How much will I pay for a $120 coat at 30% off?", "120 * (1 - 30 / 100)"),
    ("how much do I pay with 8% tax on $80?", "80 * (1 + 8 / 100)"),
])
def test_the_amount_after_a_change_asked_is_not_doubted(message: str, expression: str):
    assert change_as_total(message, expression) is None


def test_a_sum_of_unlike_amounts_is_doubted():
    message = "I owe $500 and pay $35 a month. How many months to pay it off?"
    assert measure_left_out(message, "500 + 35") == "you asked for a time, and it adds or takes away unlike amounts"
    assert measure_left_out(message, "500 / 35") is None  # money over money a month: months
    assert measure_left_out("I have $500 and get $35 more. How much money do I have?", "500 + 35") is None


def test_a_unit_of_one_letter():
    message = "I need 4 boards of 2.4 m each. How many meters of wood in total?"
    assert measure_left_out(message, "4 * 2.4") is None  # metres asked, metres worked out
    assert measure_left_out(message, "4 + 2.4") is None  # a count and a length: the count is no measure
    assert measure_left_out("A 5 g coin and a 4 g coin: how many meters?", "5 + 4") == \
        "you asked for a length, and it gives a weight"


def test_a_saving_asked_with_the_discount_named():
    message = "A TV is $800. With 25% off, how much do I save?"
    said = reading_doubt(message, "800 * (1 - 25 / 100)")
    assert said == "you asked for the saving, and it gives the amount after it"
    assert change_as_total("A TV is $800. How much do I pay with 25% off?", "800 * (1 - 25 / 100)") is None


def test_a_rate_before_a_span_is_no_unit_said_to_be_an_amount():
    """"one cup is 250 ml" makes 250 ml a cup; the look-alike "25 pages a day for 2 weeks" leaves 2 weeks a time."""
    from local_agent.tools.measures import message_measures
    found = dict(message_measures("I read 25 pages a day for 2 weeks."))
    assert found[Decimal(2)] == {"time": 1}
    cups = dict(message_measures("one cup is 250 ml"))
    assert not any(cups[Decimal(250)].values())


@pytest.mark.parametrize(("message", "expression", "doubted"), [
    ("I have 4 packs of 6 cans. I drink 5. How many cans are left?", "(4 + 6) - 5", True),  # packs + cans a pack
    ("I have 4 packs of 6 cans. I drink 5. How many cans are left?", "4 × 6 - 5", False),
    ("Each bag holds 6 oranges. How many oranges are in 7 bags?", "6 × 7", False),  # a count of bags times 6
    ("I have 3 bags and 5 apples. How many things do I have?", "3 + 5", False),  # no "bags of": like counts
])
def test_containers_of_things_are_multiplied_not_added(message: str, expression: str, doubted: bool):
    assert (measure_left_out(message, expression) is not None) == doubted


def test_a_letter_before_an_ampersand_or_apostrophe_is_no_unit():
    message = "Bryan has 50 skittles. Ben has 20 M&M's. How many more does Bryan have?"
    assert measure_left_out(message, "50 - 20") is None
    assert measure_left_out("I ran 20 m and 50 m. How many are left?", "50 - 20") == \
        "you asked for a count, and it gives a length"


@pytest.mark.parametrize(("message", "expression", "doubted"), [
    ("My garden is 12 m long and 8 m wide. What's the area?", "12 × 8", False),
    ("My garden is 12 m long and 8 m wide. What's the area?", "12 + 8", True),  # a length, not an area
    ("A car goes 150 km in 2 hours. What is its speed?", "150 ÷ 2", False),
    ("A car goes 150 km in 2 hours. What is its speed?", "150 × 2", True),
    ("What area code is 212 and 646?", "212 + 646", False),  # no "the area": not asked
])
def test_an_area_or_a_speed_asked(message: str, expression: str, doubted: bool):
    assert (measure_left_out(message, expression) is not None) == doubted


def test_a_unit_before_a_preposition_is_what_is_asked():
    found = asked_measure("He hikes every 12 days. How many days from now will he hike again?")
    assert found is not None and found[1] == "a time"


@pytest.mark.parametrize(("message", "expression", "doubted"), [
    ("I run 5 km in 27 minutes, what's my pace per km", "5 * 27", True),  # km times minutes: no pace
    ("I run 5 km in 27 minutes, what's my pace per km", "27 / 5", False),
    ("apples cost 6 dollars for 2 kg, what is the price per kg", "6 * 2", True),
    ("apples cost 6 dollars for 2 kg, what is the price per kg", "6 / 2", False),
    ("we drove 340 km on 27 litres, what's our consumption per 100 km", "27 / 340 * 100", False),  # not checked
    ("I earn 18.50 per hour and worked 37 hours, what did I make", "18.50 * 37", False),  # "per" not asked
])
def test_an_amount_asked_per_a_unit_must_be_divided_by_it(message, expression, doubted):
    from local_agent.tools.measures import reading_doubt

    assert (reading_doubt(message, expression) is not None) is doubted


@pytest.mark.parametrize(("message", "expression", "doubted"), [
    ("I have 5.5 liters of jam and each jar holds 340 ml. How many jars can I fill completely?", "⌊5.5 ÷ 340⌋", True),
    ("I have 5.5 liters of jam and each jar holds 340 ml. How many jars can I fill completely?",
     "⌊5.5 × 1000 ÷ 340⌋", False),  # a factor between them: converted
    ("How many floor tiles do I need for my kitchen if each tile is 30 cm by 30 cm?", "30 ÷ 30", True),
    ("a rope of 12 m is cut into pieces of 3 m, how many pieces", "12 ÷ 3", False),
    ("I have 20 apples and 20 pears, how many more apples than pears", "20 - 20", False),  # a difference of 0
])
def test_amounts_in_different_units_or_a_number_by_itself_are_doubted(message, expression, doubted):
    from local_agent.tools.measures import reading_doubt

    assert (reading_doubt(message, expression) is not None) is doubted


@pytest.mark.parametrize(("message", "doubted"), [
    ("15000 in savigns at 4% intrest compounded yearly, how much intrest after 3 years", True),  # misspelt
    ("15000 at 4% interest compounded yearly, how much do I have after 3 years", False),  # the total asked
])
def test_the_interest_asked_after_a_time_is_no_total(message, doubted):
    from local_agent.tools.measures import reading_doubt

    assert (reading_doubt(message, "15000 * (1 + 4 / 100 / 1) ** (1 * 3)") is not None) is doubted
