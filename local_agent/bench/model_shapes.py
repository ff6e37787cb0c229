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
    pre_tokenizer: str = ""  # llama.cpp's name for how transformers splits text for this family


FAMILIES = {
    "llama3": Family(LLAMA3_TEMPLATE, "<|begin_of_text|>", "<|eot_id|>", "<|end_of_text|>",
                     ("<|start_header_id|>", "<|end_header_id|>"), ("<|end_of_text|>",)),
    "zephyr": Family(ZEPHYR_TEMPLATE, "<s>", "</s>", "</s>"),
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
    if vocab_size is not None and vocab_size > len(tokenizer):
        tokenizer.add_tokens([f"<unused_{i}>" for i in range(vocab_size - len(tokenizer))])
    tokenizer.save_pretrained(out)
    return len(tokenizer)


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
