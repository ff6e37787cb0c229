"""The client's JSON schemas before decoding: checked (schema_check.py), fitted to the room
(schema_fit.py), and integer bounds written into llama.cpp's grammar (json_grammar.py)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.backends.json_grammar import bounds, integer_rule, natural_range, number_rule, schema_gbnf
from local_agent.server.schema_check import SchemaProblem, prepared
from local_agent.server.schema_fit import bounded, decoding, fitted, size

PERSON = {
    "$defs": {"Address": {"type": "object", "title": "Address",
                          "properties": {"city": {"type": "string"}, "zip": {"type": "string", "maxLength": 10}},
                          "required": ["city", "zip"]}},
    "type": "object", "title": "Person",
    "properties": {"name": {"type": "string", "description": "full name"},
                   "age": {"type": "integer", "minimum": 0, "maximum": 130},
                   "home": {"$ref": "#/$defs/Address"},
                   "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                   "nick": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}},
    "required": ["name", "age", "home", "tags"],
}


def test_refs_are_inlined_and_annotations_dropped() -> None:
    schema = prepared(PERSON, "s")
    assert schema["properties"]["home"]["properties"]["zip"] == {"type": "string", "maxLength": 10}
    assert "title" not in schema and "description" not in schema["properties"]["name"]
    assert "$defs" not in schema


@pytest.mark.parametrize(("schema", "named"), [
    ({"type": "string", "pattern": "^a+$"}, "'pattern'"),
    ({"type": "integer", "multipleOf": 5}, "'multipleOf'"),
    ({"type": "object", "properties": {"a": {"not": {"type": "string"}}}},
     "s/properties/a: the JSON-schema keyword 'not'"),
    ({"type": "string", "format": "email"}, "'email'"),
    ({"$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}, "$ref": "#/$defs/N"},
     "recursive"),
    ({"$ref": "https://example.com/s.json"}, "only #/$defs"),
    ({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True},
     "additionalProperties"),
    ({"type": "strange"}, "not a valid JSON schema"),
])
def test_what_cannot_be_honoured_is_named(schema: dict, named: str) -> None:
    with pytest.raises(SchemaProblem, match=re.escape(named)):
        prepared(schema, "s")


@pytest.mark.parametrize(("schema", "named"), [
    ({"type": "object"}, "an object without properties"),
    ({"type": "array"}, "an array without items"),
    ({"type": "object", "properties": {"any": {}}}, "a value of any type"),
])
def test_a_schema_without_a_length_bound_is_refused(schema: dict, named: str) -> None:
    with pytest.raises(SchemaProblem, match=f"s: {named}"):
        bounded(prepared(schema, "s"), "s")


def test_fitting_caps_strings_and_arrays_to_the_room() -> None:
    schema = prepared(PERSON, "s")
    roomy, tight = fitted(schema, 2000), fitted(schema, 200)
    assert size(roomy) <= 2000 and size(tight) <= 200
    assert tight["properties"]["name"]["maxLength"] < roomy["properties"]["name"]["maxLength"]
    assert tight["properties"]["home"]["properties"]["zip"]["maxLength"] <= 10  # the client's bound stays
    assert "maxItems" in tight["properties"]["tags"]
    nick = tight["properties"]["nick"]["anyOf"]
    assert nick[0]["type"] == "string" and "maxLength" in nick[0] and nick[1] == {"type": "null"}


def test_a_room_too_small_for_any_form_is_refused() -> None:
    with pytest.raises(SchemaProblem, match="too few for this schema"):
        fitted(prepared(PERSON, "s"), 20)


def test_type_lists_and_one_of_become_any_of() -> None:
    schema = decoding({"type": ["string", "null"], "maxLength": 5}, 100, 4)
    assert schema == {"anyOf": [{"type": "string", "maxLength": 5, "pattern": r'^[^"\\\x00-\x1f]{0,5}$'},
                                {"type": "null", "maxLength": 5}]}
    assert "anyOf" in decoding({"oneOf": [{"type": "integer"}, {"type": "boolean"}]}, 100, 4)


def test_number_bounds_reach_the_grammar() -> None:
    schema = decoding({"type": "number", "minimum": 0, "maximum": 1}, 100, 4)
    assert schema == {"type": "number", "minimum": 0, "maximum": 1}
    assert "[eE]" not in schema_gbnf({"type": "number", "minimum": 0, "maximum": 1})
    assert "[eE]" in schema_gbnf({"type": "number", "minimum": 0.2, "maximum": 0.8})  # no whole unit: validated


def _regex(rule: str) -> str:
    """A GBNF rule made of literals, digit classes, groups and alternatives, as a regex."""
    return re.sub(r'"([^"]*)"', lambda m: re.escape(m.group(1)), rule.removesuffix(" space")).replace(" ", "")


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 2 * 10**6))
def test_a_natural_range_matches_exactly_its_numbers(low: int, span: int, probe: int) -> None:
    high = low + span
    pattern = _regex("|".join(f"({alt})" for alt in natural_range(low, high)))
    assert (re.fullmatch(pattern, str(probe)) is not None) == (low <= probe <= high)


def test_integer_bounds_in_the_grammar() -> None:
    assert bounds({"minimum": 1.5, "exclusiveMaximum": 10}) == (2, 9)
    rule = integer_rule(-5, 12)
    assert rule.startswith('(("-" ') and rule.endswith(") space")
    grammar = schema_gbnf({"type": "object", "properties": {"age": {"type": "integer", "minimum": 0, "maximum": 130}}})
    assert "[0-9]" in grammar and '"1" [0-2] [0-9]' in grammar


@pytest.mark.parametrize(("text", "inside"), [
    ("0", True), ("0.5", True), ("1", True), ("1.0", False), ("0.0001", True), ("-0.5", True), ("-1", True),
    ("-1.5", False), ("2", False), ("1.5", False), ("0.12345", False), ("1e3", False),
])
def test_a_bounded_numbers_rule(text: str, inside: bool) -> None:
    """[-1, 1]: the integers, 0.dddd and -0.dddd; nothing beyond 1 or below -1."""
    assert (re.fullmatch(_regex(number_rule(-1, 1)), text) is not None) == inside


@pytest.mark.parametrize("number", range(-8, 16))
def test_a_signed_range_matches_its_numbers(number: int) -> None:
    assert (re.fullmatch(_regex(integer_rule(-5, 12)), str(number)) is not None) == (-5 <= number <= 12)


def test_refs_used_many_times_cannot_blow_the_schema_up() -> None:
    defs = {f"L{n}": {"type": "object", "properties": {"a": {"$ref": f"#/$defs/L{n + 1}"},
                                                       "b": {"$ref": f"#/$defs/L{n + 1}"}}} for n in range(20)}
    defs["L20"] = {"type": "string"}
    with pytest.raises(SchemaProblem, match="too large"):
        prepared({"$defs": defs, "$ref": "#/$defs/L0"}, "s")


def test_a_deeply_nested_schema_is_refused_without_recursing() -> None:
    schema: dict = {"type": "string"}
    for _ in range(5000):
        schema = {"type": "array", "items": schema}
    with pytest.raises(SchemaProblem, match="nested too deeply"):
        prepared(schema, "s")


@pytest.mark.model
def test_the_real_model_writes_only_numbers_in_range(default_gguf: object) -> None:
    """Asked for a number far outside the range, greedy decoding under the grammar still writes
    one inside it (llama.cpp parses the rules json_grammar.py writes)."""
    import json

    from local_agent.backends import create_backend
    from local_agent.config import CHECKOUT_MODELS_DIR, Settings
    from local_agent.types import GenerationSettings, Message

    settings = Settings(backend="llama-cpp", device="cpu", models_dir=CHECKOUT_MODELS_DIR, ctx_size=2048)
    backend, _ = create_backend(settings)
    schema = {"type": "object", "properties": {"year": {"type": "integer", "minimum": 1990, "maximum": 2012},
                                               "below": {"type": "integer", "exclusiveMaximum": -40},
                                               "share": {"type": "number", "minimum": 0, "maximum": 1}},
              "required": ["year", "below", "share"], "additionalProperties": False}
    try:
        for text in ("The year was 1066, it was 7 degrees, and 80% came.", "Say 99999, 5 and 12.5."):
            messages = [Message("system", "Reply with JSON."), Message("user", text)]
            reply = backend.generate(messages, GenerationSettings(max_tokens=40), json_schema=schema)
            data = json.loads(reply.text)
            assert 1990 <= data["year"] <= 2012 and data["below"] < -40 and 0 <= data["share"] <= 1, reply.text
    finally:
        backend.close()
