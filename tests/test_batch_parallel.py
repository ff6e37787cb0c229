"""`batch --parallel N` (conversations/batch_lanes.py) with a scripted model that takes calls
from several threads at once: lanes run side by side, records keep input order and match a run
in order, a namespace's lines stay in order with memory on, and a stop leaves a resumable file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from local_agent.bench.batch_rate import without_timing
from local_agent.conversations.batch import parse_lines
from local_agent.conversations.batch_lanes import lanes
from tests.cli_helpers import run_main
from tests.fakes import ConcurrentEcho


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path




def run_batch(source: Path, out: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
              *flags: str, backend: ConcurrentEcho | None = None) -> tuple[int, list[dict[str, Any]], str]:
    code, _, err = run_main(["batch", str(source), "--output", str(out), "--quiet", *flags], capsys, monkeypatch,
                            backend=backend or ConcurrentEcho())
    return code, [json.loads(line) for line in out.read_text().splitlines()], err


SESSIONS = [{"session": f"s{turn % 4}", "input": f"turn {turn} of session s{turn % 4}"} for turn in range(12)]


def test_sessions_run_side_by_side_and_records_keep_input_order(tmp_path, capsys, monkeypatch):
    source = write_lines(tmp_path / "in.jsonl", SESSIONS)
    model = ConcurrentEcho()
    code, records, _ = run_batch(source, tmp_path / "p4.jsonl", capsys, monkeypatch, "--no-memory", "--parallel", "4",
                                 backend=model)
    assert code == 0 and model.most_at_once >= 2
    assert [record["line"] for record in records] == list(range(1, 13))
    assert all(record["answer"] == f"You said: {record['input']}" for record in records)
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(tmp_path / "in-order"))  # sessions start afresh
    code, in_order, _ = run_batch(source, tmp_path / "p1.jsonl", capsys, monkeypatch, "--no-memory")
    assert code == 0 and without_timing(records) == without_timing(in_order)


def test_each_sessions_turns_stay_in_order(tmp_path, capsys, monkeypatch):
    """The dialogue of a session's third turn holds its first two, as in a run in order."""
    source = write_lines(tmp_path / "in.jsonl", SESSIONS)
    model = ConcurrentEcho()
    run_batch(source, tmp_path / "out.jsonl", capsys, monkeypatch, "--no-memory", "--parallel", "4", backend=model)
    third = next(prompt for prompt in model.prompts if "turn 8 of session s0" in prompt[-1].content)
    said = [m.content for m in third if m.role == "user"]  # after the few-shot examples (issue 25)
    assert said[-3:] == ["turn 0 of session s0", "turn 4 of session s0", "turn 8 of session s0"]


NAMESPACES = [
    {"user": "ann", "session": "a1", "input": "My favourite colour is green."},
    {"user": "bob", "session": "b1", "input": "My favourite colour is red."},
    {"session": "d1", "input": "My favourite colour is blue."},
    {"user": "ann", "session": "a2", "input": "What is my favourite colour?"},
    {"user": "bob", "session": "b2", "input": "What is my favourite colour?"},
    {"session": "d2", "input": "What is my favourite colour?"},
]


@pytest.mark.model
def test_with_memory_a_namespace_recalls_what_a_run_in_order_recalls(tmp_path, capsys, monkeypatch):
    source = write_lines(tmp_path / "in.jsonl", NAMESPACES)
    code, records, _ = run_batch(source, tmp_path / "p3.jsonl", capsys, monkeypatch, "--parallel", "3")
    assert code == 0 and [record["line"] for record in records] == list(range(1, 7))
    for record, colour in zip(records[3:], ("green", "red", "blue")):
        recalled = " ".join(memory["text"] for memory in record["memories_recalled"])
        assert colour in recalled and not {"green", "red", "blue"} - {colour} & set(recalled.split())
    assert [record.get("user") for record in records] == ["ann", "bob", None, "ann", "bob", None]
    assert (tmp_path / "data" / "users" / "ann" / "sessions" / "a2.json").is_file()  # conftest's data dir
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(tmp_path / "in-order"))
    code, in_order, _ = run_batch(source, tmp_path / "p1.jsonl", capsys, monkeypatch)
    assert code == 0 and without_timing(records) == without_timing(in_order)


def test_lanes_are_namespaces_with_memory_written_and_sessions_otherwise():
    items = list(parse_lines([json.dumps(line).encode() for line in NAMESPACES], plain_text=False))
    by_namespace = lanes(items, by_namespace=True)
    assert [(lane.user, [item.line for item in lane.items]) for lane in by_namespace] == \
        [("ann", [1, 4]), ("bob", [2, 5]), (None, [3, 6])]
    assert [[item.line for item in lane.items] for lane in lanes(items, by_namespace=False)] == \
        [[1], [2], [3], [4], [5], [6]]


def test_a_bad_user_is_an_error_record(tmp_path, capsys, monkeypatch):
    source = write_lines(tmp_path / "in.jsonl", [{"user": "../etc", "input": "hi"}, {"user": 3, "input": "hi"},
                                                 {"user": "ok", "input": "hi"}])
    code, records, _ = run_batch(source, tmp_path / "out.jsonl", capsys, monkeypatch, "--no-memory", "--parallel", "2")
    assert code == 1
    assert [bool(record["error"]) for record in records] == [True, True, False]
    assert "namespace name" in records[0]["error"]


def test_fail_fast_stops_and_resume_answers_the_rest(tmp_path, capsys, monkeypatch):
    lines = [json.dumps(line) for line in SESSIONS[:6]]
    lines.insert(2, "{broken")
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.jsonl"
    code, records, _ = run_batch(source, out, capsys, monkeypatch, "--no-memory", "--parallel", "2", "--fail-fast")
    assert code == 1 and any(record["line"] == 3 and record["error"] for record in records)
    code, records, _ = run_batch(source, out, capsys, monkeypatch, "--no-memory", "--parallel", "2", "--resume")
    answered = [record["line"] for record in records if record["error"] is None]
    assert sorted(answered) == [1, 2, 4, 5, 6, 7] and len(answered) == len(set(answered))


def test_workers_and_parallel_together_are_refused(tmp_path, capsys, monkeypatch):
    source = write_lines(tmp_path / "in.jsonl", SESSIONS[:2])
    code, _, err = run_main(["batch", str(source), "--workers", "2", "--parallel", "2"], capsys, monkeypatch,
                            backend=ConcurrentEcho())
    assert code == 2 and "not both" in err


def test_a_model_that_takes_one_call_at_a_time_runs_the_lanes_one_by_one(tmp_path, capsys, monkeypatch, scripted):
    source = write_lines(tmp_path / "in.jsonl", SESSIONS[:6])
    code, out, _ = run_main(["batch", str(source), "--no-memory", "--parallel", "3", "--quiet"], capsys, monkeypatch,
                            backend=scripted)
    assert code == 0 and [json.loads(line)["line"] for line in out.splitlines()] == list(range(1, 7))


@pytest.mark.model
def test_parallel_batch_on_the_real_model(tmp_path, capsys, monkeypatch):
    source = write_lines(tmp_path / "in.jsonl", SESSIONS[:6])
    code, out, err = run_main(["batch", str(source), "--no-memory", "--parallel", "3", "--quiet", "--max-tokens", "8"],
                              capsys, monkeypatch)
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0, err
    assert [record["line"] for record in records] == list(range(1, 7))
    assert all(record["answer"] and record["backend"] == "llama-cpp" for record in records)


def test_a_line_cut_short_stops_the_run_and_keeps_the_finished_records(tmp_path):
    from local_agent.conversations.batch_lanes import ParallelRun

    class Agents:
        settings = type("S", (), {"tools_on": False, "approve": False})()

        def own_agent(self, user):
            return None

    items = list(parse_lines([json.dumps(line).encode() for line in SESSIONS[:8]], plain_text=False))
    written: list[dict[str, Any]] = []

    def answer(agent, item):
        if item.line == 3:
            raise KeyboardInterrupt
        return False, {"line": item.line, "error": None}

    run = ParallelRun(Agents(), answer, written.append, parallel=1, by_namespace=False)  # type: ignore[arg-type]
    with pytest.raises(KeyboardInterrupt):
        run.run(items, [])
    # one lane at a time: sessions s0 (lines 1, 5) and s1 (2, 6) were done before line 3 of s2;
    # records go out in input order, those after the gap too (--resume answers 3, 4, 7, 8)
    assert [record["line"] for record in written] == [1, 2, 5, 6]
