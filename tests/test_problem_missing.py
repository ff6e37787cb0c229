"""What a calculation lacks (reading/problems/missing.py) and the shape of a calculation
(asking.py): each form, with look-alikes that must not match."""

from __future__ import annotations

import pytest

from local_agent.reading.problems import amount_without_numbers, calculation_request, calculation_shaped, reply
from local_agent.reading.problems.missing import missing


@pytest.mark.parametrize(("message", "needed"), [
    ("Eva is 3 years older than her brother. How old is Eva?", "her brother's age"),
    ("i got 3 more then Sara. how many did i get", "the number for Sara"),
    ("Jo is 4 cm taller than me. How tall is Jo?", "your height"),
    ("My bag weighs 2 kg less than Tom's bag. How heavy is my bag?", "the number for Tom's bag"),
    ("A train leaves at 9 and travels at 80 km/h. When does it arrive?", "the distance"),
    ("How long will it take me to drive to Lyon at 90 km/h?", "the distance"),
    ("How long will it take me to drive to Chicago at 65 mph?", "the distance"),  # a speed in one word
    ("I drive at 70 mph, how far do I get?", "how long it goes on"),
    ("A recipe needs 3 eggs per cake. How many eggs do I need?", "the number of cakes"),
])
def test_a_missing_quantity_is_asked_for_never_invented(message: str, needed: str) -> None:
    assert missing(message) == needed
    said = reply(message)
    assert said is not None and said.outcome == "unsure"
    assert said.text == f"I'm not sure: I can't work that out from what you gave me; I'd need {needed}."


@pytest.mark.parametrize("message", [
    "Sam has 23 marbles. That is 8 more than Lee has. How many marbles does Lee have?",  # both sides given
    "what is 5 more than 3?",  # a number on the other side
    "The trip is 240 km and I drive at 80 km/h. How long will it take?",  # the distance is given
    "A train travels at 80 km/h for 3 hours. How far does it go?",  # the time is given
    "I have 3 more cats than my sister.",  # nothing asked
    "How many legs does a spider have?",  # no quantity of its own
])
def test_look_alikes_lack_nothing(message: str) -> None:
    assert missing(message) is None


@pytest.mark.parametrize("message", [
    "Eva is 3 years older than her brother. How old is Eva?",
    "A train leaves at 9 and travels at 80 km/h. When does it arrive?",
    "The movie starts at 7:45 pm. When does it end?",
    "Convert 5 feet to centimetres.",
    "what is 15% of the 240 I paid?",
    "I have 3 boxes. How many do I have left?",
])
def test_a_question_for_an_amount_with_a_number_of_its_own_is_a_calculation(message: str) -> None:
    assert calculation_shaped(message)


@pytest.mark.parametrize("message", [
    "How many legs does a spider have?",  # no number of its own: the model may know it
    "What did I say about 2 cats and 3 dogs?",  # what was said
    "I have 2 kids and 3 dogs, what should I name my cat?",  # a name
    "I ran 5 km today.",  # a statement
    "When did we talk about the 3 dogs?",  # a time no calculation gives
    "Who won the 2010 world cup?",
])
def test_look_alikes_are_no_calculation(message: str) -> None:
    assert not calculation_shaped(message)


@pytest.mark.parametrize("message", [
    "rent went 1450 -> 1595, % increase?",
    "price was 80 now 60, % decrease",  # a few words after the numbers, no question mark
    "5k run in 27:30. pace per km?",
    "3 cups of flour how many ml is that roughy",  # a question word with no question mark
    "movie starts 7:50pm and its 2h 25m long, when dose it end",
    "1/3 + 1/4 as decimal, 3 dp",  # written out
    "She used 420 kWh at $0.15 per kWh. What's this month's bill?",
    "how many kg in 5 tons, need it exact for the shiping form",  # the question word opens the message
])
def test_a_calculation_asked_in_any_form_is_a_calculation_request(message: str) -> None:
    assert calculation_request(message)


@pytest.mark.parametrize("message", [
    "I ran 5k in 27:30 today!",  # a statement with a time and a distance
    "I know how much 3 apples cost.",  # a question word after a verb of knowing
    "I got a raise of 5%, a nice increase",  # the last part opens with no word that asks
    "We had 3 kids over, total chaos",  # asked by nobody: no question mark, no "%"
    "2 + 2 = 4 is what my kid learned today and she was so proud of herself",  # many words around it
    "avg of the numbers?",  # no number of its own
    "It really shows how much love's in our 2 families",  # a question word with no question after it
    "Nice one with the 3 kids! How did you find that balance?",  # asks how, not for an amount
])
def test_look_alikes_are_no_calculation_request(message: str) -> None:
    assert not calculation_request(message)


@pytest.mark.parametrize(("message", "kind"), [
    ("How much will I pay for the apples?", "own"),  # no price: nothing here works it out
    ("how long will our drive to grandma's take", "own"),
    ("We drove to the coast. How long did it take?", "own"),  # the first person before the question
    ("How tall is the Eiffel Tower?", "general"),  # known, or guessed: not the user's numbers
    ("How many players are on a soccer team?", "general"),
    ("How long should I boil an egg?", "general"),  # advice, though asked in the first person
])
def test_an_amount_asked_with_no_number_is_read_as_own_or_general(message: str, kind: str) -> None:
    assert amount_without_numbers(message) == kind
    assert not calculation_request(message)


@pytest.mark.parametrize("message", [
    "How much is 3 apples at 2 each?",  # numbers of its own: a calculation
    "How are you today?",  # "how" asks no amount
    "How many times did I tell you about my cat?",  # about what was said
    "Where can I find how much a ticket costs?",  # asks where
    "I wonder what the bill will look like",  # no "how many/much ..." asked
    "how long have you been running, little assistant",  # no question mark... but asked: see below
])
def test_look_alikes_ask_no_amount_without_numbers(message: str) -> None:
    kind = amount_without_numbers(message)
    assert kind is None or "you" in message


def test_an_earning_asked_of_stated_quantities_is_a_word_problem() -> None:
    message = "I worked 46 hours this week at $18 an hour. What did I earn?"
    assert calculation_request(message)
    assert reply(message) is not None  # answered from its own quantities, never as the user's past


def test_when_we_get_in_asks_a_time_and_when_i_got_them_asks_the_past():
    assert calculation_request("the train leaves 8:50 and the trip takes 1h35. when do we get in?")
    assert not calculation_request("I got 2 cats in 2020. when did I get them?")
