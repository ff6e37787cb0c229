#!/usr/bin/env python3
"""Make the llama.cpp memory embedder: convert the packaged all-MiniLM-L6-v2 to GGUF with
llama.cpp's own converter, check it against sentence-transformers, and place it in the models
folder beside the chat model, where the registry's checksum verifies it.

Idempotent: a GGUF already in place with the registry's checksum is kept. The converter and
its gguf-py come from the source distribution of the installed llama-cpp-python, downloaded
once with pip into --cache. With --cache (as `make install` runs it), the source is fetched
even when the embedder is already in place, and where it is is recorded in this environment:
the converter finds it there whatever HOME is later (tests/tiny_models.py). Nothing is read
from a model hub (HF_HUB_OFFLINE=1).
Prints one line; exits non-zero with a one-line error on failure.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from local_agent.backends.probe import physical_cores
from local_agent.config import load_settings
from local_agent.errors import LocalAgentError, ModelError
from local_agent.memory.index.embedder import default_model_path
from local_agent.memory.index.embedder_check import check
from local_agent.memory.index.gguf_embedder import embedding_entry
from local_agent.models import sha256_file
from local_agent.models.gguf_convert import convert, extract_converter, llama_sdist, record_sdist
from local_agent.process.files import atomic_write_stream

# f16 embeds like float32 on the check's sample (cosine 0.99999+ either way) at half the size,
# and the checksum verified at every start reads half as much.
OUTTYPE = "f16"


def make_embedder(models_dir: Path, cache: Path | None) -> str:
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
        convert(extract_converter(sdist, Path(tmp)), default_model_path(), out, OUTTYPE)
        worst = check(out, threads=physical_cores())
        digest = sha256_file(out)
        if digest != entry.sha256:
            raise ModelError(f"{entry.file} converted here has sha256 {digest}, the registry expects {entry.sha256}")
        with open(out, "rb") as source:
            atomic_write_stream(target, source, mode=0o644, private_folder=False)
    return f"{entry.name}: converted and checked, lowest cosine {worst:.6f} against sentence-transformers ({target})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=None,
                        help="where to keep the llama-cpp-python source, and record it there (default: where "
                             "the install recorded it, else ~/.cache/local-agent/sdist)")
    args = parser.parse_args(argv)
    try:
        if args.cache is not None:
            record_sdist(llama_sdist(args.cache))
        print(make_embedder(load_settings().models_dir, args.cache))
    except LocalAgentError as exc:
        print(f"convert_embedder: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
