"""The registry and the step's action schema: both constrained decoders accept exactly the
actions the schema allows (lm-format-enforcer character by character; llama.cpp through its
JSON-schema converter, and on the real model under the grammar)."""

from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from local_agent.backends.hf import without_patterns
from local_agent.errors import ConfigError
from local_agent.tools.actions import action_schema, decoding_schema, instructions, parse_action
from local_agent.tools.dates import DATE_PATTERN
from local_agent.tools.registry import TOOL_NAMES, ToolSources, build_tools


@pytest.fixture
def sources(tmp_path: Path) -> ToolSources:
    (tmp_path / "notes").mkdir()
    connection = sqlite3.connect(tmp_path / "a.db")
    connection.execute("CREATE TABLE users (id INTEGER, city TEXT)")
    connection.execute("INSERT INTO users VALUES (1, 'Oslo')")
    connection.commit()
    connection.close()
    return ToolSources(today=dt.date(2025, 3, 14), notes_dir=tmp_path / "notes", db_file=tmp_path / "a.db",
                       recall=lambda query, k: ["The user lives in Oslo."], cache_dir=tmp_path / "cache")


VALID = [
    {"action": "tool", "name": "calculator", "arguments": {"expression": "17 * 23"}},
    {"action": "tool", "name": "date",
     "arguments": {"operation": "add", "date": "today", "amount": -3, "unit": "weeks"}},
    {"action": "tool", "name": "date", "arguments": {"operation": "today"}},
    {"action": "tool", "name": "memory_search", "arguments": {"query": "home city"}},
    {"action": "tool", "name": "notes_search", "arguments": {"query": "wifi password"}},
    {"action": "tool", "name": "sql_schema", "arguments": {}},
    {"action": "tool", "name": "sql_query", "arguments": {
        "table": "users", "select": "count", "column": "*",
        "filters": [{"column": "city", "op": "=", "value": "Oslo"}]}},
    {"action": "ask_user", "question": "Which year do you mean?"},
    {"action": "final", "answer": "It is 391. Überall: ça va."},
]
INVALID = [
    {"action": "tool", "name": "shell", "arguments": {"command": "rm -rf /"}},
    {"action": "tool", "name": "calculator", "arguments": {"query": "1"}},
    {"action": "tool", "name": "calculator", "arguments": {"expression": "1", "more": "x"}},
    {"action": "tool", "name": "date", "arguments": {"operation": "tomorrow"}},
    {"action": "final", "answer": "x" * 801},
    {"action": "final"},
    {"action": "think", "thought": "hmm"},
    {"action": "tool", "name": "sql_query", "arguments": {"query": "SELECT count(*) FROM users"}},
    {"action": "tool", "name": "sql_query", "arguments": {"table": "orders", "select": "count", "column": "*"}},
    {"action": "tool", "name": "sql_query", "arguments": {
        "table": "users", "select": "count", "column": "*",
        "filters": [{"column": "city", "op": "=", "value": "Lima"}]}},
]


def test_registry_builds_every_available_tool_in_order(sources: ToolSources):
    assert [tool.name for tool in build_tools(sources)] == list(TOOL_NAMES)
    bare = ToolSources(today=dt.date(2025, 3, 14))
    assert [tool.name for tool in build_tools(bare)] == ["calculator", "date"]
    assert [tool.name for tool in build_tools(sources, ["sql_query", "calculator"])] == ["calculator", "sql_query"]


def test_registry_refuses_unknown_tools_and_missing_sources(sources: ToolSources):
    with pytest.raises(ConfigError, match="unknown tool 'shell'"):
        build_tools(sources, ["shell"])
    with pytest.raises(ConfigError, match=r"sql_query tool needs a database \(--db FILE\)"):
        build_tools(ToolSources(today=dt.date(2025, 3, 14)), ["sql_query"])


def test_every_tool_has_a_closed_object_schema_with_bounded_strings(sources: ToolSources):
    for tool in build_tools(sources):
        assert tool.parameters["type"] == "object" and tool.parameters["additionalProperties"] is False
        assert tool.description
        for name, spec in tool.parameters["properties"].items():
            if spec["type"] == "string":
                assert "maxLength" in spec or "enum" in spec, (tool.name, name)


def test_the_schema_accepts_valid_actions_and_refuses_the_rest(sources: ToolSources):
    schema = action_schema(build_tools(sources))
    for action in VALID:
        assert parse_action(action, schema).to_dict() == action
    for action in INVALID:
        with pytest.raises(Exception, match="not a valid action"):
            parse_action(action, schema)


def test_decoding_schema_keeps_free_text_to_unescaped_characters(sources: ToolSources):
    schema = decoding_schema(action_schema(build_tools(sources)))
    answer = schema["anyOf"][-1]["properties"]["answer"]
    pattern = re.compile(answer["pattern"])
    assert pattern.search("It is 391, ça va.") and not pattern.search('say "hi"') and not pattern.search("a\nb")
    date_arguments = schema["anyOf"][1]["properties"]["arguments"]["properties"]
    assert date_arguments["date"]["pattern"] == DATE_PATTERN  # its own pattern kept


def _lmfe_accepts(schema: dict[str, Any], text: str) -> bool:
    from lmformatenforcer import CharacterLevelParserConfig, JsonSchemaParser

    parser = JsonSchemaParser(without_patterns(schema), config=CharacterLevelParserConfig(force_json_field_order=True))
    for character in text:
        if character not in parser.get_allowed_characters():
            return False
        parser = parser.add_character(character)
    return parser.can_end()


def test_lm_format_enforcer_follows_the_schema(sources: ToolSources):
    schema = decoding_schema(action_schema(build_tools(sources)))
    for action in VALID:  # its default alphabet is ASCII: other characters come as \u escapes
        assert _lmfe_accepts(schema, json.dumps(action)), action
    for action in INVALID:
        assert not _lmfe_accepts(schema, json.dumps(action)), action


def test_llama_cpp_converts_the_schema_to_a_grammar(sources: ToolSources):
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    from local_agent.backends.llama_grammar import canonical_spacing

    grammar = canonical_spacing(json_schema_to_gbnf(json.dumps(decoding_schema(action_schema(build_tools(sources))))))
    for name in TOOL_NAMES:
        assert f'"\\"{name}\\""' in grammar
    assert '[^"\\\\\\x00-\\x1f]' in grammar  # free text without raw control characters


def test_instructions_name_every_tool_and_action(sources: ToolSources):
    text = instructions(build_tools(sources))
    for name in TOOL_NAMES:
        assert f"- {name} (arguments:" in text
    assert '"action": "ask_user"' in text and '"action": "final"' in text


@pytest.mark.model
def test_the_real_model_writes_valid_actions_under_the_grammar(sources: ToolSources, default_gguf: Path):
    from local_agent.backends import create_backend
    from local_agent.config import CHECKOUT_MODELS_DIR, Settings
    from local_agent.types import GenerationSettings, Message

    tools = build_tools(sources)
    schema = action_schema(tools)
    settings = Settings(backend="llama-cpp", device="cpu", models_dir=CHECKOUT_MODELS_DIR, ctx_size=2048)
    backend, _ = create_backend(settings)
    try:
        for question in ("What is 17 * 23?", "How many users are in my database?", "Hello there!"):
            messages = [Message("system", instructions(tools)), Message("user", question)]
            completion = backend.generate(messages, GenerationSettings(max_tokens=400),
                                          json_schema=decoding_schema(schema))
            assert completion.finish_reason == "stop", completion.text
            parse_action(json.loads(completion.text), schema)  # strict JSON, and the contract holds
    finally:
        backend.close()
