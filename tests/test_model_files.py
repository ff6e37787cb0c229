"""Loading never unpickles: GGUF and safetensors only, remote code never trusted."""

from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import pytest

from local_agent.backends import create_backend
from local_agent.config import load_settings
from local_agent.errors import ModelError
from local_agent.types import GenerationSettings, Message


def _settings(model: str, backend: str):
    return load_settings({"model": model, "backend": backend, "device": "cpu", "ctx_size": 512})


def test_folder_with_only_pickled_weights_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "pickled"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "llama"}))
    (folder / "pytorch_model.bin").write_bytes(pickle.dumps({"weights": [1, 2, 3]}))
    with pytest.raises(ModelError, match="safetensors"):
        create_backend(_settings(str(folder), "transformers"))


def _hf_folder() -> Path:
    from local_agent.config import CHECKOUT_MODELS_DIR

    folder = CHECKOUT_MODELS_DIR / "smollm2-135m-instruct-hf"
    if not (folder / "config.json").is_file():
        pytest.fail(f"{folder} missing: run `make install`")
    return folder


@pytest.mark.model
def test_config_asking_for_remote_code_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "remote"
    shutil.copytree(_hf_folder(), folder)
    marker = tmp_path / "remote-code-ran"
    (folder / "modeling_evil.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    config = json.loads((folder / "config.json").read_text())
    config.update(model_type="evil", auto_map={"AutoConfig": "modeling_evil.EvilConfig",
                                              "AutoModelForCausalLM": "modeling_evil.EvilModel"})
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelError):
        create_backend(_settings(str(folder), "transformers"))
    assert not marker.exists()


@pytest.fixture
def no_unpickling(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    import torch

    calls: list[str] = []

    def refuse(name):
        def raiser(*args, **kwargs):
            calls.append(name)
            raise AssertionError(f"{name} called while loading a model")
        return raiser

    monkeypatch.setattr(torch, "load", refuse("torch.load"))
    monkeypatch.setattr(pickle, "load", refuse("pickle.load"))
    monkeypatch.setattr(pickle, "loads", refuse("pickle.loads"))
    return calls


@pytest.mark.model
@pytest.mark.parametrize("backend_name", ["llama-cpp", "transformers"])
def test_loading_each_backend_never_unpickles(no_unpickling: list[str], monkeypatch, backend_name: str) -> None:
    seen: list[dict] = []
    if backend_name == "transformers":
        import transformers

        original = transformers.AutoModelForCausalLM.from_pretrained.__func__

        def spy(cls, *args, **kwargs):
            seen.append(kwargs)
            return original(cls, *args, **kwargs)

        monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", classmethod(spy))
    backend, choice = create_backend(_settings("smollm2-135m-instruct-q4_1", backend_name))
    try:
        assert choice.backend == backend_name
        answer = backend.generate([Message("user", "Hi")], GenerationSettings(max_tokens=2))
        assert answer.completion_tokens >= 1
    finally:
        backend.close()
    assert no_unpickling == []
    if backend_name == "transformers":
        assert seen and all(k.get("use_safetensors") is True and k.get("trust_remote_code") is False for k in seen)
