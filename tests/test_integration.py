"""End to end on the real default model (llama.cpp), real store, real embedder, real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from local_agent.app import build_runtime
from local_agent.config import load_settings

pytestmark = pytest.mark.model

INTRO = ("Hello! My name is Alexandra, but you can call me Alex. I'm studying for the CFA exam in 2025.")
WORK = "I work in marketing at a tech startup and appreciate brief, clear answers."
QUESTION = "Can you remind me of my exam year and how you should address me?"
REFERENCE = [
    INTRO,
    WORK,
    QUESTION,
    "By the way, I enjoy tutorials that combine retrieval-augmented generation with simple deployment.",
    "Based on my preferences, what should I focus on this week in my studies?",
]


def cli(*args: str, data_dir: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "LOCAL_AGENT_DATA_DIR": str(data_dir)}
    return subprocess.run([sys.executable, "-m", "local_agent", *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def write_batch(path: Path, messages: list[str], session: str = "reference") -> Path:
    path.write_text("".join(json.dumps({"session": session, "input": m}) + "\n" for m in messages))
    return path


def test_reference_scenario_remembers_across_processes(tmp_path, isolated_dirs):
    # One process: the two introductions (a batch runs them in order, with memory).
    first = cli("batch", str(write_batch(tmp_path / "intro.jsonl", [INTRO, WORK])), "--quiet",
                "--max-tokens", "32", data_dir=isolated_dirs)
    assert first.returncode == 0, first.stderr
    records = [json.loads(line) for line in first.stdout.splitlines()]
    assert all(r["timings"]["memory_start_after_first_token_s"] > 0 for r in records), \
        "distillation must start after the answer's first token"
    facts = json.loads(cli("memory", "list", "--json", data_dir=isolated_dirs).stdout)
    texts = " ".join(f["text"] for f in facts)
    assert "Alex" in texts and "2025" in texts
    assert all(f["provenance"].get("source_text") in (INTRO, WORK) for f in facts)

    # A new process and a new session: the composed prompt carries what was remembered.
    settings = load_settings({"data_dir": isolated_dirs, "max_tokens": 32})
    with build_runtime(settings) as runtime:  # no session name: a new session
        result = runtime.agent.respond(QUESTION)
    assert result.session != "reference"
    assert result.prompt is not None
    memory_part = result.prompt.messages[-1].content
    assert "Alex" in memory_part and "2025" in memory_part


def test_reference_batch_is_deterministic(tmp_path):
    source = write_batch(tmp_path / "ref.jsonl", REFERENCE)

    def run(name: str) -> list[dict]:
        out = cli("batch", str(source), "--quiet", "--max-tokens", "48", data_dir=tmp_path / name)
        assert out.returncode == 0, out.stderr
        rows = [json.loads(line) for line in out.stdout.splitlines()]
        for row in rows:
            row.pop("timings")
        return rows

    first, second = run("a"), run("b")
    assert len(first) == 5 and all(r["answer"] for r in first)
    assert first == second


def test_batch_with_a_broken_line_goes_on_and_fails(tmp_path):
    source = tmp_path / "broken.jsonl"
    source.write_text(json.dumps({"session": "s", "input": "Hi"}) + "\n{oops\n")
    out = cli("batch", str(source), "--quiet", "--max-tokens", "8", data_dir=tmp_path / "d")
    assert out.returncode == 1
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert rows[0]["error"] is None and rows[0]["answer"]
    assert "invalid JSON" in rows[1]["error"]


def test_ask_json_answers_on_default_model(tmp_path):
    out = cli("ask", "--json", "--no-memory", "--max-tokens", "24", "What is the capital of France?",
              data_dir=tmp_path / "d")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["backend"] == "llama-cpp" and "Paris" in data["answer"]


def test_missing_model_is_one_line_error(tmp_path):
    out = cli("ask", "--model", "HuggingFaceTB/SmolLM2-360M-Instruct", "hi", data_dir=tmp_path / "d")
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "offline" in lines[0]


def test_batch_workers_run_sessions_in_parallel_and_keep_input_order(tmp_path):
    source = tmp_path / "two.jsonl"
    lines = [{"session": "a", "input": "Hi, I am Ann."}, {"session": "b", "input": "Hello, I live in Oslo."},
             {"session": "a", "input": "What is my name?"}, {"session": "b", "input": "Where do I live?"}]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines) + "{broken\n")
    out = cli("batch", str(source), "--workers", "2", "--quiet", "--max-tokens", "8", data_dir=tmp_path / "d")
    assert out.returncode == 1 and "Traceback" not in out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 5]
    assert [r["session"] for r in rows[:4]] == ["a", "b", "a", "b"]
    assert all(r["answer"] and r["error"] is None for r in rows[:4])
    assert "invalid JSON" in rows[4]["error"]
