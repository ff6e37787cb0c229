"""With the tiny default model, `chat`, `info` and the page say in one line that answers will
often be unsure, and which bigger registry models fit this machine's memory (models/advice.py).
The page itself shows the line in tests/browser/test_page_model_note.py."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from local_agent.cli import cli
from local_agent.config import CHECKOUT_MODELS_DIR, DEFAULT_MODEL
from local_agent.models.advice import available_mb, fitting_models, model_advice, needed_mb
from local_agent.models.registry import load_registry
from tests.fakes import ScriptedBackend, scripted_cli_obj
from tests.server_helpers import running_server, server_settings

UNSURE = "answers will often be unsure"
OTHER = "qwen2.5-0.5b-instruct-q4_k_m"  # a registry model that is not the default

REGISTRY = f"""
[{DEFAULT_MODEL}]
format = "gguf"
file = "SmolLM2-135M-Instruct.Q4_1.gguf"
sha256 = "{'0' * 64}"

[embedder]
kind = "embedding"
format = "gguf"
file = "e.gguf"
source = {{ hf = "o/embedder" }}
size_mb = 50000

[small-q4]
format = "gguf"
file = "small.gguf"
source = {{ hf = "o/small" }}
size_mb = 300

[middle-q4]
format = "gguf"
file = "middle.gguf"
source = {{ hf = "o/middle" }}
size_mb = 800

[large-q4]
format = "gguf"
file = "large.gguf"
source = {{ hf = "o/large" }}
size_mb = 1500

[large]
format = "hf"
source = {{ hf = "o/large-hf" }}
size_mb = 9000

[huge-q4]
format = "gguf"
file = "huge.gguf"
source = {{ hf = "o/huge" }}
size_mb = 20000
gated = true
"""


@pytest.fixture
def models_dir(tmp_path: Path) -> Path:
    (tmp_path / "registry.toml").write_text(REGISTRY, encoding="utf-8")
    return tmp_path


def run(*args: str, input: str | None = None, backend: ScriptedBackend | None = None):
    return CliRunner().invoke(cli, list(args), input=input, obj=scripted_cli_obj(backend), catch_exceptions=False)


# -- choosing what to suggest ---------------------------------------------------------------------

@pytest.mark.parametrize(("memory_mb", "expected"), [
    (100_000, ["large-q4", "middle-q4"]),  # the two largest GGUF chat models; not the folder, gated or embedder
    (2_500, ["middle-q4", "small-q4"]),  # large-q4 needs 1500 x 2.1 + 600 = 3750
    (1_300, ["small-q4"]),
    (1_000, []),
])
def test_the_largest_chat_models_that_fit_the_memory(models_dir: Path, memory_mb: int, expected: list[str]) -> None:
    registry = load_registry(models_dir)
    assert fitting_models(registry, memory_mb) == expected
    assert all(needed_mb(registry[name]) <= memory_mb for name in expected)


def test_the_line_names_the_pull_command_and_both_models(models_dir: Path) -> None:
    advice = model_advice(DEFAULT_MODEL, models_dir, memory_mb=100_000)
    assert advice is not None and "\n" not in advice.text
    assert UNSURE in advice.text
    assert "local-agent models pull large-q4 (or middle-q4)" in advice.text
    assert advice.to_dict() == {"text": advice.text, "suggested": ["large-q4", "middle-q4"], "available_mb": 100_000}


def test_when_nothing_fits_the_line_says_so(models_dir: Path) -> None:
    advice = model_advice(DEFAULT_MODEL, models_dir, memory_mb=900)
    assert advice is not None and advice.suggested == ()
    assert UNSURE in advice.text and "No bigger model in the registry fits the 0.9 GB" in advice.text
    assert "models pull" not in advice.text


def test_the_default_is_known_by_its_name_or_its_file_and_no_other_model_gets_a_line(models_dir: Path) -> None:
    assert model_advice(DEFAULT_MODEL, models_dir, memory_mb=100_000) is not None
    assert model_advice(str(models_dir / "SmolLM2-135M-Instruct.Q4_1.gguf"), models_dir, memory_mb=100_000) is not None
    assert model_advice("middle-q4", models_dir, memory_mb=100_000) is None
    assert model_advice(str(models_dir / "middle.gguf"), models_dir, memory_mb=100_000) is None


def test_on_this_machine_the_suggestions_are_registry_models_that_fit_what_is_free() -> None:
    registry = load_registry(CHECKOUT_MODELS_DIR)
    advice = model_advice(DEFAULT_MODEL, CHECKOUT_MODELS_DIR)
    assert advice is not None
    assert abs(advice.available_mb - available_mb()) < 2048  # the memory free now, not a fixed figure
    for name in advice.suggested:
        assert registry[name].pullable and registry[name].kind == "chat"
        assert needed_mb(registry[name]) <= advice.available_mb


# -- the front ends -------------------------------------------------------------------------------

def test_info_says_it_in_one_line_and_json_carries_it() -> None:
    text = run("info").output
    notes = [line for line in text.splitlines() if UNSURE in line]
    assert len(notes) == 1 and notes[0].startswith("note ")
    data = json.loads(run("info", "--json").stdout)
    assert UNSURE in data["model_note"]["text"]
    assert data["model_note"]["text"] in notes[0]
    assert len(data["model_note"]["suggested"]) <= 2
    assert json.loads(run("info", "--json", "--model", OTHER).stdout)["model_note"] is None
    assert UNSURE not in run("info", "--model", OTHER).output


def test_the_chat_banner_says_it_with_the_default_model(scripted: ScriptedBackend) -> None:
    result = run("chat", "--new-session", input="/exit\n", backend=scripted)
    assert result.exit_code == 0, result.output
    banner = result.stderr.split("Type /help")[0]
    assert sum(UNSURE in line for line in banner.splitlines()) == 1
    assert "local-agent models pull" in banner or "No bigger model" in banner


def test_the_chat_banner_says_nothing_of_it_with_another_model(scripted: ScriptedBackend) -> None:
    result = run("chat", "--new-session", "--model", OTHER, input="/exit\n", backend=scripted)
    assert result.exit_code == 0, result.output
    assert "Type /help" in result.stderr and UNSURE not in result.stderr


def test_the_page_info_carries_the_line_with_the_default_model_only(tmp_path: Path) -> None:
    for model, shown in ((DEFAULT_MODEL, True), (OTHER, False)):
        settings = server_settings(tmp_path / model, model=model)
        with running_server(settings, ScriptedBackend(default="Scripted answer.")) as server:
            info = httpx.get(server.url + "/v1/local-agent/info", timeout=30).json()
        assert (info["model_note"] is not None) is shown, info
        if shown:
            assert UNSURE in info["model_note"]["text"]

