"""Every backend runs each architecture of the registry: tiny random-weight llama, qwen2 and
gemma3 models (tests/tiny_models.py) through `ask`, `chat`, `batch` and the distiller on
llama-cpp, transformers float32 and transformers-4bit on CPU, each with its own chat template;
`info` shows the backend and why, and the context follows the model's window."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from local_agent.backends import create_backend
from local_agent.backends.base import Backend
from local_agent.cli import cli
from local_agent.config import load_settings
from local_agent.memory.distill import Distiller
from local_agent.types import GenerationSettings, Message
from tests.tiny_models import MARKERS, TinyModel

pytestmark = pytest.mark.model  # the memory embedder and the default model load beside them

ARCHS = ["llama", "qwen2", "gemma3"]
BACKENDS = ["llama-cpp", "transformers", "transformers-4bit"]
# No rule phrases it whole (the relatives' rules need "my daughter NAME ..." at the start): the model is asked
DURABLE = "Every winter my uncle Tomas restores old sailboats in his barn."


def model_path(model: TinyModel, backend: str) -> Path:
    return model.gguf if backend == "llama-cpp" else model.folder


def run(*args: str, input: str | None = None) -> Result:
    result = CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def options(model: TinyModel, backend: str) -> list[str]:
    """The tiny model chats and distills its own turns (the default model distills beside a
    pulled one in test_offline_pulled.py)."""
    path = str(model_path(model, backend))
    return ["--model", path, "--distill-model", path, "--backend", backend, "--device", "cpu", "--max-tokens", "6"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("arch", ARCHS)
def test_ask_chat_and_batch_run_on_every_backend(arch: str, backend: str, tiny_models: dict[str, TinyModel],
                                                   tmp_path: Path) -> None:
    flags = options(tiny_models[arch], backend)
    # a question the model answers (an introduction is acknowledged by the program, issue 25)
    answer = json.loads(run("ask", "--json", "Tell me about sailboats.", *flags).stdout)
    assert (answer["backend"], answer["device"], answer["model"]) == (backend, "cpu", arch)
    assert answer["tokens"]["completion"] >= 1
    if backend != "transformers-4bit":  # the slowest: ask and batch show it runs
        run("chat", "--new-session", *flags, input=f"Hello there.\n{DURABLE}\n/exit\n")
    lines = tmp_path / "in.jsonl"
    lines.write_text("".join(json.dumps({"session": "s", "input": text}) + "\n" for text in ("Hi!", DURABLE)))
    run("batch", str(lines), "-o", str(tmp_path / "out.jsonl"), "--quiet", *flags)
    records = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["backend"] for r in records] == [backend, backend]


@pytest.mark.parametrize("backend", ["llama-cpp", "transformers"])
@pytest.mark.parametrize("arch", ARCHS)
def test_the_distiller_asks_each_model_in_its_own_template(arch: str, backend: str, embedder: object,
                                                           tiny_models: dict[str, TinyModel]) -> None:
    loaded = load(tiny_models[arch], backend)
    try:
        assert MARKERS[arch] in loaded.format_prompt([Message("system", "S"), Message("user", "U")])
        result = Distiller(loaded, embedder).distill(DURABLE)  # type: ignore[arg-type]
        assert result.model_called
        # llama.cpp's grammar leaves noise no room for spaces; lm-format-enforcer lets it pad with them
        assert result.valid_json or backend == "transformers"
    finally:
        loaded.close()


def load(model: TinyModel, backend: str, **flags: object) -> Backend:
    settings = load_settings({"model": str(model_path(model, backend)), "backend": backend, "device": "cpu", **flags})
    loaded, _ = create_backend(settings)
    return loaded


@pytest.mark.parametrize("arch", ARCHS)
def test_info_says_the_backend_and_why_and_caps_the_context(arch: str, tiny_models: dict[str, TinyModel]) -> None:
    model = tiny_models[arch]
    choice = json.loads(run("info", "--json", "--model", str(model.gguf)).stdout)["choice"]
    assert choice["backend"] == "llama-cpp" and "llama.cpp runs the GGUF" in choice["reason"]
    assert choice["model_context"] == model.window
    assert choice["context_size"] == min(2048, model.window)  # 131072 would take gigabytes of KV cache
    raised = json.loads(run("info", "--json", "--model", str(model.folder), "--ctx-size", "4096").stdout)["choice"]
    assert raised["backend"] == "transformers" and "no GGUF" in raised["reason"]
    assert raised["context_size"] == min(4096, model.window)


def test_the_loaded_context_and_the_memory_budget_follow_the_model(tiny_models: dict[str, TinyModel]) -> None:
    big_window, small_window = tiny_models["llama"], tiny_models["qwen2"]
    for model, ctx_size, expected in ((big_window, None, 2048), (big_window, 4096, 4096), (small_window, 4096, 1024)):
        flags = {"ctx_size": ctx_size} if ctx_size else {}
        loaded = load(model, "llama-cpp", **flags)
        assert loaded.context_size == expected
        loaded.close()
    shown = run("chat", "--new-session", *options(small_window, "llama-cpp"), input="Hello.\n/context\n/exit\n")
    assert "of 1024" in shown.output


# -- Gemma 3's sliding window and the reuse of prompt prefixes ------------------------------
SYSTEM = "You are a helpful assistant. " + " ".join(f"Fact {i}: the sky has colour {i}." for i in range(25))
LONG = " ".join(f"Item {i} of my long list is a pear." for i in range(110))
GREEDY = GenerationSettings(max_tokens=12, temperature=0.0, seed=0, repeat_penalty=1.0)


def answer(backend: Backend, question: str) -> str:
    return backend.generate([Message("system", SYSTEM), Message("user", question)], GREEDY).text


def gemma(tiny_models: dict[str, TinyModel], state_dir: Path | None = None) -> Backend:
    from local_agent.backends.llama_cpp import LlamaCppBackend

    return LlamaCppBackend(tiny_models["gemma3"].gguf, model_name="gemma3", context_size=2048, threads=2,
                           state_dir=state_dir)


@pytest.mark.parametrize("swa_full", [True, False])
def test_prefix_reuse_on_a_sliding_window_model_needs_the_full_cache(
        swa_full: bool, tiny_models: dict[str, TinyModel], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a prompt far past the window (16 tokens, plus a 512-token batch), the next prompt
    reuses only the system prompt's prefix: the window's cache has dropped the positions it
    needs, unless it keeps them all (swa_full, what the backend loads with)."""
    import local_agent.backends.llama_cpp as llama_cpp_backend

    monkeypatch.setattr(llama_cpp_backend, "SWA_FULL", swa_full)
    question = "Tell me about the second question, please."
    fresh = answer(gemma(tiny_models), question)
    reused = gemma(tiny_models, tmp_path / "states")
    assert answer(reused, LONG)  # saves the system prompt's state, then fills the cache past the window
    assert (answer(reused, question) == fresh) is swa_full
    restored = gemma(tiny_models, tmp_path / "states")  # another process would load the saved state
    assert answer(restored, question) == fresh
