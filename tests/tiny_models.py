"""Tiny random-weight models of each architecture in the registry (llama, qwen2, gemma3), built
once per test session: a Hugging Face folder made with transformers (a few layers, 64 wide) and
its GGUF, converted by llama.cpp's converter from the cached llama-cpp-python source. They
carry the SmolLM2 tokenizer the install derives, with each family's own chat template and
special tokens (bench/model_shapes.py). Their answers are noise; what they test is that every
backend loads and runs each architecture with its template."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from local_agent.bench.model_shapes import FAMILIES, Shape, random_weight_folder
from local_agent.config import CHECKOUT_MODELS_DIR
from local_agent.models.gguf_convert import Conversion, convert_stand_ins

TOKENIZER_SOURCE = CHECKOUT_MODELS_DIR / "smollm2-135m-instruct-hf"
_SMALL = {"hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2,
          "head_dim": 16, "num_hidden_layers": 2, "tie_word_embeddings": False}

SHAPES = {
    # Llama 3.2's window: the loader must not take it as the context size
    "llama": Shape("llama3", {"model_type": "llama", **_SMALL, "max_position_embeddings": 131072,
                              "rope_theta": 500000.0}),
    # a window below the default context size: the context follows the model's
    "qwen2": Shape("qwen2", {"model_type": "qwen2", **_SMALL, "max_position_embeddings": 1024}),
    # sliding-window attention on two of three layers, over 16 tokens
    "gemma3": Shape("gemma3", {"model_type": "gemma3_text", **_SMALL, "num_hidden_layers": 3,
                               "max_position_embeddings": 32768, "sliding_window": 16, "query_pre_attn_scalar": 16,
                               "layer_types": ["sliding_attention", "sliding_attention", "full_attention"]}),
}
MARKERS = {"llama": "<|start_header_id|>assistant<|end_header_id|>", "qwen2": "<|im_start|>assistant",
           "gemma3": "<start_of_turn>model"}  # how each family's template opens the answer


@dataclass(frozen=True)
class TinyModel:
    arch: str
    folder: Path  # Hugging Face folder: the transformers backends
    gguf: Path  # llama.cpp

    @property
    def window(self) -> int:
        return int(SHAPES[self.arch].config["max_position_embeddings"])


def build_tiny_models(root: Path) -> dict[str, TinyModel]:
    """Build every tiny model into `root` (the folders in this process, the GGUFs in one
    converter process)."""
    models = {arch: TinyModel(arch, root / arch, root / f"{arch}.gguf") for arch in SHAPES}
    for arch, model in models.items():
        random_weight_folder(SHAPES[arch], TOKENIZER_SOURCE, model.folder)
    convert_stand_ins([Conversion(m.folder, m.gguf, "f16", FAMILIES[SHAPES[a].family].pre_tokenizer)
                       for a, m in models.items()])
    return models
