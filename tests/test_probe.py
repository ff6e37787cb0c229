"""Backend/device selection with the hardware probe faked, and requests that cannot run."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from local_agent.backends import create_backend
from local_agent.backends import probe as probe_module
from local_agent.backends.probe import HardwareInfo, choose_backend, probe_hardware
from local_agent.config import load_settings
from local_agent.errors import BackendError, ModelError
from local_agent.models import ModelSpec

GGUF_MODEL = ModelSpec("smol", Path("/m/smol.gguf"), Path("/m/smol-hf"), 8192)
HF_ONLY_MODEL = ModelSpec("folder", None, Path("/m/folder"), 4096)

CPU_ONLY = HardwareInfo(cpu_cores=2, ram_gb=16.0, bitsandbytes_ok=True)
CUDA_BNB = HardwareInfo(cpu_cores=16, ram_gb=128.0, cuda_available=True, cuda_device_name="NVIDIA H200",
                        cuda_memory_gb=139.8, bitsandbytes_ok=True)
CUDA_NO_BNB = HardwareInfo(cpu_cores=16, ram_gb=128.0, cuda_available=True, cuda_device_name="NVIDIA H200",
                           cuda_memory_gb=139.8, bitsandbytes_ok=False)
CUDA_NO_BNB_OFFLOAD = HardwareInfo(cpu_cores=16, ram_gb=128.0, cuda_available=True, cuda_device_name="NVIDIA H200",
                                   cuda_memory_gb=139.8, bitsandbytes_ok=False, llama_gpu_offload=True)


# -- auto ---------------------------------------------------------------------------------------
def test_auto_on_cuda_with_bitsandbytes_is_4bit_on_the_gpu() -> None:
    choice = choose_backend(CUDA_BNB, GGUF_MODEL, "auto", "auto")
    assert (choice.backend, choice.device) == ("transformers-4bit", "cuda")
    assert "NVIDIA H200" in choice.reason and "4-bit NF4" in choice.reason and "bfloat16" in choice.reason


def test_auto_without_cuda_runs_the_gguf_with_llama_cpp() -> None:
    choice = choose_backend(CPU_ONLY, GGUF_MODEL, "auto", "auto")
    assert (choice.backend, choice.device) == ("llama-cpp", "cpu")
    assert "no CUDA GPU" in choice.reason and "llama.cpp" in choice.reason


def test_auto_without_cuda_or_gguf_is_transformers_float32() -> None:
    choice = choose_backend(CPU_ONLY, HF_ONLY_MODEL, "auto", "auto")
    assert (choice.backend, choice.device) == ("transformers", "cpu")
    assert "float32" in choice.reason


def test_auto_on_cuda_without_bitsandbytes() -> None:
    choice = choose_backend(CUDA_NO_BNB, GGUF_MODEL, "auto", "auto")
    assert (choice.backend, choice.device) == ("transformers", "cuda")
    assert "bitsandbytes is not usable" in choice.reason and "bfloat16" in choice.reason


def test_auto_on_cuda_without_bitsandbytes_prefers_llama_offload() -> None:
    choice = choose_backend(CUDA_NO_BNB_OFFLOAD, GGUF_MODEL, "auto", "auto")
    assert (choice.backend, choice.device) == ("llama-cpp", "cuda")
    assert "offloaded" in choice.reason


def test_auto_backend_with_device_cpu_on_a_gpu_machine() -> None:
    choice = choose_backend(CUDA_BNB, GGUF_MODEL, "auto", "cpu")
    assert (choice.backend, choice.device) == ("llama-cpp", "cpu")


# -- explicit requests --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hw", "backend", "device", "expected"),
    [
        (CPU_ONLY, "transformers-4bit", "cpu", ("transformers-4bit", "cpu")),
        (CPU_ONLY, "transformers-4bit", "auto", ("transformers-4bit", "cpu")),
        (CPU_ONLY, "transformers", "auto", ("transformers", "cpu")),
        (CUDA_BNB, "transformers", "auto", ("transformers", "cuda")),
        (CUDA_BNB, "llama-cpp", "auto", ("llama-cpp", "cpu")),
        (CUDA_NO_BNB_OFFLOAD, "llama-cpp", "cuda", ("llama-cpp", "cuda")),
        (CUDA_BNB, "transformers-4bit", "cpu", ("transformers-4bit", "cpu")),
    ],
)
def test_explicit_requests_are_honoured(hw: HardwareInfo, backend: str, device: str, expected: tuple[str, str]) -> None:
    choice = choose_backend(hw, GGUF_MODEL, backend, device)
    assert (choice.backend, choice.device) == expected
    assert choice.reason


@pytest.mark.parametrize(
    ("hw", "model", "backend", "device", "match"),
    [
        (CPU_ONLY, GGUF_MODEL, "auto", "cuda", "no CUDA GPU"),
        (CPU_ONLY, GGUF_MODEL, "transformers", "cuda", "no CUDA GPU"),
        (CPU_ONLY, HF_ONLY_MODEL, "llama-cpp", "auto", "needs a .gguf"),
        (CUDA_BNB, GGUF_MODEL, "llama-cpp", "cuda", "no GPU offload"),
        (CUDA_NO_BNB, GGUF_MODEL, "transformers-4bit", "cuda", "bitsandbytes"),
        (HardwareInfo(cpu_cores=2, ram_gb=8.0), GGUF_MODEL, "transformers-4bit", "cpu", "bitsandbytes"),
        (CPU_ONLY, GGUF_MODEL, "vllm", "auto", "unknown backend"),
        (CPU_ONLY, GGUF_MODEL, "auto", "tpu", "unknown device"),
        (CPU_ONLY, ModelSpec("x", Path("/m/x.gguf"), None, 1024), "transformers", "cpu", "Hugging Face model folder"),
    ],
)
def test_impossible_requests_raise(hw: HardwareInfo, model: ModelSpec, backend: str, device: str, match: str) -> None:
    with pytest.raises(BackendError, match=match) as caught:
        choose_backend(hw, model, backend, device)
    assert "\n" not in str(caught.value)


# -- the probe itself -------------------------------------------------------------------------
def test_probe_reports_this_machine() -> None:
    hw = probe_hardware()
    assert hw.cpu_cores >= 1 and hw.ram_gb > 0
    assert set(hw.to_dict()) == {"cpu_cores", "ram_gb", "cuda_available", "cuda_device_name", "cuda_memory_gb",
                                 "bitsandbytes_ok", "llama_gpu_offload"}
    if not hw.cuda_available:
        assert hw.cuda_device_name is None and hw.cuda_memory_gb is None


def test_probe_survives_missing_libraries(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("torch", "bitsandbytes", "llama_cpp", "psutil"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    monkeypatch.setattr(probe_module, "_gpu_driver_present", lambda: True)
    hw = probe_hardware()
    assert hw.cpu_cores >= 1 and not hw.cuda_available and not hw.llama_gpu_offload


# -- create_backend fails before loading anything -------------------------------------------
def test_create_backend_with_a_hub_id_says_offline() -> None:
    settings = load_settings()
    with pytest.raises(ModelError, match="offline"):
        create_backend(settings, model="HuggingFaceTB/SmolLM2-135M-Instruct")


def test_create_backend_refuses_cuda_without_a_gpu(default_gguf: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("local_agent.backends.probe_hardware", lambda: CPU_ONLY)
    with pytest.raises(BackendError, match="cuda"):
        create_backend(load_settings({"device": "cuda"}))
