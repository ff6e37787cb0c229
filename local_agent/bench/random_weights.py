"""--random-weights: a copy of the model with freshly initialized weights; and random-weight
GGUFs of the registry's bigger models (scripts/bench_models.py), which cannot be fetched here."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from ..config import Settings
from ..errors import InputError
from .measure import run_in_child
from .model_shapes import FAMILIES, Shape, random_weight_folder
from .plan import BenchPlan


def config_folder(settings: Settings) -> Path:
    """The Hugging Face folder (config.json + tokenizer) of `settings.model`: the folder
    itself, or the registry model's derived folder. Its weights need not be there."""
    from ..models import load_registry

    path = Path(settings.model).expanduser()
    if not path.is_dir():
        entry = load_registry(settings.models_dir).get(settings.model)
        if entry is None or not entry.hf_folder:
            raise InputError(f"--random-weights needs a model folder or a registry model with an hf_folder; "
                             f"{settings.model!r} is neither")
        path = Path(settings.models_dir) / entry.hf_folder
    if not (path / "config.json").is_file():
        raise InputError(f"--random-weights: {path} has no config.json")
    return path


def random_weight_model(source: Path, out: Path) -> str:
    """Write to `out` a model with the architecture and tokenizer of `source` and freshly
    initialized weights (generation speed does not depend on weight values), so that the
    transformers runtimes can be measured where the real weights are not. Returns `out`."""
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    transformers.logging.disable_progress_bar()
    config = AutoConfig.from_pretrained(source, local_files_only=True)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    model.save_pretrained(out, safe_serialization=True)
    AutoTokenizer.from_pretrained(source, local_files_only=True).save_pretrained(out)
    return str(out)


@contextlib.contextmanager
def model_for_plan(settings: Settings, plan: BenchPlan) -> Iterator[Settings]:
    """`settings`, pointed at a random-weight copy of the model when the plan asks for one."""
    if not plan.random_weights:
        yield settings
        return
    source = config_folder(settings)
    with tempfile.TemporaryDirectory(prefix="local-agent-bench-model-") as tmp:
        out = Path(tmp) / f"{source.name}-random"
        yield replace(settings, model=run_in_child(random_weight_model, source, out))


def random_weight_gguf(shape: Shape, tokenizer_source: Path, out: Path, quant: str = "Q4_K_M") -> Path:
    """A GGUF of `shape` with random weights (model_shapes.py), quantized with llama.cpp's
    `llama_model_quantize` as the published files are: what llama.cpp runs, at the real size,
    where the real file cannot be fetched. Built in a folder beside `out`, removed after."""
    from ..models.gguf_convert import Conversion, convert_stand_ins, quantize

    with tempfile.TemporaryDirectory(prefix=".random-", dir=out.parent) as tmp:
        folder = random_weight_folder(shape, tokenizer_source, Path(tmp) / "hf", dtype="bfloat16")
        f16 = Path(tmp) / "f16.gguf"
        convert_stand_ins([Conversion(folder, f16, "f16", FAMILIES[shape.family].pre_tokenizer)])
        quantize(f16, Path(tmp) / out.name, quant)
        (Path(tmp) / out.name).replace(out)
    return out
