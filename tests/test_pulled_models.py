"""The registry's bigger models and how the rest of the program finds pulled ones: registry
entries and pairs, `--model` and the config file's `model =` by name or short name, the backend
a GGUF-only or folder-only model gets, and the distiller that stays small."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from local_agent.app import _distill_backend
from local_agent.backends.base import Backend
from local_agent.backends.probe import BackendChoice, HardwareInfo, choose_backend
from local_agent.config import CHECKOUT_MODELS_DIR, DEFAULT_MODEL, Settings, load_settings
from local_agent.errors import BackendError, ModelError
from local_agent.models import ModelSpec, list_models, load_registry, resolve_model
from local_agent.models.pulled import RECORD, PulledFile, PulledModel, land, read_pulled
from local_agent.models.targets import pull_target
from tests.conftest import DEFAULT_GGUF
from tests.fakes import ScriptedBackend

REGISTRY = load_registry(CHECKOUT_MODELS_DIR)
PULLABLE = [entry for entry in REGISTRY.values() if entry.pullable]


# -- the registry ---------------------------------------------------------------------------
def test_the_registry_names_each_bigger_model_in_both_formats() -> None:
    families = ["tinyllama-1.1b-chat", "qwen2.5-0.5b-instruct", "qwen2.5-1.5b-instruct", "smollm2-360m-instruct",
                "smollm2-1.7b-instruct", "llama-3.2-1b-instruct", "gemma-3-1b-it"]
    for family in families:
        gguf, folder = REGISTRY[f"{family}-q4_k_m"], REGISTRY[family]
        assert (gguf.format, folder.format) == ("gguf", "hf")
        assert gguf.pair == folder.name and folder.pair == gguf.name
        assert gguf.file.lower().endswith("q4_k_m.gguf") and gguf.serves == "llama-cpp"
        assert folder.serves.startswith("transformers")
        for entry in (gguf, folder):
            assert entry.license and entry.context_length >= 2048 and entry.size_mb and entry.publisher
            assert entry.sha256 == ""  # checked against the hub at pull time (see the registry's note)
    assert {e.name for e in PULLABLE if e.gated} == {"llama-3.2-1b-instruct", "gemma-3-1b-it"}


@pytest.mark.parametrize(("table", "problem"), [
    ('format = "hf"\n', "without a source"),
    ('format = "gguf"\nfile = "x.gguf"\nsource = { hf = "no-owner" }\n', "OWNER/REPO"),
    ('format = "gguf"\nfile = "x.gguf"\n', "has no sha256"),
    ('format = "onnx"\nfile = "x"\nsha256 = "ab"\n', "format 'onnx'"),
])
def test_a_bad_registry_entry_is_named(table: str, problem: str, tmp_path: Path) -> None:
    (tmp_path / "registry.toml").write_text(f"[bad]\n{table}", encoding="utf-8")
    with pytest.raises(ModelError, match=problem):
        load_registry(tmp_path)


def test_a_registry_model_not_pulled_yet_names_the_pull_and_its_size(tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        resolve_model("qwen2.5-1.5b-instruct-q4_k_m", tmp_path)
    message = str(caught.value)
    assert "`local-agent models pull qwen2.5-1.5b-instruct-q4_k_m`" in message and "1,120 MB" in message
    assert "\n" not in message


def test_hub_names_map_to_the_registry_entry_they_are() -> None:
    target = pull_target("hf:qwen/qwen2.5-0.5b-instruct-gguf/qwen2.5-0.5b-instruct-q4_k_m.gguf", REGISTRY, Path("/m"))
    assert target.name == "qwen2.5-0.5b-instruct-q4_k_m" and target.entry is REGISTRY[target.name]
    folder = pull_target("hf:Qwen/Qwen2.5-0.5B-Instruct", REGISTRY, Path("/m"))
    assert folder.name == "qwen2.5-0.5b-instruct" and folder.file is None
    other = pull_target("hf:someone/Qwen2.5-0.5B-Instruct", REGISTRY, Path("/m"))
    assert other.name == "someone--qwen2.5-0.5b-instruct" and other.entry is None  # the short name is taken


# -- pulled models on disk ------------------------------------------------------------------
def fake_pull(models_dir: Path, name: str, fmt: str, source: str | None = None) -> PulledModel:
    """A pulled model as `pull` lands it: a GGUF (a link to the default model) or a folder."""
    commit = "c0ffee" * 6 + "abcd"
    staging = models_dir / ".pulling" / name / commit
    staging.mkdir(parents=True)
    if fmt == "gguf":
        files = [("model.gguf", DEFAULT_GGUF.stat().st_size)]
        os.symlink(DEFAULT_GGUF, staging / "model.gguf")
    else:
        (staging / "config.json").write_text(json.dumps({"max_position_embeddings": 32768}))
        (staging / "model.safetensors").write_bytes(b"weights")
        files = [("config.json", 32), ("model.safetensors", 7)]
    model = PulledModel(name=name, source=source or name, repo=f"org/{name}", format=fmt,
                        endpoint="https://hub.example", revision="main", commit=commit,
                        pulled_at="2026-12-01T00:00:00+00:00", license="apache-2.0",
                        files=tuple(PulledFile(f, size, "0" * 64, "hub LFS sha256") for f, size in files),
                        folder=models_dir / name)
    return land(staging, model)


def test_a_pulled_gguf_takes_its_pulled_folder_pair_for_the_transformers_backends(tmp_path: Path) -> None:
    gguf = fake_pull(tmp_path, "qwen2.5-0.5b-instruct-q4_k_m", "gguf")
    alone = resolve_model("qwen2.5-0.5b-instruct-q4_k_m", tmp_path)
    assert alone == ModelSpec(gguf.name, gguf.folder / "model.gguf", None, 8192, "qwen2.5-0.5b-instruct")
    with pytest.raises(BackendError, match=r"local-agent models pull qwen2\.5-0\.5b-instruct"):
        choose_backend(HardwareInfo(2, 8.0), alone, "transformers", "cpu")
    folder = fake_pull(tmp_path, "qwen2.5-0.5b-instruct", "hf")
    paired = resolve_model("qwen2.5-0.5b-instruct-q4_k_m", tmp_path)
    assert paired.hf_folder == folder.folder and paired.other_format == ""
    as_folder = resolve_model("qwen2.5-0.5b-instruct", tmp_path)
    assert as_folder.gguf_path == gguf.folder / "model.gguf" and as_folder.context_length == 32768


def test_a_gpu_machine_runs_a_gguf_only_model_with_llama_cpp() -> None:
    gpu = HardwareInfo(8, 32.0, cuda_available=True, cuda_device_name="GPU", bitsandbytes_ok=True)
    gguf_only = ModelSpec("m", Path("/m/m.gguf"), None, 8192)
    assert choose_backend(gpu, gguf_only).backend == "llama-cpp"
    folder_only = ModelSpec("f", None, Path("/m/f"), 8192)
    assert choose_backend(gpu, folder_only).backend == "transformers-4bit"
    with pytest.raises(BackendError, match=r"needs a \.gguf"):
        choose_backend(HardwareInfo(2, 8.0), folder_only, "llama-cpp", "cpu")


def test_model_by_short_name_source_or_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_pull(tmp_path, "tiny-chat", "gguf", source="hf:org/tiny-chat-GGUF/tiny-chat.gguf")
    for name in ("tiny-chat", "hf:org/tiny-chat-GGUF/tiny-chat.gguf"):
        assert resolve_model(name, tmp_path).name == "tiny-chat"
    config = tmp_path / "config.toml"
    config.write_text('model = "tiny-chat"\n', encoding="utf-8")
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", str(config))
    settings = load_settings(environ={"LOCAL_AGENT_MODELS_DIR": str(tmp_path)})
    assert resolve_model(settings.model, settings.models_dir).gguf_path == tmp_path / "tiny-chat" / "model.gguf"


def test_a_half_pulled_or_damaged_model_is_never_taken(tmp_path: Path) -> None:
    staged = tmp_path / ".pulling" / "x" / "abc"
    staged.mkdir(parents=True)
    (staged / "model.gguf").write_bytes(b"half")
    (tmp_path / "y").mkdir()
    (tmp_path / "y" / "model.gguf").write_bytes(b"a folder without a pull record")
    for name in ("x", "y"):
        with pytest.raises(ModelError):
            resolve_model(name, tmp_path)
    damaged = fake_pull(tmp_path, "z", "gguf")
    (damaged.folder / RECORD).write_text("{", encoding="utf-8")
    with pytest.raises(ModelError, match="damaged"):
        read_pulled(damaged.folder)
    assert [s.name for s in list_models(tmp_path) if s.pulled] == []


# -- the distiller stays small ---------------------------------------------------------------
class RecordingFactory:
    def __init__(self) -> None:
        self.asked: list[str | None] = []

    def __call__(self, settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]:
        self.asked.append(model)
        return ScriptedBackend(), BackendChoice("scripted", "cpu", "test")


@pytest.mark.parametrize(("chat", "distill", "asked"), [
    ("qwen2.5-1.5b-instruct-q4_k_m", "", DEFAULT_MODEL),  # a bigger chat model: the small one distills
    ("qwen2.5-1.5b-instruct-q4_k_m", "smollm2-360m-instruct-q4_k_m", "smollm2-360m-instruct-q4_k_m"),
    # the chat model itself: a second llama.cpp instance of it
    ("qwen2.5-1.5b-instruct-q4_k_m", "qwen2.5-1.5b-instruct-q4_k_m", None),
    (DEFAULT_MODEL, "", None),
])
def test_the_distiller_keeps_the_default_model_unless_told(chat: str, distill: str, asked: str | None) -> None:
    factory = RecordingFactory()
    settings = Settings(model=chat, distill_model=distill)
    from local_agent.backends.lazy import LazyBackend

    backend, owned = _distill_backend(settings, ScriptedBackend(), BackendChoice("llama-cpp", "cpu", "test"), factory)
    if asked is None:  # the chat model's own second instance, loaded when it is first called
        assert factory.asked == [] and isinstance(backend, LazyBackend) and owned
    else:
        assert factory.asked == [asked]
