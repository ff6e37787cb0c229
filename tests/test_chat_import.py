"""Reading past conversations to import: JSON Lines with per-line problems, a ChatGPT export
walked along its current branch, and whole-file errors that say what is wrong."""

from __future__ import annotations

import contextlib
import copy
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.conversations.chat_import import (
    MAX_MESSAGE_CHARS,
    ImportProblem,
    dedupe_key,
    parse_chats,
    parse_date,
    read_chats,
)
from local_agent.errors import InputError, NotFoundError

EXPORT = Path(__file__).parent / "data" / "chatgpt_export.json"


def lines(*items: object) -> str:
    return "\n".join(item if isinstance(item, str) else json.dumps(item) for item in items) + "\n"


def msg(session: object = "trip", role: object = "user", content: object = "hello",
        **extra: object) -> dict[str, object]:
    return {"session": session, "role": role, "content": content, **extra}


# -- JSON Lines --------------------------------------------------------------------------------


def test_jsonl_messages_with_positions_per_session_and_dates() -> None:
    result = parse_chats(lines(
        msg("trip", "user", "I'm going to Lisbon", date="2024-05-02"),
        msg("food", "user", "I'm vegetarian", date="2024-05-03T18:30"),
        msg("trip", "assistant", "Take tram 28", date="2024-05-02T10:15:00"),
        msg("trip", "user", "Thanks"),
    ))
    assert result.format == "jsonl" and result.problems == ()
    assert [(m.session, m.position, m.role, m.content, m.line) for m in result.messages] == [
        ("trip", 0, "user", "I'm going to Lisbon", 1), ("food", 0, "user", "I'm vegetarian", 2),
        ("trip", 1, "assistant", "Take tram 28", 3), ("trip", 2, "user", "Thanks", 4)]
    assert [m.date for m in result.messages] == [
        datetime(2024, 5, 2), datetime(2024, 5, 3, 18, 30), datetime(2024, 5, 2, 10, 15), None]


def test_timestamp_with_offset_becomes_local_time() -> None:
    moment = datetime(2024, 5, 2, 8, 0, tzinfo=UTC)
    result = parse_chats(lines(msg(date="2024-05-02T08:00:00Z"), msg(date="2024-05-02T10:00:00+02:00")))
    local = moment.astimezone().replace(tzinfo=None)
    assert [m.date for m in result.messages] == [local, local]
    assert parse_date(" 2024-05-02 ") == datetime(2024, 5, 2)


BAD_LINES = [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "expected a JSON object, got list"),
    ('"text"', "expected a JSON object, got str"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    (json.dumps({"role": "user", "content": "hi"}), "session is missing"),
    (json.dumps(msg(session="my trip")), "invalid session name 'my trip'"),
    (json.dumps(msg(session="-trip")), "invalid session name"),
    (json.dumps(msg(session="t" * 65)), "invalid session name"),
    (json.dumps(msg(session="trip\n")), "invalid session name"),
    (json.dumps(msg(session=7)), "invalid session name 7"),
    (json.dumps(msg(role="system")), "role must be 'user' or 'assistant', not 'system'"),
    (json.dumps(msg(role="User")), "role must be"),
    (json.dumps({"session": "trip", "role": "user"}), "content is missing"),
    (json.dumps(msg(content=["hi"])), "content must be text, not list"),
    (json.dumps(msg(content="   ")), "content is empty"),
    (json.dumps(msg(date="May 2nd")), "unreadable date 'May 2nd'"),
    (json.dumps(msg(date="2024-13-02")), "unreadable date"),
    (json.dumps(msg(date=20240502)), "date must be a string"),
]


@pytest.mark.parametrize(("line", "why"), BAD_LINES, ids=[why for _, why in BAD_LINES])
def test_bad_line_is_named_and_skipped(line: str, why: str) -> None:
    result = parse_chats(lines(msg(content="first"), line, msg(content="last")))
    assert [m.content for m in result.messages] == ["first", "last"]
    assert len(result.problems) == 1
    assert result.problems[0].line == 2 and why in result.problems[0].message


def test_bad_line_keeps_its_position_so_a_fixed_reimport_keeps_keys() -> None:
    broken = parse_chats(lines(msg(content="a"), msg(role="robot", content="b"), msg(content="c")))
    fixed = parse_chats(lines(msg(content="a"), msg(role="assistant", content="b"), msg(content="c")))
    assert [m.position for m in broken.messages] == [0, 2]
    assert {m.key for m in broken.messages} < {m.key for m in fixed.messages}


def test_blank_lines_bom_and_line_separators() -> None:
    text = "\ufeff" + lines(msg(content="one"), "", "   ", msg(content="two\u2028still two"), msg(role="x"))
    result = parse_chats(text)
    assert [(m.content, m.line) for m in result.messages] == [("one", 1), ("two\u2028still two", 4)]
    assert result.problems == (ImportProblem(5, "role must be 'user' or 'assistant', not 'x'"),)


def test_dedupe_key_is_stable_and_short() -> None:
    first = parse_chats(lines(msg(content="same"), msg(content="same")))
    again = parse_chats(lines(msg(content="same"), msg(content="same")))
    assert [m.key for m in first.messages] == [m.key for m in again.messages]
    assert len({m.key for m in first.messages}) == 2  # same text, other position
    assert dedupe_key("trip", 0, "a") != dedupe_key("trip", 0, "b") != dedupe_key("trap", 0, "b")
    assert dedupe_key("trip", 3, "hello") == "trip/3/2cf24dba5fb0a30e" and len(dedupe_key("x" * 64, 99, "a")) < 90


# -- ChatGPT export ----------------------------------------------------------------------------


def test_chatgpt_export_follows_the_current_branch() -> None:
    result = read_chats(EXPORT)
    assert result.format == "chatgpt" and result.problems == ()
    assert [(m.session, m.position, m.role, m.content) for m in result.messages] == [
        ("trip-to-lisbon-6f1a2b3c", 0, "user",
         "I'm flying to Lisbon in June. Can you suggest a novel to read on the plane?"),
        ("trip-to-lisbon-6f1a2b3c", 1, "assistant",
         "I recommend Night Train to Lisbon by Pascal Mercier: a teacher leaves Bern for Lisbon on a whim."),
        ("trip-to-lisbon-6f1a2b3c", 2, "user", "Is this the tram I should take to the castle?"),
        ("trip-to-lisbon-6f1a2b3c", 3, "assistant", "Yes, that's tram 28; it climbs up to São Jorge Castle."),
        ("recettes-vegetariennes-b7c8d9e0", 0, "user", "I became vegetarian last month. Ideas for a quick dinner?"),
        ("recettes-vegetariennes-b7c8d9e0", 1, "assistant",
         "A chickpea curry takes twenty minutes.\nServe it with rice."),
    ]
    assert [m.line for m in result.messages] == [1, 1, 1, 1, 2, 2]


def test_chatgpt_dates_from_messages_else_the_conversation() -> None:
    dates = [m.date for m in read_chats(EXPORT).messages]
    assert dates[0] == datetime.fromtimestamp(1714650010.25)
    assert dates[3] == datetime.fromtimestamp(1714653560.0)
    assert dates[4] == dates[5] == datetime.fromtimestamp(1712000000.0)


def export() -> list[Any]:
    return json.loads(EXPORT.read_text(encoding="utf-8"))


def test_without_current_node_the_newest_branch_is_taken() -> None:
    conversations = export()
    del conversations[0]["current_node"]
    contents = [m.content for m in parse_chats(json.dumps(conversations)).messages]
    assert any(text.startswith("I recommend Night Train to Lisbon") for text in contents)
    assert "How about The Book of Disquiet by Fernando Pessoa?" not in contents


def test_the_other_branch_when_current_node_points_there() -> None:
    conversations = export()
    conversations[0]["current_node"] = "a-old"
    messages = [m for m in parse_chats(json.dumps(conversations)).messages if m.line == 1]
    assert [m.content for m in messages][-1] == "How about The Book of Disquiet by Fernando Pessoa?"
    assert len(messages) == 2


def test_session_names_are_valid_and_unique() -> None:
    first = export()[1]
    untitled = copy.deepcopy(first)
    untitled["title"] = "   "
    long = copy.deepcopy(first)
    long["title"] = "A very long title about many, many things: " * 5
    conversations = [copy.deepcopy(first) for _ in range(3)] + [untitled, long]
    for item in conversations[:4]:
        del item["id"], item["conversation_id"]
    names = [m.session for m in parse_chats(json.dumps(conversations)).messages if m.position == 0]
    assert names == ["recettes-vegetariennes", "recettes-vegetariennes-2", "recettes-vegetariennes-3", "chatgpt",
                     "a-very-long-title-about-many-many-things-b7c8d9e0"]


def test_broken_conversations_are_problems_and_the_rest_is_kept() -> None:
    conversations = export()
    looped = copy.deepcopy(conversations[1])
    looped["mapping"]["r-root"]["parent"] = "r-a1"
    conversations += [looped, {"title": "no mapping"}, "not a conversation"]
    result = parse_chats(json.dumps(conversations))
    assert len(result.messages) == 6
    assert [(p.line, p.message.split(": ", 1)[1]) for p in result.problems] == [
        (3, "its message tree has a loop"), (4, "not a conversation (no `mapping`)"),
        (5, "not a conversation (no `mapping`)")]


def test_a_looped_conversation_without_current_node_is_imported_not_dropped() -> None:
    """Issue 23: with no current_node and no root (a loop), the conversation vanished without a
    word. The path that ends at its latest message is imported; the loop is cut where it closes."""
    conversations = export()
    looped = conversations[1]
    looped["mapping"]["r-root"]["parent"] = "r-a1"
    del looped["current_node"]
    result = parse_chats(json.dumps(conversations))
    assert result.problems == ()
    assert [(m.role, m.content) for m in result.messages if m.line == 2] == [
        ("user", "I became vegetarian last month. Ideas for a quick dinner?"),
        ("assistant", "A chickpea curry takes twenty minutes.\nServe it with rice.")]


def test_a_conversation_with_several_roots_keeps_the_branch_of_its_latest_message() -> None:
    conversations = export()
    first = conversations[0]
    del first["current_node"]
    stray: dict[str, Any] = {"id": "stray-root", "message": None, "parent": None, "children": []}
    older: dict[str, Any] = {"id": "old-u", "parent": None, "children": [], "message": {
        "author": {"role": "user"}, "create_time": 1700000000.0, "content": {"content_type": "text",
                                                                          "parts": ["An older, detached question."]}}}
    first["mapping"] = {"stray-root": stray, "old-u": older, **first["mapping"]}
    result = parse_chats(json.dumps(conversations))
    assert result.problems == ()
    contents = [m.content for m in result.messages if m.line == 1]
    assert contents[-1] == "Yes, that's tram 28; it climbs up to São Jorge Castle." and len(contents) == 4


def test_a_conversation_with_nothing_to_import_is_reported() -> None:
    conversations = export()
    for node in conversations[1]["mapping"].values():
        node["message"] = None
    result = parse_chats(json.dumps(conversations))
    assert [(p.line, p.message.split(": ", 1)[1]) for p in result.problems] == [
        (2, "no user or assistant text to import")]


def test_a_message_over_the_length_limit_is_a_problem_and_the_rest_is_kept() -> None:
    long = "x" * (MAX_MESSAGE_CHARS + 1)
    result = parse_chats(lines(msg(content=long), msg(content="short")))
    assert [m.content for m in result.messages] == ["short"] and result.messages[0].position == 1
    assert [(p.line, p.message.split(",")[0]) for p in result.problems] == [(1, f"content has {len(long)} characters")]
    exported = export()
    for node in exported[0]["mapping"].values():
        if "I recommend Night Train" in json.dumps(node.get("message")):
            node["message"]["content"]["parts"] = [long]
    chatgpt = parse_chats(json.dumps(exported))
    assert len(chatgpt.messages) == 5 and long not in {m.content for m in chatgpt.messages}
    (problem,) = chatgpt.problems
    assert problem.line == 1 and f"over the {MAX_MESSAGE_CHARS}" in problem.message


def test_one_exported_conversation_on_its_own() -> None:
    result = parse_chats(json.dumps(export()[1], indent=2))
    assert result.format == "chatgpt" and len(result.messages) == 2


# -- whole-file errors -------------------------------------------------------------------------


@pytest.mark.parametrize(("data", "why"), [
    (b"", "empty"), (b" \n\n\t", "empty"), (b"\xef\xbb\xbf\n", "empty"),
    (b'{"session": "a", "role": "user", "content": "caf\xe9"}\n', "not UTF-8 text (line 1"),
    (b"ok\n\n\xff", "not UTF-8 text (line 3"),
    (b'[{"title": "x", "mapping": {}', "not valid JSON at line 1"),
    (b"[1, 2, 3]", "not a ChatGPT export"),
    (b"[" * 100_000, "nested too deeply"),
    (b"hello there", "neither JSON Lines"),
    (b"PK\x03\x04rest-of-zip", "zip archive"),
])
def test_unreadable_files(tmp_path: Path, data: bytes, why: str) -> None:
    path = tmp_path / "chats.jsonl"
    path.write_bytes(data)
    with pytest.raises(InputError, match="chats.jsonl: .*" if why != "empty" else "empty") as caught:
        read_chats(path)
    assert why in str(caught.value)


def test_a_file_over_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text(lines(*[msg(content="x" * 100)] * 50))
    with pytest.raises(InputError, match=r"over the .* import limit"):
        read_chats(path, max_bytes=1000)
    assert len(read_chats(path, max_bytes=1 << 20).messages) == 50


def test_missing_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no such file"):
        read_chats(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="is a folder"):
        read_chats(tmp_path)


def test_a_file_of_only_bad_lines_is_all_problems() -> None:
    result = parse_chats(lines("{", "{}", msg(role="bot")))
    assert result.messages == () and [p.line for p in result.problems] == [1, 2, 3]


def test_dates_in_the_future_or_past_are_kept_as_given() -> None:
    result = parse_chats(lines(msg(date="1999-12-31"), msg(date="2099-01-01T00:00")))
    assert [m.date for m in result.messages] == [datetime(1999, 12, 31), datetime(2099, 1, 1)]
    assert datetime(2099, 1, 1) - datetime(1999, 12, 31) > timedelta(days=30000)


def test_text_the_assistant_sends_to_a_tool_is_left_out() -> None:
    conversations = export()
    call = conversations[0]["mapping"]["a-tool"]["message"]
    call["content"] = {"content_type": "text", "parts": ['{"prompt": "a tram in Lisbon", "size": "1024x1024"}']}
    call["recipient"] = "dalle.text2im"
    contents = [m.content for m in parse_chats(json.dumps(conversations)).messages]
    assert len(contents) == 6 and not any("prompt" in text for text in contents)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_any_text_is_messages_problems_or_one_input_error(text: str) -> None:
    try:
        result = parse_chats(text)
    except InputError:
        return
    assert all(m.content.strip() and m.role in ("user", "assistant") for m in result.messages)


@settings(max_examples=100, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                        st.sampled_from(["mapping", "message", "author", "role", "content", "parts", "parent",
                                         "children", "current_node", "title", "id", "create_time", "metadata"]),
                        inner, max_size=4), max_leaves=30))
def test_odd_exports_never_crash(data: object) -> None:
    with contextlib.suppress(InputError):
        parse_chats(json.dumps([data, {"mapping": {}}]))
