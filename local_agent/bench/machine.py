"""The machine a benchmark ran on: platform, CPU, hardware probe, load, library versions."""

from __future__ import annotations

import importlib.metadata
import os
import platform
from pathlib import Path
from typing import Any


def machine_description() -> dict[str, Any]:
    from ..backends.probe import probe_hardware

    hardware = probe_hardware().to_dict()
    return {"platform": platform.platform(), "processor": _cpu_model(), "python": platform.python_version(),
            "logical_cpus": os.cpu_count(), **hardware, "load_average_at_start": load_average(),
            "libraries": _library_versions()}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def load_average() -> list[float] | None:
    try:
        return [round(value, 2) for value in os.getloadavg()]
    except OSError:
        return None


def _library_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in ("llama-cpp-python", "torch", "transformers", "bitsandbytes", "sentence-transformers",
                 "faiss-cpu", "bm25s"):
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions
