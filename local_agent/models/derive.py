"""The transformers copy of a GGUF: a Hugging Face folder derived once from it (dequantized
to float32 safetensors, with the tokenizer and its chat template)."""

from __future__ import annotations

import copy
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from ..errors import BackendError, ModelError
from ..process.files import fsync_dir
from .derived import RECORD as DERIVED_RECORD
from .derived import identity
from .modes import make_readable
from .resolve import ModelSpec


def hf_folder_ready(folder: Path | None) -> bool:
    return folder is not None and (folder / "config.json").is_file() and any(folder.glob("*.safetensors"))


def ensure_hf_folder(spec: ModelSpec, notice: bool = True) -> Path:
    """The Hugging Face folder the transformers backends load, derived once from the GGUF
    (dequantized to float32 safetensors, with the tokenizer and its chat template).
    A folder already there that is not a complete model is left alone (ModelError).

    Takes about a minute, so `make install` does it ahead of time; here it runs lazily with a
    notice on stderr. The folder appears atomically (built in a temp dir, then renamed).
    """
    if hf_folder_ready(spec.hf_folder):
        return spec.hf_folder  # type: ignore[return-value]
    if spec.hf_folder is None or spec.gguf_path is None:
        raise ModelError(f"model {spec.name} has no Hugging Face folder for the transformers backends")
    from filelock import FileLock

    folder = spec.hf_folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder.parent / f".{folder.name}.lock")):
        if hf_folder_ready(folder):  # another process derived it while we waited
            return folder
        if folder.exists() or folder.is_symlink():  # not ours to delete: the user's, or another model's
            raise ModelError(f"{folder} is in the way of the transformers copy of {spec.gguf_path.name} (it has no "
                             "config.json or no .safetensors); local-agent deletes nothing it did not make: "
                             "move it away and run again")
        if notice:
            print(f"Converting {spec.gguf_path.name} into {folder} for the transformers backends "
                  "(once, about a minute)...", file=sys.stderr, flush=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
        try:
            _derive_hf_folder(spec.gguf_path, tmp)
            (tmp / DERIVED_RECORD).write_text(json.dumps(identity(spec.gguf_path)) + "\n", encoding="utf-8")
            make_readable(tmp)
            os.replace(tmp, folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        fsync_dir(folder.parent)
    return folder


def _derive_hf_folder(gguf_path: Path, out: Path) -> None:
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig
    except ImportError as exc:
        raise BackendError(f"converting a GGUF needs torch and transformers ({exc.name} is missing): "
                           "pip install torch transformers gguf") from None
    source = dict(pretrained_model_name_or_path=str(gguf_path.parent), gguf_file=gguf_path.name)
    tokenizer = AutoTokenizer.from_pretrained(**source)
    loaded = AutoModelForCausalLM.from_pretrained(
        **source, dtype=torch.float32, quantization_config=GgufConfig(dequantize=True)
    )
    # A GGUF-loaded model carries its quantizer and refuses save_pretrained, so copy its
    # (dequantized) weights into a plain model built from the same config.
    config = copy.deepcopy(loaded.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    plain.load_state_dict(loaded.state_dict(), strict=True)
    plain.tie_weights()
    plain.generation_config = loaded.generation_config
    plain.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    saved = AutoTokenizer.from_pretrained(out, local_files_only=True)
    if tokenizer.chat_template and saved.chat_template != tokenizer.chat_template:
        raise ModelError(f"converting {gguf_path.name}: the saved tokenizer lost its chat template")
