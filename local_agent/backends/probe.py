"""What this machine can run, and which backend/device to use for a model.

The probe never fails: a missing library just reads as "not available". torch and
bitsandbytes are imported only when a GPU could be there, since importing them costs
seconds that the llama.cpp path does not need.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..config import Settings
from ..errors import BackendError
from ..models import ModelSpec
from ..types import BACKEND_NAMES
from .gguf_check import MAX_CONTEXT_LENGTH

log = logging.getLogger(__name__)

DEVICES = ("cpu", "cuda")


@dataclass(frozen=True)
class HardwareInfo:
    cpu_cores: int  # physical cores
    ram_gb: float
    cuda_available: bool = False
    cuda_device_name: str | None = None
    cuda_memory_gb: float | None = None
    # bitsandbytes can run 4-bit layers on the CUDA GPU (only checked when there is one;
    # elsewhere: whether it is installed, since bitsandbytes also runs 4-bit on CPU).
    bitsandbytes_ok: bool = False
    llama_gpu_offload: bool = False  # this llama.cpp build can offload layers to a GPU

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class BackendChoice:
    backend: str
    device: str
    reason: str


# -- probing --------------------------------------------------------------------------------
def probe_hardware() -> HardwareInfo:
    cores, ram_gb = _cpu_and_ram()
    cuda_name, cuda_gb = _cuda_device() if _gpu_driver_present() else (None, None)
    cuda = cuda_name is not None
    return HardwareInfo(
        cpu_cores=cores,
        ram_gb=ram_gb,
        cuda_available=cuda,
        cuda_device_name=cuda_name,
        cuda_memory_gb=cuda_gb,
        bitsandbytes_ok=_bitsandbytes_cuda_ok() if cuda else _installed("bitsandbytes"),
        llama_gpu_offload=_llama_gpu_offload(),
    )


def physical_cores() -> int:
    try:
        import psutil

        return psutil.cpu_count(logical=False) or os.cpu_count() or 1
    except ImportError:
        return os.cpu_count() or 1


def _cpu_and_ram() -> tuple[int, float]:
    try:
        import psutil

        ram = psutil.virtual_memory().total
    except ImportError:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") if hasattr(os, "sysconf") else 0
    return physical_cores(), round(ram / 2**30, 1)


def cuda_usable() -> bool:
    """Whether torch sees a CUDA GPU; torch is imported only where a GPU driver is."""
    return _gpu_driver_present() and _cuda_device()[0] is not None


def _gpu_driver_present() -> bool:
    """False only when a Linux machine clearly has no GPU driver, which spares importing torch."""
    if not sys.platform.startswith("linux"):
        return True
    return any(Path(p).exists() for p in ("/proc/driver/nvidia", "/dev/nvidia0", "/dev/nvidiactl", "/dev/kfd"))


def _cuda_device() -> tuple[str | None, float | None]:
    try:
        import torch

        if not torch.cuda.is_available():
            return None, None
        props = torch.cuda.get_device_properties(0)
        return props.name, round(props.total_memory / 2**30, 1)
    except (ImportError, RuntimeError, AssertionError):
        return None, None


def _bitsandbytes_cuda_ok() -> bool:
    try:
        logging.getLogger("bitsandbytes").setLevel(logging.ERROR)
        from bitsandbytes import cextension
    except (ImportError, RuntimeError, OSError):
        return False
    return cextension.BNB_BACKEND == "CUDA" and not isinstance(
        cextension.lib, cextension.ErrorHandlerMockBNBNativeLibrary
    )


def _llama_gpu_offload() -> bool:
    try:
        import llama_cpp

        return bool(llama_cpp.llama_supports_gpu_offload())
    except (ImportError, OSError, AttributeError):
        return False


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# -- choosing -------------------------------------------------------------------------------
def context_size(settings: Settings, model: ModelSpec) -> int:
    """The context window to load `model` with: --ctx-size (2048 by default), never past the
    model's own window. A 131k-token window would take gigabytes of KV cache, so a bigger
    context is only ever what --ctx-size asks for. A window that is not a number of tokens
    a model could have (0, or 2^40) is taken as unknown (gguf_check.py says so)."""
    if not 0 < model.context_length <= MAX_CONTEXT_LENGTH:
        log.warning("%s states a context length of %s tokens; %s (--ctx-size) is used", model.gguf_path
                    or model.hf_folder or model.name, f"{model.context_length:,}", f"{settings.ctx_size:,}")
        return settings.ctx_size
    return min(settings.ctx_size, model.context_length)


def choose_backend(hw: HardwareInfo, model: ModelSpec, backend: str = "auto", device: str = "auto") -> BackendChoice:
    """Pick the runtime and device for `model`: honour explicit requests or reject them with
    a BackendError, and for `auto` take the fastest option this machine supports."""
    if backend not in ("auto", *BACKEND_NAMES):
        raise BackendError(f"unknown backend {backend!r} (choose auto, {', '.join(BACKEND_NAMES)})")
    if device not in ("auto", *DEVICES):
        raise BackendError(f"unknown device {device!r} (choose auto, cpu, cuda)")
    if device == "cuda" and not hw.cuda_available:
        raise BackendError("--device cuda was requested but no CUDA GPU is usable here (use --device cpu or auto)")
    if backend == "auto":
        return _auto_backend(hw, model, device)
    return _explicit_backend(hw, model, backend, device)


def _auto_backend(hw: HardwareInfo, model: ModelSpec, device: str) -> BackendChoice:
    gpu = f"CUDA GPU {hw.cuda_device_name}"
    gpu_here = device != "cpu" and hw.cuda_available
    if gpu_here and hw.bitsandbytes_ok and model.hf_folder:
        return BackendChoice("transformers-4bit", "cuda",
                             f"{gpu} found and bitsandbytes usable: 4-bit NF4 with bfloat16 compute")
    if gpu_here and model.gguf_path and hw.llama_gpu_offload:
        why = "bitsandbytes is not usable" if model.hf_folder else "the model is a GGUF only"
        return BackendChoice("llama-cpp", "cuda",
                             f"{gpu} found but {why}: llama.cpp runs the GGUF with all layers offloaded to the GPU")
    if gpu_here and model.hf_folder:
        return BackendChoice("transformers", "cuda",
                             f"{gpu} found but bitsandbytes is not usable: transformers in bfloat16 on the GPU")
    why = "CPU requested" if device == "cpu" else ("no CUDA GPU" if not hw.cuda_available else
                                                  f"{gpu} found but the model is a GGUF only")
    if model.gguf_path:
        return BackendChoice("llama-cpp", "cpu", f"{why}: llama.cpp runs the GGUF fastest on CPU")
    return BackendChoice("transformers", "cpu", f"{why} and the model has no GGUF: transformers in float32 on CPU")


def _explicit_backend(hw: HardwareInfo, model: ModelSpec, backend: str, device: str) -> BackendChoice:
    if backend == "llama-cpp":
        if model.gguf_path is None:
            other = (f"pull its GGUF (`local-agent models pull {model.other_format}`) or use "
                     if model.other_format else "use ")
            raise BackendError(f"the llama-cpp backend needs a .gguf file and model {model.name} has none "
                               f"({other}--backend transformers)")
        if device == "cuda" and not hw.llama_gpu_offload:
            raise BackendError("this llama-cpp-python build has no GPU offload; "
                               "rebuild it with CUDA or use --device cpu")
        chosen = device if device != "auto" else ("cuda" if hw.cuda_available and hw.llama_gpu_offload else "cpu")
        where = "all layers offloaded to the GPU" if chosen == "cuda" else "on CPU"
        return BackendChoice("llama-cpp", chosen, f"llama-cpp requested: the GGUF runs {where}")
    if model.hf_folder is None:
        other = (f" (pull its folder: `local-agent models pull {model.other_format}`)"
                 if model.other_format else " (use --backend llama-cpp)")
        raise BackendError(f"the {backend} backend needs a Hugging Face model folder and model {model.name} "
                           f"has none{other}")
    chosen = device if device != "auto" else ("cuda" if hw.cuda_available else "cpu")
    if backend == "transformers-4bit":
        if chosen == "cuda" and not hw.bitsandbytes_ok:
            raise BackendError("transformers-4bit on cuda needs a working bitsandbytes CUDA build: "
                               "pip install -U bitsandbytes")
        if chosen == "cpu" and not hw.bitsandbytes_ok:
            raise BackendError("transformers-4bit needs bitsandbytes: pip install 'local-agent[gpu]'")
        return BackendChoice(backend, chosen,
                             f"transformers-4bit requested: 4-bit NF4 with bfloat16 compute on {chosen}")
    dtype = "bfloat16" if chosen == "cuda" else "float32"
    return BackendChoice(backend, chosen, f"transformers requested: {dtype} on {chosen}")
