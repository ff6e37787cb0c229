"""MCP servers as the assistant's tools: the commands, the schemas offered to the model, the
lifecycle with real server processes (the real `mcp-server-time` from PyPI, one that exits at
once, one that never answers), and `ask --tools --mcp-server` on the scripted model."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from local_agent.config import load_settings
from local_agent.errors import ConfigError, ToolError
from local_agent.tools.base import Tool
from local_agent.tools.mcp_client import McpServers
from local_agent.tools.mcp_commands import ServerCommand, parse_servers
from local_agent.tools.mcp_grounding import determined, grounded, times_named, zones_named
from local_agent.tools.mcp_schema import description, parameters, result_text

from .cli_helpers import error_line, run_main
from .fakes import ScriptedBackend

TIME_SERVER = "mcp-server-time --local-timezone UTC"
EXITS = f"{sys.executable} -c 'raise SystemExit(3)'"
HANGS = f"{sys.executable} -c 'import time; time.sleep(120)'"


def children(marker: str) -> list[psutil.Process]:
    """This process's children (and theirs) whose command line holds `marker`."""
    found = []
    for child in psutil.Process().children(recursive=True):
        try:
            if marker in " ".join(child.cmdline()) and child.status() != psutil.STATUS_ZOMBIE:
                found.append(child)
        except psutil.NoSuchProcess:
            continue
    return found


@pytest.fixture
def reports() -> list[str]:
    return []


def servers(lines: list[str], tmp_path: Path, reports: list[str], **timeouts: float) -> McpServers:
    return McpServers(parse_servers(tuple(lines)), tmp_path / "logs" / "mcp.log", report=reports.append, **timeouts)


@pytest.fixture
def time_server(tmp_path: Path, reports: list[str]) -> Iterator[McpServers]:
    started = servers([TIME_SERVER], tmp_path, reports)
    yield started
    started.close()


# -- commands and schemas ------------------------------------------------------------------------
def test_commands_are_resolved_in_this_process() -> None:
    first, python, again = parse_servers((TIME_SERVER, "python3 -m some_server --flag 'a b'", "mcp-server-time"))
    assert first.name == "mcp-server-time" and Path(first.program).name == "mcp-server-time"
    assert Path(first.program).parent == Path(sys.executable).parent  # found beside the interpreter
    assert first.args == ("--local-timezone", "UTC")
    assert python == ServerCommand("some_server", sys.executable, ("-m", "some_server", "--flag", "a b"))
    assert again.name == "mcp-server-time-2"


def test_config_names_the_servers_and_the_flag_replaces_them(tmp_path: Path, monkeypatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('mcp_servers = ["mcp-server-time --local-timezone UTC", "python -m other"]\n', encoding="utf-8")
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", str(config))
    assert load_settings().mcp_servers == ("mcp-server-time --local-timezone UTC", "python -m other")
    assert load_settings({"mcp_servers": ("mcp-server-time",)}).mcp_servers == ("mcp-server-time",)


@pytest.mark.parametrize(("line", "said"), [("no-such-mcp-server-xyz", "command not found"),
                                            ("'unclosed", "cannot split"), ("   ", "empty"),
                                            ("./not/here", "not an executable file")])
def test_a_bad_command_is_a_one_line_config_error(line: str, said: str) -> None:
    with pytest.raises(ConfigError, match=said):
        parse_servers((line,))


def test_schemas_are_bounded_and_closed() -> None:
    schema = parameters({"type": "object", "required": ["city", "gone"],
                         "properties": {"city": {"type": "string", "description": "A city"},
                                        "days": {"type": ["integer", "null"], "minimum": 1, "maximum": 7},
                                        "tags": {"type": "array", "items": {"type": "string", "maxLength": 500}},
                                        "unit": {"type": "string", "enum": ["c", "f"]}}})
    assert schema["additionalProperties"] is False and schema["required"] == ["city"]
    properties = schema["properties"]
    assert properties["city"] == {"type": "string", "description": "A city", "maxLength": 200}
    assert properties["days"] == {"type": "integer", "minimum": 1, "maximum": 7}
    assert properties["tags"] == {"type": "array", "items": {"type": "string", "maxLength": 200}, "maxItems": 16}
    assert properties["unit"] == {"type": "string", "enum": ["c", "f"]}
    with pytest.raises(ToolError, match=r"arguments\.x"):
        parameters({"type": "object", "properties": {"x": {"$ref": "#/$defs/X"}}})


def test_descriptions_and_results() -> None:
    tool = {"name": "t", "description": "Does  things.",
            "inputSchema": {"properties": {"a": {"type": "string", "description": "The a."}}}}
    assert description(tool) == "Does things. Arguments: a: The a."
    assert result_text({"content": [{"type": "text", "text": "one"}, {"type": "image", "data": "x"}]}) == (
        "one\n[image not shown]")
    assert result_text({"content": [{"type": "text", "text": '{\n  "a": 1\n}'}]}) == '{"a": 1}'
    with pytest.raises(ToolError, match="bad input"):
        result_text({"content": [{"type": "text", "text": "bad input"}], "isError": True})


@pytest.mark.parametrize(("message", "zones"), [
    ("What time is it in Tokyo?", ["Asia/Tokyo"]),
    ("Convert 3pm New York time to London", ["America/New_York", "Europe/London"]),
    ("what is the time in los angeles", ["America/Los_Angeles"]),
    ("What time is it in Japan?", ["Japan"]),
    ("What time is it now in UTC?", ["UTC"]),
    ("What time is it?", []),
])
def test_time_zones_named_in_a_message(message: str, zones: list[str]) -> None:
    assert zones_named(message) == zones


def test_clock_times_named_in_a_message() -> None:
    assert times_named("Convert 9:30 from Paris, or 14:00, to Sydney; 9:30 again") == ["09:30", "14:00"]
    assert times_named("version 1.2:3 at 25:00 or 12:345") == []
    clock = {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"}
    tool = Tool("convert", "", parameters({"type": "object", "required": ["time"], "properties": {"time": clock}}),
                lambda **_: "")
    assert determined(grounded(tool, "What is 8:05 in London?")) == {"time": "08:05"}


def test_a_time_zone_argument_is_kept_to_the_zones_the_message_names() -> None:
    schema = parameters({"type": "object", "required": ["timezone"], "properties": {
        "timezone": {"type": "string", "description": "IANA timezone name"}, "note": {"type": "string"}}})
    tool = Tool("get_current_time", "Get the time.", schema, lambda **_: "")
    narrowed = grounded(tool, "What time is it in Tokyo?")
    assert narrowed.parameters["properties"]["timezone"] == {"type": "string", "enum": ["Asia/Tokyo"]}
    assert narrowed.parameters["properties"]["note"] == schema["properties"]["note"]
    assert grounded(tool, "What time is it?") is tool
    assert determined(narrowed) is None  # `note` is not required but still the model's to write
    only = Tool("t", "", parameters({"type": "object", "required": ["timezone"],
                                     "properties": {"timezone": {"type": "string"}}}), lambda **_: "")
    assert determined(grounded(only, "Time in Tokyo?")) == {"timezone": "Asia/Tokyo"}
    assert determined(grounded(only, "Tokyo or Paris?")) is None


# -- lifecycle with real processes ------------------------------------------------------------
def test_the_time_server_lists_and_answers(time_server: McpServers, reports: list[str]) -> None:
    tools = {tool.name: tool for tool in time_server.tools(taken=["calculator", "date"])}
    assert {"get_current_time", "convert_time"} <= set(tools)
    assert "IANA" in tools["get_current_time"].description
    result = json.loads(tools["get_current_time"]({"timezone": "Asia/Tokyo"}))
    assert result["timezone"] == "Asia/Tokyo" and result["datetime"].endswith("+09:00")
    with pytest.raises(ToolError, match="Invalid timezone"):  # the server's refusal (isError), as text
        tools["get_current_time"]({"timezone": "Not/AZone"})
    assert time_server.owns("convert_time") and not time_server.owns("calculator")
    assert reports == []


def test_the_time_server_stops_with_close_and_its_stderr_is_logged(tmp_path: Path, reports: list[str]) -> None:
    started = servers([TIME_SERVER], tmp_path, reports)
    assert started.tools()
    assert children("mcp-server-time")
    began = time.monotonic()
    started.close()
    assert time.monotonic() - began < started.stop_timeout + 1
    assert not children("mcp-server-time")
    assert "starting mcp-server-time" in (tmp_path / "logs" / "mcp.log").read_text(encoding="utf-8")


def test_a_server_that_exits_at_once_is_one_line_and_left_out(tmp_path: Path, reports: list[str]) -> None:
    started = servers([EXITS, TIME_SERVER], tmp_path, reports, start_timeout=15.0)
    try:
        began = time.monotonic()
        names = [tool.name for tool in started.tools()]
        assert time.monotonic() - began < 15.0
    finally:
        started.close()
    assert "get_current_time" in names  # the other server is still used
    assert len(reports) == 1 and "\n" not in reports[0]
    assert reports[0].startswith("MCP server python") and "did not start" in reports[0]


def test_a_server_that_never_answers_is_bounded(tmp_path: Path, reports: list[str]) -> None:
    started = servers([HANGS], tmp_path, reports, start_timeout=2.0, stop_timeout=4.0)
    began = time.monotonic()
    assert started.tools() == []
    assert time.monotonic() - began < 3.0
    assert reports == [f"MCP server python did not start (no answer within 2 s); its log: {started.log_path}"]
    started.close()
    assert time.monotonic() - began < 2.0 + 4.0 + 1.0
    assert not children("time.sleep(120)")


# -- on the command line (scripted model, real server) ---------------------------------------------
def test_ask_with_a_server_calls_its_tool_and_shows_the_call(capsys, monkeypatch, scripted: ScriptedBackend) -> None:
    scripted.queue('{"action": "final"}', "It is Monday in Tokyo.")
    code, out, err = run_main(["ask", "--tools", "--no-memory", "--mcp-server", TIME_SERVER,
                               "What time is it in Tokyo?"], capsys, monkeypatch, backend=scripted)
    assert code == 0, err
    # one zone named, one zone argument: the call is made by rule, with the zone the question names
    assert "· get_current_time(Asia/Tokyo) → " in err and "Asia/Tokyo" in err.split("→", 1)[1]
    assert out.strip()
    step = scripted.prompts[0]
    assert "get_current_time" in step[0].content  # the tool was offered with its description
    assert '"enum": ["Asia/Tokyo"]' in json.dumps(scripted.schemas[0])
    assert '"datetime"' in step[-1].content  # its result went to the model as data


def test_a_call_the_model_writes_is_kept_to_the_zones_named(capsys, monkeypatch, scripted: ScriptedBackend) -> None:
    convert = ('{"action": "tool", "name": "convert_time", "arguments": {"source_timezone": "Europe/Paris", '
               '"time": "09:30", "target_timezone": "Australia/Sydney"}}')  # the model's step: the zones are two
    scripted.queue(convert, '{"action": "final"}', "It is 19:30 in Sydney.")
    code, _, err = run_main(["ask", "--tools", "--no-memory", "--mcp-server", TIME_SERVER,
                             "Convert 9:30 from Paris time to Sydney time"], capsys, monkeypatch, backend=scripted)
    assert code == 0, err
    assert "· convert_time(" in err and "✗" not in err
    zones = {"type": "string", "enum": ["Europe/Paris", "Australia/Sydney"]}
    step = scripted.schemas[0]
    assert step is not None
    arguments = step["anyOf"][0]["properties"]["arguments"]["properties"]
    assert arguments["source_timezone"] == zones and arguments["target_timezone"] == zones
    assert arguments["time"] == {"type": "string", "enum": ["09:30"]}
    assert not children("mcp-server-time")  # stopped with the command


def test_ask_with_approval_and_no_terminal_denies_the_call(capsys, monkeypatch, scripted: ScriptedBackend) -> None:
    scripted.queue('{"action": "final"}', "I cannot tell.")
    code, _, err = run_main(["ask", "--tools", "--approve", "--no-memory", "--mcp-server", TIME_SERVER,
                             "What time is it in Tokyo?"], capsys, monkeypatch, backend=scripted)
    assert code == 0, err
    assert "get_current_time was not run: approval is on" in err


def test_plain_chat_does_not_reach_the_server_tools(capsys, monkeypatch, scripted: ScriptedBackend) -> None:
    code, out, err = run_main(["ask", "--tools", "--no-memory", "--mcp-server", TIME_SERVER, "Tell me a joke"],
                              capsys, monkeypatch, backend=scripted)
    assert code == 0, err
    assert out.strip() == "Scripted answer." and "get_current_time" not in err


def test_ask_with_a_missing_server_command_fails_before_loading(capsys, monkeypatch,
                                                                scripted: ScriptedBackend) -> None:
    code, _, err = run_main(["ask", "--tools", "--mcp-server", "no-such-mcp-server-xyz", "hi"], capsys, monkeypatch,
                            backend=scripted)
    assert code == 1 and "command not found" in error_line(err)
    assert scripted.prompts == []


@pytest.mark.model
def test_ask_tokyo_time_through_the_real_server_on_the_default_model(capsys, monkeypatch, default_gguf) -> None:
    code, out, err = run_main(["ask", "--tools", "--no-memory", "--mcp-server", TIME_SERVER,
                               "What time is it in Tokyo?"], capsys, monkeypatch)
    assert code == 0, err
    line = next(line for line in err.splitlines() if line.startswith("· get_current_time("))
    assert "Asia/Tokyo" in line and "✗" not in line  # the call is shown, with the zone the question names
    assert out.strip()
