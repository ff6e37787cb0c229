"""The llama.cpp memory embedder: same vectors and id as sentence-transformers, a fallback with
one notice, the install check, and a CPU path that never imports torch."""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from local_agent.backends.probe import _gpu_driver_present
from local_agent.config import CHECKOUT_MODELS_DIR
from local_agent.errors import ModelError
from local_agent.memory.index import embedder_check
from local_agent.memory.index.embedder import Embedder
from local_agent.memory.index.gguf_embedder import (
    LlamaEmbedder,
    embedding_entry,
    memory_embedder,
)
from local_agent.models import resolve_model, sha256_file

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ["accelerate", "sentence_transformers", "torch", "transformers"]


@pytest.fixture(scope="module")
def gguf() -> tuple[Path, str]:
    entry = embedding_entry(CHECKOUT_MODELS_DIR)
    assert entry is not None, "models/registry.toml names no embedding model"
    path = CHECKOUT_MODELS_DIR / entry.file
    if not path.is_file():
        pytest.fail(f"the llama.cpp embedder is missing at {path}: run `make install`")
    return path, entry.sha256


def long_text() -> str:
    return " ".join(f"On day {i} Caroline walked her dog Rex past the old lighthouse." for i in range(60))


TEXTS = ["hi", "My sister lives in Lyon.", "서울에서 만나요, Zürich ou São Paulo? 🚀", long_text()]


def test_llama_embeds_as_sentence_transformers(gguf, embedder: Embedder) -> None:
    pieces = embedder._loaded().tokenizer(TEXTS[-1])["input_ids"]
    assert len(pieces) > 600, "the long text must go well past the 256 word pieces kept"
    llama = LlamaEmbedder(*gguf)
    ours, theirs = llama.embed(TEXTS), embedder.embed(TEXTS)
    assert llama.uses_llama
    assert ours.shape == theirs.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosines = np.einsum("ij,ij->i", ours, theirs)
    assert cosines.min() > 0.9999, cosines
    # Cut at 256 pieces: what follows the cut changes nothing.
    assert np.allclose(llama.embed([TEXTS[-1] + " and then a brand new ending"]), ours[-1:], atol=1e-6)


def test_both_embedders_report_one_id_and_dimension(gguf, embedder: Embedder) -> None:
    llama = LlamaEmbedder(*gguf)
    assert llama.model_id == embedder.model_id
    assert llama.dimension == embedder.dimension == 384
    llama.warm_up()
    assert llama.dimension == 384


def test_the_memory_embedder_on_cpu_is_llama(gguf) -> None:
    chosen = memory_embedder(CHECKOUT_MODELS_DIR, device="cpu")
    assert isinstance(chosen, LlamaEmbedder) and chosen.gguf_path == gguf[0]


def _damaged(kind: str, gguf: tuple[Path, str], tmp_path: Path) -> tuple[Path | None, str | None]:
    path, sha = gguf
    if kind == "missing":
        return tmp_path / path.name, sha
    copy = tmp_path / path.name
    shutil.copyfile(path, copy)
    with open(copy, "r+b") as handle:
        handle.truncate(path.stat().st_size // 2)
    if kind == "truncated":
        return copy, sha
    return copy, sha256_file(copy)  # checksum matches, and still llama.cpp cannot load it


@pytest.mark.parametrize("kind", ["missing", "truncated", "unloadable"])
def test_an_unusable_gguf_falls_back_with_one_notice(kind, gguf, tmp_path, caplog, embedder) -> None:
    path, sha = _damaged(kind, gguf, tmp_path)
    with caplog.at_level(logging.INFO):  # notices are log warnings; the CLI prints them as lines
        fallback = LlamaEmbedder(path, sha)
        first, second = fallback.embed(TEXTS[:2]), fallback.embed(TEXTS[2:])
    notices = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(notices) == 1 and "sentence-transformers embeds instead" in notices[0], notices
    assert not fallback.uses_llama
    assert np.allclose(np.vstack([first, second]), embedder.embed(TEXTS), atol=1e-6)
    assert fallback.model_id == embedder.model_id


def test_no_registry_entry_falls_back_too(caplog) -> None:
    with caplog.at_level(logging.WARNING):
        fallback = LlamaEmbedder(None, None)
    assert not fallback.uses_llama
    assert any("names no llama.cpp embedder" in r.getMessage() for r in caplog.records)


def test_the_embedding_model_is_not_a_chat_model(gguf) -> None:
    entry = embedding_entry(CHECKOUT_MODELS_DIR)
    assert entry is not None
    with pytest.raises(ModelError, match="not a chat model"):
        resolve_model(entry.name, CHECKOUT_MODELS_DIR)


@pytest.mark.slow
def test_install_check_passes_on_its_sample_and_fails_loudly_below_the_bar(gguf, monkeypatch) -> None:
    texts = embedder_check.sample_texts()
    tokenizer = Embedder()._loaded().tokenizer
    assert sum(len(tokenizer(t)["input_ids"]) > 256 for t in texts) >= 2
    worst = embedder_check.check(gguf[0])
    assert worst >= embedder_check.MIN_COSINE
    monkeypatch.setattr(embedder_check, "MIN_COSINE", 1.0 + 1e-9)  # no file can pass this bar
    with pytest.raises(ModelError, match="embeds unlike sentence-transformers"):
        embedder_check.check(gguf[0])


def test_install_keeps_a_checked_gguf(gguf) -> None:
    done = subprocess.run([sys.executable, "scripts/convert_embedder.py"], check=False, cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"present ({gguf[0]})")


@pytest.mark.slow
def test_install_converts_to_the_recorded_checksum(gguf, tmp_path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    shutil.copy(CHECKOUT_MODELS_DIR / "registry.toml", models / "registry.toml")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LOCAL_AGENT_MODELS_DIR": str(models)}
    done = subprocess.run([sys.executable, "scripts/convert_embedder.py"], check=False, cwd=ROOT, capture_output=True,
                          text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    assert "converted and checked" in done.stdout
    assert sha256_file(models / gguf[0].name) == gguf[1]


# -- no torch on the CPU path ---------------------------------------------------------------
PROBE = """
import atexit, json, os, sys
atexit.register(lambda: open(os.environ["MODULES_OUT"], "w").write(json.dumps(sorted(sys.modules))))
from local_agent.cli import main
sys.argv = ["local-agent", *sys.argv[1:]]
main()
"""


def imported_by(args: list[str], data_dir: Path, stdin: str | None = None) -> set[str]:
    """The top-level modules `local-agent ARGS` had imported when it exited."""
    out = data_dir.parent / "modules.json"
    env = {**os.environ, "LOCAL_AGENT_DATA_DIR": str(data_dir), "MODULES_OUT": str(out), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE, *args], check=False, cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return {name.split(".")[0] for name in json.loads(out.read_text())}


needs_no_gpu = pytest.mark.skipif(_gpu_driver_present(), reason="with a GPU driver the probe asks torch about it")


@needs_no_gpu
def test_memory_commands_never_import_torch(gguf, isolated_dirs: Path) -> None:
    for args in (["memory", "list"], ["memory", "add", "My sister lives in Lyon."],
                 ["memory", "search", "where does my sister live"], ["memory", "list"]):
        assert not set(HEAVY) & imported_by(args, isolated_dirs), args


@needs_no_gpu
@pytest.mark.model
def test_ask_batch_and_chat_never_import_torch(gguf, default_gguf, isolated_dirs: Path, tmp_path: Path) -> None:
    batch = tmp_path / "batch.txt"
    batch.write_text("hi\nmy dog is called Rex\n")
    runs = [(["ask", "--max-tokens", "4", "hi"], None), (["batch", "--quiet", "--max-tokens", "4", str(batch)], None),
            (["chat", "--max-tokens", "4"], "what is my dog called?\n/quit\n")]
    for args, stdin in runs:
        modules = imported_by(args, isolated_dirs, stdin)
        assert "llama_cpp" in modules and not set(HEAVY) & modules, args
