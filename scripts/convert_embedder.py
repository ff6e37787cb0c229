#!/usr/bin/env python3
"""Make the llama.cpp memory embedder: convert the packaged all-MiniLM-L6-v2 to GGUF with
llama.cpp's own converter, check it against sentence-transformers, and place it in the models
folder beside the chat model, where the registry's checksum verifies it.

Idempotent: a GGUF already in place with the registry's checksum is kept. The converter and
its gguf-py come from the source distribution of the installed llama-cpp-python, downloaded
once with pip into --cache; nothing is read from a model hub (HF_HUB_OFFLINE=1).
Prints one line; exits non-zero with a one-line error on failure.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from local_agent.backends.probe import physical_cores
from local_agent.config import load_settings
from local_agent.errors import LocalAgentError, ModelError
from local_agent.memory.index.embedder import default_model_path
from local_agent.memory.index.embedder_check import check
from local_agent.memory.index.gguf_embedder import embedding_entry
from local_agent.models import sha256_file
from local_agent.process.files import atomic_write_stream

# f16 embeds like float32 on the check's sample (cosine 0.99999+ either way) at half the size,
# and the checksum verified at every start reads half as much.
OUTTYPE = "f16"
CONVERTER_PARTS = ("convert_hf_to_gguf.py", "conversion/", "gguf-py/")
DEFAULT_CACHE = Path.home() / ".cache" / "local-agent" / "sdist"


def llama_sdist(cache: Path) -> Path:
    """The installed llama-cpp-python's source distribution, downloaded into `cache` once."""
    version = importlib.metadata.version("llama-cpp-python")
    target = cache / f"llama_cpp_python-{version}.tar.gz"
    if target.is_file():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".download-") as tmp:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                   "--disable-pip-version-check", "--dest", tmp, f"llama-cpp-python=={version}"]
        _run(command, f"downloading the llama-cpp-python {version} source with pip")
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


def convert(converter: Path, folder: Path, out: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_LOCAL_GGUF"}  # use its own gguf-py
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    command = [sys.executable, str(converter), str(folder), "--outfile", str(out), "--outtype", OUTTYPE]
    _run(command, f"converting {folder.name} to GGUF", env=env)


def _run(command: list[str], what: str, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if result.returncode != 0:
        lines = [line for line in (result.stderr or result.stdout).splitlines() if line.strip()]
        raise ModelError(f"{what} failed: {lines[-1].strip() if lines else f'exit status {result.returncode}'}")


def make_embedder(models_dir: Path, cache: Path) -> str:
    """Place the checked GGUF in `models_dir`; returns what was done, for the one line printed."""
    entry = embedding_entry(models_dir)
    if entry is None:
        return "the model registry names no embedding model, skipped"
    target = models_dir / entry.file
    if target.is_file() and sha256_file(target) == entry.sha256:
        return f"{entry.name}: present ({target})"
    sdist = llama_sdist(cache)
    models_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=models_dir, prefix=".convert-") as tmp:
        out = Path(tmp) / entry.file
        convert(extract_converter(sdist, Path(tmp)), default_model_path(), out)
        worst = check(out, threads=physical_cores())
        digest = sha256_file(out)
        if digest != entry.sha256:
            raise ModelError(f"{entry.file} converted here has sha256 {digest}, the registry expects {entry.sha256}")
        with open(out, "rb") as source:
            atomic_write_stream(target, source, mode=0o644, private_folder=False)
    return f"{entry.name}: converted and checked, lowest cosine {worst:.6f} against sentence-transformers ({target})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="where the llama-cpp-python source is kept")
    args = parser.parse_args(argv)
    try:
        print(make_embedder(load_settings().models_dir, args.cache))
    except LocalAgentError as exc:
        print(f"convert_embedder: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
