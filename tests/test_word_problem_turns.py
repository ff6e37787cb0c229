"""Word problems through `ask --json` as a user runs it (issue 42): the solver answers a message
that states its own quantities and asks about them, with or without tools, never as a question
about the user's past, and the turn names its outcome. On a scripted model, which a word
problem never reaches."""

from __future__ import annotations

import importlib

import pytest

from tests.test_tools_agent import ask_json

TICKETS = "I paid 36 euros for 4 tickets. How much was each ticket?"
STICKERS = "Ana has 12 stickers, which is 5 more than Ben has. How many stickers does Ben have?"
TEAM = "Our team scored 18 points in the first half and 27 in the second. How many points did we score in the game?"


@pytest.mark.parametrize("tools", [("--tools",), ()])
def test_a_word_problem_is_answered_by_its_reading_with_or_without_tools(scripted, tools):
    data = ask_json(*tools, TICKETS, backend=scripted)
    assert data["answer"] == "9. I read this as 36 ÷ 4 = 9."
    assert data["outcome"] == "answer" and data["asked_user"] is False
    assert scripted.prompts == []  # the model is never asked


def test_the_tool_turn_says_its_route_and_makes_no_call(scripted):
    data = ask_json("--tools", TEAM, backend=scripted)
    assert data["answer"].startswith("45. I read this as 18 + 27 = 45")
    assert data["tools"]["route"] == "problem" and data["tool_calls"] == []


@pytest.fixture
def no_margin_enough(monkeypatch):
    """The shipped ranker with margins no answer reaches: every reading is unsure."""
    from local_agent.reading.problems import reply
    from local_agent.reading.problems.ranker import shipped

    weights = shipped()
    solver = importlib.import_module("local_agent.reading.problems.solve")
    monkeypatch.setattr(solver, "shipped", lambda: type(weights)(weights.weights, 1.01, 1.01, weights.meta))
    reply.cache_clear()
    yield
    reply.cache_clear()


@pytest.mark.parametrize("tools", [("--tools",), ()])
def test_an_unclear_reading_is_said_back_and_asked(scripted, tools, no_margin_enough):
    data = ask_json(*tools, STICKERS, backend=scripted)
    assert data["answer"] == "I'm not sure. I read this as 12 - 5 = 7, is that what you meant?"
    assert data["outcome"] == "unsure"
    assert scripted.prompts == []


def test_the_team_score_is_no_question_about_the_past(scripted):
    data = ask_json(TEAM, backend=scripted)
    assert "remember" not in data["answer"] and data["answer"].startswith("45.")


@pytest.mark.parametrize("tools", [("--tools",), ()])
def test_a_question_about_what_was_said_stays_a_memory_question(scripted, tools):
    data = ask_json(*tools, "What did I say about 2 cats and 3 dogs?", backend=scripted)
    assert "I read this as" not in data["answer"] and scripted.prompts  # not the solver's: the model's
    assert data["tools"] is None or data["tools"]["route"] != "problem"


def test_an_exact_calculation_is_answered_by_the_calculator_with_its_outcome(scripted):
    data = ask_json("--tools", "What is 17 * 23?", backend=scripted)
    assert data["answer"].startswith("17 * 23 = 391") and data["outcome"] == "answer"
    assert data["tools"]["route"] == "direct"


def test_a_turn_that_answers_no_question_names_no_outcome(scripted):
    data = ask_json("--tools", "Hello there, I had a lovely weekend.", backend=scripted)
    assert data["outcome"] is None


PLANT = "The sunflower grew 4 cm this week. How tall is it now?"


@pytest.mark.parametrize("tools", [("--tools",), ()])
def test_a_calculation_nothing_reads_is_never_the_models_text(scripted, tools):
    """A question for an amount that states a number of its own and that nothing reads
    exactly: "I'm not sure" with the numbers read, and no model call (its sum is a guess)."""
    scripted.queue("Your plant is 12 cm tall now.")
    data = ask_json(*tools, PLANT, backend=scripted)
    assert data["answer"].startswith("I'm not sure: I can't work that out exactly from what you wrote. "
                                     "I read the number 4;")
    assert data["outcome"] == "unsure" and scripted.prompts == []


@pytest.mark.parametrize("message", [
    "rent went 1450 -> 1595, % increase?",  # terse, with an arrow
    "price was 80 now 55, % decrease",  # no question mark
    "5k run in 27:40. pace per km?",
    "movie starts 7:50pm and its 2h 25 long, when dose it end",  # a typo, no question mark
    "3 cups of flour how many teacups is that roughy",  # no question mark, no unit of ours
    "1/3 + 1/7 as decimal, 3 dp",  # a calculation written out, read as no language
])
def test_a_calculation_in_any_form_gets_no_free_model_text(scripted, message):
    scripted.queue("Yes, that's correct.")
    data = ask_json(message, backend=scripted)
    assert data["answer"].startswith("I'm not sure") and data["outcome"] == "unsure" and scripted.prompts == []


def test_a_missing_quantity_is_said_when_the_model_invents_one(scripted):
    scripted.queue("He is 41 years old.")
    data = ask_json("Tom's dad is 30 years older than Tom, and Tom likes chess. How old is the dad?", backend=scripted)
    assert data["answer"] == "I'm not sure: I can't work that out from what you gave me; I'd need Tom's age."
    assert data["outcome"] == "unsure" and scripted.prompts == []  # read as lacking a quantity: no model call


def test_an_amount_asked_with_no_number_of_its_own_is_the_models_guess_said_as_one(scripted):
    scripted.queue("A spider has 8 legs.")
    data = ask_json("--tools", "How many legs does a spider have?", backend=scripted)
    assert data["answer"] == "I'm not sure; I can't check this, so take it as a guess: A spider has 8 legs."
    assert data["outcome"] == "unsure"


@pytest.mark.parametrize(("message", "reply"), [
    ("I ran 5 km today and it felt great.", "That's wonderful, well done!"),  # a statement
    ("I ran 5k in 27:30 today!", "That's wonderful, well done!"),  # a time and a distance, not asked
    ("I got a raise of 5%, a nice increase", "Congratulations!"),  # the last part asks nothing
    ("We had 3 kids over, total chaos", "That sounds like a busy day!"),
])
def test_other_questions_and_statements_are_not_gated(scripted, message, reply):
    scripted.queue(reply)
    data = ask_json("--tools", message, backend=scripted)
    assert data["answer"] == reply


CUPS = "how many millilitres are in two and a half cups, if one cup is two hundred fifty ml?"


@pytest.mark.parametrize("tools", [("--tools",), ()])
def test_a_reading_of_another_measure_than_the_one_asked_is_said_back(scripted, tools):
    data = ask_json(*tools, CUPS, backend=scripted)  # 250 ÷ 2.5 is ml a cup, not millilitres
    assert data["answer"] == ("I'm not sure: you asked for a volume, and it gives an amount per volume. "
                              "I read this as 250 ÷ 2.5 = 100, is that what you meant?")
    assert data["outcome"] == "unsure" and scripted.prompts == []


def test_a_rule_reading_of_another_measure_than_the_one_asked_is_doubted(scripted):
    data = ask_json("--tools", "how many 30x30 cm tiles do i need for the bathroom floor?", backend=scripted)
    assert data["answer"].startswith("I'm not sure this answers your question: you asked for a count of tiles, "
                                     "and it gives an area.")
    assert data["outcome"] == "unsure" and data["tools"]["route"] == "direct"


def test_a_rule_reading_that_works_nothing_out_is_doubted(scripted):
    data = ask_json("--tools", "I sleep 7.5 hours a night. How many hours is that in a week?", backend=scripted)
    assert data["answer"].startswith("I'm not sure this answers your question: it works nothing out.")
    assert data["outcome"] == "unsure"
