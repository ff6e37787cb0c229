"""Hostile copies of the tiny random-weight models (tests/tiny_models.py): a GGUF with some of
its metadata replaced (gguf-py's own gguf_new_metadata copier), or a Hugging Face folder
with a new chat template or config values. What `ask` does with each is tested in
tests/test_hostile_models.py."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import gguf
from gguf import GGUFValueType as Kind
from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata

ROOT = Path(__file__).resolve().parent.parent


class _EmptyArraysWriter(gguf.GGUFWriter):
    """gguf-py refuses to write an empty array; a hostile file has one."""

    def _pack_val(self, val: Any, vtype: Kind, add_vtype: bool, sub_type: Kind | None = None) -> bytes:
        if vtype == Kind.ARRAY and len(val) == 0 and sub_type is not None:
            kind = self._pack("I", vtype) if add_vtype else b""
            return kind + self._pack("I", sub_type) + self._pack("Q", 0)
        return super()._pack_val(val, vtype, add_vtype, sub_type)


def gguf_with(source: Path, out: Path, values: dict[str, tuple[Kind, Any]], remove: tuple[str, ...] = (),
              item_kind: Kind | None = None) -> Path:
    """A copy of `source` with `values` (key: (type, value)) set and the `remove` keys left out."""
    reader = gguf.GGUFReader(source)
    arch = reader.get_field(gguf.Keys.General.ARCHITECTURE).contents()
    writer = _EmptyArraysWriter(out, arch=arch, endianess=reader.endianess)
    new = {key: MetadataDetails(kind, value, sub_type=item_kind if kind == Kind.ARRAY else None)
           for key, (kind, value) in values.items()}
    copy_with_new_metadata(reader, writer, new, list(remove))
    return out


def hf_folder_with(source: Path, out: Path, *, template: str | None = None,
                   config: dict[str, Any] | None = None) -> Path:
    """A copy of the Hugging Face folder `source` with another chat template (in both places
    transformers reads one from) or other config.json values."""
    shutil.copytree(source, out)
    if template is not None:
        (out / "chat_template.jinja").write_text(template, encoding="utf-8")
        settings = json.loads((out / "tokenizer_config.json").read_text(encoding="utf-8"))
        settings["chat_template"] = template
        (out / "tokenizer_config.json").write_text(json.dumps(settings), encoding="utf-8")
    if config:
        values = json.loads((out / "config.json").read_text(encoding="utf-8"))
        (out / "config.json").write_text(json.dumps({**values, **config}), encoding="utf-8")
    return out


def ask(model: Path, data_dir: Path, *flags: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`local-agent ask` in its own process, as a user runs it, with no memory and a short answer."""
    command = [sys.executable, "-m", "local_agent", "ask", "--no-server", "--no-memory", "--max-tokens", "4",
               "--model", str(model), "--data-dir", str(data_dir), *flags, "What is the capital of France?"]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
