"""CLI front ends on a scripted model (the real model's runs live in test_integration.py)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from local_agent.cli import cli
from tests.fakes import ScriptedBackend, scripted_cli_obj


def run(*args, input=None, backend=None):
    """`local-agent ARGS`; with `backend`, that scripted model answers."""
    return CliRunner().invoke(cli, list(args), input=input, obj=scripted_cli_obj(backend), catch_exceptions=False)


def test_version_and_help():
    assert "local-agent, version" in run("--version").output
    out = run("--help").output
    for command in ("chat", "ask", "batch", "memory", "info", "models", "sessions"):
        assert command in out


def test_ask_json(scripted):
    out = run("ask", "--json", "What is the capital of France?", backend=scripted).stdout
    data = json.loads(out)
    assert data["answer"] == "Scripted answer."
    assert data["backend"] == "scripted"
    assert {"timings", "tokens", "memories_saved", "memories_recalled"} <= data.keys()
    assert data["outcome"] == "answer"  # a question answered by the model (issue 43)


class _StoppedMidAnswer(ScriptedBackend):
    """Ctrl-C arrives after the second word of the answer."""

    def _stream(self, messages, settings, json_schema, usage):
        for index, chunk in enumerate(super()._stream(messages, settings, json_schema, usage)):
            if index == 2:
                raise KeyboardInterrupt
            yield chunk


def test_ask_stopped_by_ctrl_c_exits_130_and_keeps_what_was_said(tmp_path, capsys, monkeypatch):
    from tests.cli_helpers import run_main

    backend = _StoppedMidAnswer(["Honey is sweet and old."])
    code, out, err = run_main(["ask", "I keep bees in Porto, tell me about honey"], capsys, monkeypatch,
                              backend=backend)
    assert code == 130  # as the shell sees it, through the console entry point
    assert out.strip() == "Honey is"
    assert "[answer stopped]" in err
    listed = json.loads(run("memory", "list", "--kind", "turn", "--json").stdout)
    assert [r["text"] for r in listed] == ["I keep bees in Porto, tell me about honey"]


def test_shared_options_on_group_and_command(tmp_path):
    data_dir = tmp_path / "elsewhere"
    assert run("--data-dir", str(data_dir), "memory", "add", "I like tea").exit_code == 0
    out = run("memory", "list", "--data-dir", str(data_dir)).output
    assert "I like tea" in out


def test_memory_commands_round_trip(tmp_path):
    ident = run("memory", "add", "The user lives in Lisbon.").stdout.strip()
    assert len(ident) >= 6
    listed = json.loads(run("memory", "list", "--json").stdout)
    assert [r["text"] for r in listed] == ["The user lives in Lisbon."]
    found = json.loads(run("memory", "search", "Where does the user live?", "--json").stdout)
    assert found and found[0]["id"] == ident
    edited = run("memory", "edit", ident[:6], "The user lives in Porto.").stdout
    new_id = edited.split()[0]
    shown = json.loads(run("memory", "show", new_id, "--json").stdout)
    assert shown["supersedes_record"]["text"] == "The user lives in Lisbon."
    assert [r["text"] for r in json.loads(run("memory", "list", "--json").stdout)] == ["The user lives in Porto."]
    export = tmp_path / "export.json"
    assert run("memory", "export", str(export)).exit_code == 0
    assert run("memory", "forget", new_id).exit_code == 0
    # Forgetting a corrected memory forgets its earlier versions too: nothing comes back.
    assert json.loads(run("memory", "list", "--json").stdout) == []
    assert json.loads(run("memory", "list", "--all-versions", "--json").stdout) == []
    assert "imported" in run("memory", "import", str(export)).output


def test_forget_all_needs_yes_off_terminal(isolated_dirs):
    run("memory", "add", "secret fact about me")
    result = CliRunner().invoke(cli, ["memory", "forget", "--all"])
    assert result.exit_code != 0
    assert run("memory", "forget", "--all", "--yes").exit_code == 0
    assert json.loads(run("memory", "list", "--json").stdout) == []


def test_unknown_id_is_one_line_error(capsys, monkeypatch):
    import sys

    from local_agent.cli import main

    monkeypatch.setattr(sys, "argv", ["local-agent", "memory", "show", "zzzzzzzz"])
    with pytest.raises(SystemExit) as exit_info:
        main()
    assert exit_info.value.code == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err


def test_chat_repl_commands(scripted):
    script = "\n".join([
        "/remember I am allergic to peanuts",
        "/memories",
        "Tell me a story",
        "/context",
        "/summary",
        "/incognito",
        "/nonsense",
        "/exit",
    ]) + "\n"
    result = run("chat", "--new-session", input=script, backend=scripted)
    assert result.exit_code == 0, result.output
    assert "allergic to peanuts" in result.output
    assert "Scripted answer." in result.output
    assert "<|im_start|>user" in result.output  # /context shows the exact templated prompt


def test_batch_jsonl(scripted, tmp_path):
    source = tmp_path / "in.jsonl"
    source.write_text('{"session": "a", "input": "tell me a story"}\n{broken\n{"session": "b", "input": "yo"}\n')
    out = tmp_path / "out.jsonl"
    result = run("batch", str(source), "--output", str(out), "--quiet", backend=scripted)
    assert result.exit_code == 1
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3]
    assert records[0]["answer"] == "Scripted answer." and records[1]["error"]
    resumed = run("batch", str(source), "--output", str(out), "--resume", "--quiet", backend=scripted)
    assert resumed.exit_code == 1  # line 2 is still broken
    assert len(out.read_text().splitlines()) == 4


def test_memory_budget_from_flag_env_and_default(monkeypatch):
    settings = lambda *args: json.loads(run(*args, "info", "--json").stdout)["settings"]  # noqa: E731
    assert settings()["memory_tokens"] == 160
    monkeypatch.setenv("LOCAL_AGENT_MEMORY_TOKENS", "120")
    assert settings()["memory_tokens"] == 120
    assert settings("--memory-tokens", "80")["memory_tokens"] == 80  # the flag wins


def test_piped_chat_and_batch_input_are_bounded(tmp_path, capsys, monkeypatch):
    """A line with no end, a pasted block with no end, a device: one line of error each, not
    memory read until it runs out."""
    from tests.cli_helpers import run_main

    endless_line = b"x" * 1_100_000
    code, _, err = run_main(["chat"], capsys, monkeypatch, stdin=endless_line, backend=ScriptedBackend())
    assert code == 1 and "a line on stdin is over 1 MB" in err
    endless_block = b'"""\n' + b"more text\n" * 120_000
    code, _, err = run_main(["chat"], capsys, monkeypatch, stdin=endless_block, backend=ScriptedBackend())
    assert code == 1 and "the message is over 1 MB" in err
    code, _, err = run_main(["batch", "/dev/zero"], capsys, monkeypatch, backend=ScriptedBackend())
    assert code == 1 and "/dev/zero: is a device, not a file" in err
    code, out, _ = run_main(["chat"], capsys, monkeypatch, stdin=b"hello\n", backend=ScriptedBackend(["Hi there."]))
    assert code == 0 and "Hi there." in out
