"""Random-weight stand-ins for the registry's model families, built where their real files
cannot be fetched: the architecture's config (full size, or tiny for tests), freshly
initialized weights, and the SmolLM2 tokenizer the install derives (their own tokenizers cannot
be had offline) given the family's chat template and special tokens.

Speed depends on the shapes, not the weight values, so a full-size stand-in measures what the
real model would (scripts/bench_models.py); a tiny one runs every backend in the tests. The
answers of either mean nothing: they need the real weights.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# -- chat templates, as each family's tokenizer_config.json has them (tools left out) ----------
LLAMA3_TEMPLATE = (
    "{{- bos_token }}{%- for message in messages %}"
    "{{- '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + message['content'] | trim"
    " + '<|eot_id|>' }}{%- endfor %}"
    "{%- if add_generation_prompt %}{{- '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{%- endif %}"
)
ZEPHYR_TEMPLATE = (  # TinyLlama-1.1B-Chat
    "{% for message in messages %}"
    "{% if message['role'] == 'user' %}{{ '<|user|>\\n' + message['content'] + eos_token }}"
    "{% elif message['role'] == 'system' %}{{ '<|system|>\\n' + message['content'] + eos_token }}"
    "{% elif message['role'] == 'assistant' %}{{ '<|assistant|>\\n' + message['content'] + eos_token }}{% endif %}"
    "{% if loop.last and add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}{% endfor %}"
)
QWEN2_TEMPLATE = (
    "{%- if messages[0]['role'] == 'system' %}{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' }}"
    "{%- else %}{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant."
    "<|im_end|>\\n' }}{%- endif %}"
    "{%- for message in messages %}{%- if (message.role == 'user') or (message.role == 'system' and not loop.first)"
    " or (message.role == 'assistant') %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>'"
    " + '\\n' }}{%- endif %}{%- endfor %}{%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}{%- endif %}"
)
GEMMA3_TEMPLATE = (  # the system message joins the first user turn; roles must alternate
    "{{ bos_token }}{%- if messages[0]['role'] == 'system' -%}"
    "{%- set first_user_prefix = messages[0]['content'] + '\\n\\n' -%}{%- set loop_messages = messages[1:] -%}"
    "{%- else -%}{%- set first_user_prefix = '' -%}{%- set loop_messages = messages -%}{%- endif -%}"
    "{%- for message in loop_messages -%}{%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}"
    "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{%- endif -%}"
    "{%- if (message['role'] == 'assistant') -%}{%- set role = 'model' -%}{%- else -%}"
    "{%- set role = message['role'] -%}{%- endif -%}"
    "{{ '<start_of_turn>' + role + '\\n' + (first_user_prefix if loop.first else '') }}"
    "{{ message['content'] | trim }}{{ '<end_of_turn>\\n' }}{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<start_of_turn>model\\n' }}{%- endif -%}"
)


@dataclass(frozen=True)
class Family:
    """A chat model family: its template and the special tokens its tokenizer has."""

    template: str
    bos: str | None
    eos: str  # the end of an assistant turn
    pad: str
    extra: tuple[str, ...] = ()  # other special tokens the template writes
    stops: tuple[str, ...] = ()  # further end-of-generation tokens (generation_config.eos_token_id)
    # llama.cpp's name for how transformers splits the stand-in's text, where the converter does
    # not recognize the tokenizer: SmolLM2's own byte-level split, unless the family has its own
    pre_tokenizer: str = "smollm"


FAMILIES = {
    "llama3": Family(LLAMA3_TEMPLATE, "<|begin_of_text|>", "<|eot_id|>", "<|end_of_text|>",
                     ("<|start_header_id|>", "<|end_header_id|>"), ("<|end_of_text|>",)),
    # TinyLlama's <s> and </s> are SmolLM2's <|im_start|> and <|im_end|> here: no new tokens, so
    # that the vocabulary can shrink to TinyLlama's 32,000
    "zephyr": Family(ZEPHYR_TEMPLATE, "<|im_start|>", "<|im_end|>", "<|im_end|>"),
    # transformers always splits a qwen2 model's text the Qwen way (Qwen2Tokenizer)
    "qwen2": Family(QWEN2_TEMPLATE, None, "<|im_end|>", "<|endoftext|>", ("<|im_start|>",), ("<|endoftext|>",),
                    "qwen2"),
    "smollm2": Family("", "<|im_start|>", "<|im_end|>", "<|im_end|>"),  # the tokenizer's own template
    "gemma3": Family(GEMMA3_TEMPLATE, "<bos>", "<end_of_turn>", "<pad>", ("<start_of_turn>",), ("<eos>",)),
}


@dataclass(frozen=True)
class Shape:
    """An architecture: the transformers config class and its values (vocab_size included)."""

    family: str
    config: dict[str, Any] = field(default_factory=dict)


def write_tokenizer(source: Path, family: Family, out: Path, vocab_size: int | None = None) -> int:
    """Save the tokenizer of `source` to `out` with `family`'s template and special tokens,
    padded with unused tokens to `vocab_size` when given. Returns the tokenizer's length."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(source, local_files_only=True)
    specials = [t for t in (family.bos, family.eos, family.pad, *family.extra, *family.stops) if t]
    tokenizer.add_special_tokens({"additional_special_tokens": list(dict.fromkeys(specials))})
    tokenizer.bos_token, tokenizer.eos_token, tokenizer.pad_token = family.bos, family.eos, family.pad
    if family.template:
        tokenizer.chat_template = family.template
    tokenizer.save_pretrained(out)
    if vocab_size is not None and vocab_size != len(tokenizer):
        _resize_vocabulary(out / "tokenizer.json", len(tokenizer), vocab_size)
        return vocab_size
    return len(tokenizer)


def _resize_vocabulary(path: Path, size: int, wanted: int) -> None:
    """Give the tokenizer the real model's vocabulary size, which the converter and llama.cpp
    check the embedding against: unused tokens in the BPE vocabulary itself (as added tokens, a
    quarter of a million of them would make tokenizing slow), or the last merges left out."""
    data = json.loads(path.read_text(encoding="utf-8"))
    model = data["model"]
    if wanted > size:
        model["vocab"].update({f"<unused_{i}>": i for i in range(size, wanted)})
    else:
        if any(token["id"] >= wanted for token in data["added_tokens"]):
            raise ValueError(f"cannot shrink {path} to {wanted} tokens: a special token lies beyond")
        model["vocab"] = {token: i for token, i in model["vocab"].items() if i < wanted}
        model["merges"] = [m for m in model["merges"] if _merge_kept(m, model["vocab"])]
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def _merge_kept(merge: str | list[str], vocab: dict[str, int]) -> bool:
    left, right = merge.split(" ", 1) if isinstance(merge, str) else merge
    return left in vocab and right in vocab and left + right in vocab


def random_weight_folder(shape: Shape, tokenizer_source: Path, out: Path, dtype: str = "float32",
                         seed: int = 0) -> Path:
    """A Hugging Face folder of `shape` with random weights and the family's tokenizer. A
    vocab_size in the shape is kept (the tokenizer is padded to it); without one the model
    takes the tokenizer's length."""
    import torch
    import transformers
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, GenerationConfig

    transformers.logging.disable_progress_bar()
    family = FAMILIES[shape.family]
    size = write_tokenizer(tokenizer_source, family, out, shape.config.get("vocab_size"))
    tokenizer = AutoTokenizer.from_pretrained(out, local_files_only=True)
    ids = {name: tokenizer.convert_tokens_to_ids(token) for name, token in
           (("bos_token_id", family.bos), ("eos_token_id", family.eos), ("pad_token_id", family.pad)) if token}
    values = {"vocab_size": size, **shape.config, **ids}
    config = AutoConfig.for_model(**values)
    torch.manual_seed(seed)
    model = AutoModelForCausalLM.from_config(config, dtype=getattr(torch, dtype))
    stops = [ids["eos_token_id"], *tokenizer.convert_tokens_to_ids(list(family.stops))]
    model.generation_config = GenerationConfig(eos_token_id=stops, pad_token_id=ids["pad_token_id"],
                                               bos_token_id=ids.get("bos_token_id"))
    model.save_pretrained(out, safe_serialization=True)
    _keep_chat_template(out, family)
    return out


def _keep_chat_template(out: Path, family: Family) -> None:
    """transformers 5 writes the template to chat_template.jinja; llama.cpp's converter reads it
    from there or from tokenizer_config.json, and older readers only from the latter."""
    config_path = out / "tokenizer_config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    if family.template and "chat_template" not in config:
        config["chat_template"] = family.template
        config_path.write_text(json.dumps(config, indent=1), encoding="utf-8")


# -- the registry's GGUF models at full size (their hub config.json values) -------------------
_SMOLLM2_360M = {"model_type": "llama", "hidden_size": 960, "intermediate_size": 2560, "num_hidden_layers": 32,
                 "num_attention_heads": 15, "num_key_value_heads": 5, "vocab_size": 49152,
                 "max_position_embeddings": 8192, "rope_theta": 100000.0, "tie_word_embeddings": True}
_SMOLLM2_1_7B = {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 24,
                 "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 49152,
                 "max_position_embeddings": 8192, "rope_theta": 130000.0, "tie_word_embeddings": True}
_QWEN2_5_0_5B = {"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24,
                 "num_attention_heads": 14, "num_key_value_heads": 2, "vocab_size": 151936,
                 "max_position_embeddings": 32768, "rope_theta": 1000000.0, "tie_word_embeddings": True}
_QWEN2_5_1_5B = {**_QWEN2_5_0_5B, "hidden_size": 1536, "intermediate_size": 8960, "num_hidden_layers": 28,
                 "num_attention_heads": 12}
_TINYLLAMA = {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 22,
              "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 32000,
              "max_position_embeddings": 2048, "rope_theta": 10000.0, "tie_word_embeddings": False}
_LLAMA3_2_1B = {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
                "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "vocab_size": 128256,
                "max_position_embeddings": 131072, "rope_theta": 500000.0, "tie_word_embeddings": True,
                "rope_scaling": {"rope_type": "llama3", "factor": 32.0, "low_freq_factor": 1.0,
                                 "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}}
_GEMMA3_1B = {"model_type": "gemma3_text", "hidden_size": 1152, "intermediate_size": 6912, "num_hidden_layers": 26,
              "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 256, "vocab_size": 262144,
              "max_position_embeddings": 32768, "sliding_window": 512, "query_pre_attn_scalar": 256,
              "tie_word_embeddings": True,
              "layer_types": ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(26)]}

FULL_SIZE = {
    "tinyllama-1.1b-chat-q4_k_m": Shape("zephyr", _TINYLLAMA),
    "qwen2.5-0.5b-instruct-q4_k_m": Shape("qwen2", _QWEN2_5_0_5B),
    "qwen2.5-1.5b-instruct-q4_k_m": Shape("qwen2", _QWEN2_5_1_5B),
    "smollm2-360m-instruct-q4_k_m": Shape("smollm2", _SMOLLM2_360M),
    "smollm2-1.7b-instruct-q4_k_m": Shape("smollm2", _SMOLLM2_1_7B),
    "llama-3.2-1b-instruct-q4_k_m": Shape("llama3", _LLAMA3_2_1B),
    "gemma-3-1b-it-q4_k_m": Shape("gemma3", _GEMMA3_1B),
}
