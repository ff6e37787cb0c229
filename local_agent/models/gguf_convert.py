"""llama.cpp's own GGUF converter and quantizer, as the install already has them.

The converter (`convert_hf_to_gguf.py`, its `conversion/` package and gguf-py) comes from the
source distribution of the installed llama-cpp-python, which `make install` keeps in
~/.cache/local-agent/sdist (scripts/convert_embedder.py makes the memory embedder with it, and
records where the archive is in the environment it installed, `SDIST_RECORD`: it is found
there whatever HOME is when it is used).
The quantizer is llama.cpp's `llama_model_quantize`, through llama-cpp-python. Nothing here
reads a model hub: the converter runs with HF_HUB_OFFLINE=1.
"""

from __future__ import annotations

import importlib.metadata
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError
from ..process.files import atomic_write_stream
from .modes import public_file_mode

CONVERTER_PARTS = ("convert_hf_to_gguf.py", "conversion/", "gguf-py/")
# Where `make install` put the source archive, kept in the environment it installed.
SDIST_RECORD = Path(sys.prefix) / "local-agent-llama-sdist.json"
FETCH_COMMAND = "make install (scripts/convert_embedder.py)"
QUANT_TYPES = {"Q4_K_M": "LLAMA_FTYPE_MOSTLY_Q4_K_M", "Q4_1": "LLAMA_FTYPE_MOSTLY_Q4_1",
               "Q8_0": "LLAMA_FTYPE_MOSTLY_Q8_0"}


def default_cache() -> Path:
    """Where `make install` keeps the source by default (HOME as it is now)."""
    return Path.home() / ".cache" / "local-agent" / "sdist"


def sdist_name() -> str:
    return f"llama_cpp_python-{importlib.metadata.version('llama-cpp-python')}.tar.gz"


def sdist_path(cache: Path | None = None) -> Path:
    """Where the installed llama-cpp-python's source distribution is kept: in `cache` when
    one is given, else where the install recorded it, else in the default cache."""
    if cache is not None:
        return cache / sdist_name()
    recorded = recorded_sdist()
    return recorded if recorded is not None else default_cache() / sdist_name()


def recorded_sdist() -> Path | None:
    """The archive the install recorded, when it is of the installed version."""
    try:
        path = Path(json.loads(SDIST_RECORD.read_text(encoding="utf-8"))["path"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return path if path.name == sdist_name() else None


def record_sdist(path: Path) -> None:
    """Remember where the source archive is, in this environment (the venv `make install` made)."""
    body = json.dumps({"path": str(path.resolve())}) + "\n"
    try:
        atomic_write_stream(SDIST_RECORD, io.BytesIO(body.encode()), mode=public_file_mode(), private_folder=False)
    except OSError as exc:
        raise ModelError(f"cannot record where the llama-cpp-python source is in {SDIST_RECORD}: "
                         f"{exc.strerror or exc}") from None


def installed_sdist() -> Path:
    """The source archive `make install` kept, or ModelError naming the command that fetches it."""
    path = sdist_path()
    if not path.is_file():
        raise ModelError(f"the llama-cpp-python source is not at {path}; `{FETCH_COMMAND}` fetches it")
    return path


def llama_sdist(cache: Path | None = None) -> Path:
    """The installed llama-cpp-python's source distribution, downloaded once (pip) into
    `cache`, or where `sdist_path` says."""
    target = sdist_path(cache)
    if target.is_file():
        return target
    version = importlib.metadata.version("llama-cpp-python")
    cache = target.parent
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".download-") as tmp:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                   "--disable-pip-version-check", "--dest", tmp, f"llama-cpp-python=={version}"]
        run(command, f"downloading the llama-cpp-python {version} source with pip")
        found = list(Path(tmp).glob("llama_cpp_python-*.tar.gz"))
        if len(found) != 1:
            raise ModelError(f"pip download of the llama-cpp-python {version} source gave {len(found)} archives")
        os.replace(found[0], target)
    return target


def extract_converter(sdist: Path, into: Path) -> Path:
    """Unpack convert_hf_to_gguf.py with its `conversion` package and gguf-py; returns the script."""
    with tarfile.open(sdist) as archive:
        members = [m for m in archive.getmembers() if _converter_part(m.name)]
        archive.extractall(into, members=members, filter="data")
    scripts = list(into.glob("*/vendor/llama.cpp/convert_hf_to_gguf.py"))
    if len(scripts) != 1:
        raise ModelError(f"{sdist.name} has no vendor/llama.cpp/convert_hf_to_gguf.py")
    return scripts[0]


def _converter_part(name: str) -> bool:
    _, _, inside = name.partition("/vendor/llama.cpp/")
    return bool(inside) and inside.startswith(CONVERTER_PARTS)


def convert(converter: Path, folder: Path, out: Path, outtype: str = "f16") -> None:
    """Convert a Hugging Face model folder to a GGUF file with llama.cpp's converter."""
    command = [sys.executable, str(converter), str(folder), "--outfile", str(out), "--outtype", outtype]
    run(command, f"converting {folder.name} to GGUF", env=converter_env())


@dataclass(frozen=True)
class Conversion:
    folder: Path
    out: Path
    outtype: str = "f16"
    pre_tokenizer: str = ""  # the BPE pre-tokenizer, where the converter does not recognize it


def convert_stand_ins(jobs: list[Conversion]) -> None:
    """Convert random-weight stand-ins (bench/model_shapes.py) in one converter process (see
    converter_shim.py), with the converter unpacked from the source distribution the install
    kept: never downloaded here (ModelError when `make install` has not kept it)."""
    sdist = installed_sdist()
    specs = [{"args": [str(j.folder), "--outfile", str(j.out), "--outtype", j.outtype], "pre": j.pre_tokenizer}
             for j in jobs]
    with tempfile.TemporaryDirectory(prefix="local-agent-converter-") as tmp:
        converter = extract_converter(sdist, Path(tmp))
        command = [sys.executable, "-m", "local_agent.models.converter_shim", str(converter), json.dumps(specs)]
        run(command, f"converting {', '.join(j.folder.name for j in jobs)} to GGUF", env=converter_env())


def converter_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_LOCAL_GGUF"}  # use its own gguf-py
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return env


def quantize(source: Path, out: Path, quant: str = "Q4_K_M", threads: int = 0) -> Path:
    """Quantize a GGUF with llama.cpp's `llama_model_quantize`."""
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, QUANT_TYPES[quant])
    params.nthread = threads
    status = llama_cpp.llama_model_quantize(str(source).encode(), str(out).encode(), params)
    if status != 0:
        raise ModelError(f"llama_model_quantize could not make {quant} of {source.name} (status {status})")
    return out


def run(command: list[str], what: str, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        lines = [line for line in (result.stderr or result.stdout).splitlines() if line.strip()]
        raise ModelError(f"{what} failed: {lines[-1].strip() if lines else f'exit status {result.returncode}'}")
