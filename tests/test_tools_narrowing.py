"""What keeps a small model's steps well-formed and grounded: the calculator's numbers taken
from the message, free text bounded by the tokens a step has left, and the evaluation's
answer check."""

from __future__ import annotations

import json
import re

import pytest
from evals.tool_eval import answer_correct

from local_agent.backends.llama_grammar import canonical_spacing
from local_agent.tools.actions import action_schema, capped, decoding_schema, parse_action
from local_agent.tools.calculator import make_calculator
from local_agent.tools.narrowing import grounded, message_numbers
from local_agent.turn.tool_turn import ACTION_OVERHEAD_TOKENS, MIN_STEP_TOKENS, text_bound

TICKETS = "I bought 7 tickets at 3.56 dollars each. How much did I pay in total?"


def _expression_pattern(message: str) -> re.Pattern[str]:
    return re.compile(grounded(make_calculator(), message).parameters["properties"]["expression"]["pattern"])


def test_numbers_of_a_message_longest_first():
    assert message_numbers(TICKETS) == ["3.56", "7"]
    assert message_numbers("Split 1,250 dollars three ways with a 15% tip") == ["1250", "100", "15", "3"]
    assert message_numbers("no numbers in room2 here") == []


@pytest.mark.parametrize(("expression", "allowed"), [
    ("7 * 3.56", True), ("3.56*7", True), ("(7 + 3.56) * 7", True),
    ("1.56 * 7", False), ("73.56 * 7", False), ("7", False), ("7 * 3.5", False),
    ("7 * 3.56 * 7 * 7 * 7 * 7 * 7 * 7", False),
])
def test_the_calculator_may_only_combine_the_messages_numbers(expression: str, allowed: bool):
    assert bool(_expression_pattern(TICKETS).search(expression)) is allowed


def test_a_message_without_numbers_leaves_the_calculator_as_it_is():
    calculator = make_calculator()
    assert grounded(calculator, "How much is a lot?") is calculator


def test_llama_cpp_compiles_the_grounded_pattern():
    from llama_cpp import LlamaGrammar
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    schema = decoding_schema(action_schema([grounded(make_calculator(), TICKETS)]))
    gbnf = canonical_spacing(json_schema_to_gbnf(json.dumps(schema)))
    assert '"3" "." "5" "6"' in gbnf or '"3.56"' in gbnf or "[.]" in gbnf
    LlamaGrammar.from_string(gbnf, verbose=False)  # raises when GBNF rejects it


def test_capped_bounds_free_text_and_keeps_the_other_strings():
    schema = decoding_schema(action_schema([make_calculator()]))
    small = capped(schema, 32)
    answer = small["anyOf"][-1]["properties"]["answer"]
    assert answer["maxLength"] == 32 and re.compile(answer["pattern"]).search("x" * 32)
    assert not re.compile(answer["pattern"]).search("x" * 33)
    assert small["anyOf"][0]["properties"]["name"] == schema["anyOf"][0]["properties"]["name"]
    parse_action({"action": "final", "answer": "x" * 32}, action_schema([make_calculator()]))  # within the contract


def test_text_bound_leaves_room_for_four_tokens_a_character():
    for room in (MIN_STEP_TOKENS, 400, 1024):
        assert text_bound(room) >= 16 and text_bound(room) * 4 + ACTION_OVERHEAD_TOKENS <= room
        assert text_bound(room) % 16 == 0


@pytest.mark.parametrize(("answer", "task", "correct"), [
    ("Each person pays 93.5 dollars.", {"answer": "93.5", "message": "374 dollars, 4 people"}, True),
    ("17 * 23 = 391", {"answer": "391", "message": "What is 17 * 23?"}, True),
    ("There are 45 users.", {"answer": "12", "message": "How many users are older than 45?"}, False),
    ("It is 2,262.", {"answer": "2262", "message": "39 x 58"}, True),
    ("Your flight leaves from gate A13.", {"answer": "A13", "message": "Which gate?"}, True),
    ("Your flight leaves from gate A135.", {"answer": "A13", "message": "Which gate?"}, False),
    ("It is Friday, 4 April 2025.", {"answer": "2025-04-04", "accept": ["4 April 2025"], "message": "3 weeks"}, True),
])
def test_answer_check(answer: str, task: dict, correct: bool):
    assert answer_correct(answer, task) is correct
