"""The transformers runtimes: full precision (float32 on CPU, bfloat16 on CUDA) and 4-bit NF4
through bitsandbytes. Both share `_TransformersBackend`; each subclass only says how the
weights are loaded.

torch, transformers and bitsandbytes are imported here only, when a backend is built.
Weights load from a local folder of safetensors (never pickles, never a hub).
"""

from __future__ import annotations

import importlib
import logging
import threading
from abc import abstractmethod
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ..errors import BackendError, ModelError
from ..types import GenerationSettings, Message
from .base import TEMPLATE_MARKER, Backend, check_context
from .chat_template import ChatTemplate
from .generation import Usage

_OOM_HINT = ("CUDA ran out of memory; try --backend transformers-4bit, a smaller --ctx-size, "
             "or --device cpu")


def _import_torch_transformers() -> tuple[Any, Any]:
    try:
        import torch
        import transformers
    except ImportError as exc:
        raise BackendError(f"the transformers backends need {exc.name}: "
                           "pip install torch transformers accelerate") from None
    transformers.logging.set_verbosity_error()  # load reports and generation-flag warnings
    transformers.logging.disable_progress_bar()
    return torch, transformers


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _patch_legacy_tokenization_module() -> None:
    """lm-format-enforcer 0.11 imports PreTrainedTokenizerBase from transformers.tokenization_utils;
    in transformers 5 that name is a legacy alias module without the class. Add it there."""
    try:
        import transformers.tokenization_utils as legacy
        from transformers.tokenization_utils_base import PreTrainedTokenizerBase
    except ImportError:
        return
    if not hasattr(legacy, "PreTrainedTokenizerBase"):
        legacy.PreTrainedTokenizerBase = PreTrainedTokenizerBase


class _StopOnEvent:
    """A transformers stopping criterion that fires once the consumer has gone away."""

    def __init__(self, event: threading.Event, torch: Any) -> None:
        self.event = event
        self.torch = torch

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        stop = self.event.is_set()
        return self.torch.full((input_ids.shape[0],), stop, dtype=self.torch.bool, device=input_ids.device)


class _StopStrings:
    """Cuts streamed text at the first stop string, holding back only what could be the
    start of one, so a stop string never reaches the consumer (as with llama.cpp)."""

    def __init__(self, stops: Sequence[str]) -> None:
        self.stops = [s for s in stops if s]
        self.hold = max((len(s) for s in self.stops), default=1) - 1
        self.pending = ""
        self.hit = False

    def feed(self, text: str) -> str:
        self.pending += text
        cut = min((i for i in (self.pending.find(s) for s in self.stops) if i >= 0), default=-1)
        if cut >= 0:
            self.hit = True
            out, self.pending = self.pending[:cut], ""
            return out
        keep = min(self.hold, len(self.pending))
        out, self.pending = self.pending[: len(self.pending) - keep], self.pending[len(self.pending) - keep :]
        return out

    def flush(self) -> str:
        out, self.pending = self.pending, ""
        return out


class _TransformersBackend(Backend):
    """Shared code: tokenizer, chat template, streaming generation thread, JSON constraint."""

    def __init__(
        self,
        folder: Path,
        *,
        model_name: str,
        context_size: int,
        device: str = "cpu",
        threads: int = 0,
    ) -> None:
        super().__init__(model_name, context_size)
        torch, transformers = _import_torch_transformers()
        self._torch = torch
        self.device = device
        if threads > 0:
            torch.set_num_threads(threads)
        safe = dict(local_files_only=True, trust_remote_code=False)
        try:
            self.tokenizer = transformers.AutoTokenizer.from_pretrained(folder, **safe)
            self.model = transformers.AutoModelForCausalLM.from_pretrained(
                folder, use_safetensors=True, device_map={"": device}, **safe, **self._load_options(torch, transformers)
            )
        except torch.cuda.OutOfMemoryError:
            raise BackendError(_OOM_HINT) from None
        except (OSError, ValueError) as exc:
            raise ModelError(f"transformers could not load {folder}: {_first_line(exc)}") from None
        except (RuntimeError, AssertionError, TypeError, KeyError, IndexError) as exc:  # absurd config.json
            kind = type(exc).__name__
            raise ModelError(f"transformers could not load {folder}: {kind}: {_first_line(exc)}") from None
        if self.model.get_input_embeddings().num_embeddings <= 0:
            raise ModelError(f"{folder} has an empty vocabulary (vocab_size in config.json)")
        self.model.eval()
        self._dtype = str(self.model.dtype).removeprefix("torch.")
        self._chat = self._chat_template(folder)
        self._enforcer_data: Any = None
        self._special: list[str] | None = None

    def _chat_template(self, folder: Path) -> ChatTemplate:
        """The tokenizer's chat template, rendered as `apply_chat_template` renders it (with the
        special tokens by name), in the counting sandbox (chat_template.py)."""
        try:
            source = self.tokenizer.get_chat_template()
        except ValueError:  # none, or several with no default among them
            source = None
        if not isinstance(source, str) or not source:
            raise ModelError(f"{folder} has no chat template in its tokenizer files")
        special = {name: value for name, value in self.tokenizer.special_tokens_map.items()
                   if isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))}
        return ChatTemplate(source, folder, {**special, "tools": None, "documents": None})

    @abstractmethod
    def _load_options(self, torch: Any, transformers: Any) -> dict[str, Any]:
        """from_pretrained options that make this runtime (dtype, quantization)."""

    # -- prompt and tokens --------------------------------------------------------------------
    def format_prompt(self, messages: Sequence[Message]) -> str:
        return self._chat.render(messages)

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False, split_special_tokens=True)["input_ids"])

    def _prompt_ids(self, prompt: str) -> Any:
        # The template already wrote every special token the model expects.
        encoded = self.tokenizer(prompt, add_special_tokens=False, return_tensors="pt")
        return encoded["input_ids"].to(self.model.device)

    @property
    def special_tokens(self) -> list[str]:
        if self._special is None:
            found = set(self.tokenizer.all_special_tokens)
            found.update(t.content for t in self.tokenizer.added_tokens_decoder.values() if t.special)
            self._special = sorted(text for text in found if text)
        return sorted({*self._special, *TEMPLATE_MARKER.findall(self._chat.source)})

    def score(self, messages: Sequence[Message], continuations: Sequence[str]) -> list[float]:
        """Backend.score: one forward pass over the prompt and each continuation."""
        prompt = self._prompt_ids(self.format_prompt(messages))
        return [self._mean_log_probability(prompt, text) for text in continuations]

    def _mean_log_probability(self, prompt: Any, text: str) -> float:
        torch = self._torch
        ids = self.tokenizer(text, add_special_tokens=False, return_tensors="pt")["input_ids"].to(self.model.device)
        if ids.shape[1] == 0:
            raise BackendError("cannot score an empty continuation")
        check_context(prompt.shape[1], ids.shape[1], self.context_size)
        with torch.inference_mode():
            logits = self.model(input_ids=torch.cat([prompt, ids], dim=1)).logits[0, prompt.shape[1] - 1: -1]
            chosen = torch.log_softmax(logits.float(), dim=-1).gather(1, ids[0].unsqueeze(1))
        return float(chosen.mean())

    # -- generation ---------------------------------------------------------------------------
    def _stream(
        self,
        messages: Sequence[Message],
        settings: GenerationSettings,
        json_schema: dict[str, Any] | None,
        usage: Usage,
    ) -> Iterator[str]:
        from transformers import TextIteratorStreamer

        input_ids = self._prompt_ids(self.format_prompt(messages))
        usage.prompt_tokens = input_ids.shape[1]
        check_context(usage.prompt_tokens, settings.max_tokens, self.context_size)
        streamer = TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True)
        consumer_gone = threading.Event()
        kwargs = self._generate_kwargs(input_ids, settings, json_schema, streamer, consumer_gone)
        result: dict[str, Any] = {}
        worker = threading.Thread(target=self._generate_into, args=(kwargs, streamer, result, settings.seed),
                                  daemon=True)
        worker.start()
        stops = _StopStrings(settings.stop)
        try:
            for text in streamer:
                if piece := stops.feed(text):
                    yield piece
                if stops.hit:
                    break
            if tail := stops.flush():
                yield tail
        finally:
            consumer_gone.set()  # stops generation at the next token when the consumer quits early
            worker.join()
        self._finish(result, usage, stopped_by_string=stops.hit)

    def _generate_kwargs(
        self,
        input_ids: Any,
        settings: GenerationSettings,
        json_schema: dict[str, Any] | None,
        streamer: Any,
        consumer_gone: threading.Event,
    ) -> dict[str, Any]:
        from transformers import StoppingCriteriaList

        pad = self.tokenizer.pad_token_id
        kwargs = dict(
            input_ids=input_ids,
            attention_mask=self._torch.ones_like(input_ids),
            max_new_tokens=settings.max_tokens,
            streamer=streamer,
            stopping_criteria=StoppingCriteriaList([_StopOnEvent(consumer_gone, self._torch)]),
            pad_token_id=pad if pad is not None else self.tokenizer.eos_token_id,
            **self._sampling(settings),
        )
        if json_schema is not None:
            kwargs["prefix_allowed_tokens_fn"] = self._json_constraint(json_schema)
        return kwargs

    def _sampling(self, settings: GenerationSettings) -> dict[str, Any]:
        penalty = dict(repetition_penalty=settings.repeat_penalty) if settings.repeat_penalty != 1.0 else {}
        if settings.greedy:
            return dict(do_sample=False, temperature=None, top_p=None, top_k=None, **penalty)
        return dict(do_sample=True, temperature=settings.temperature, top_p=settings.top_p, top_k=None, **penalty)

    def _generate_into(self, kwargs: dict[str, Any], streamer: Any, result: dict[str, Any], seed: int) -> None:
        """Runs in the generation thread: a failure is handed to the consumer, and the
        streamer is always ended so the consumer never waits forever."""
        try:
            self._torch.manual_seed(seed)
            with self._torch.inference_mode():
                result["output"] = self.model.generate(**kwargs)
        except BaseException as exc:  # re-raised in the consumer thread by _finish
            result["error"] = exc
            streamer.end()

    def _finish(self, result: dict[str, Any], usage: Usage, stopped_by_string: bool) -> None:
        error = result.get("error")
        if isinstance(error, self._torch.cuda.OutOfMemoryError):
            raise BackendError(_OOM_HINT) from None
        if error is not None:
            raise BackendError(f"generation failed: {type(error).__name__}: {_first_line(error)}") from error
        generated = result["output"][0, usage.prompt_tokens :]
        usage.completion_tokens = int(generated.shape[0])
        ended = usage.completion_tokens > 0 and int(generated[-1]) in self._eos_ids()
        usage.finish_reason = "stop" if ended or stopped_by_string else "length"

    def _eos_ids(self) -> set[int]:
        eos = self.model.generation_config.eos_token_id
        ids = eos if isinstance(eos, list) else [eos]
        return {int(i) for i in ids if i is not None}

    def _json_constraint(self, schema: dict[str, Any]) -> Any:
        """A prefix_allowed_tokens_fn that keeps decoding inside `schema` (lm-format-enforcer).
        The tokenizer's vocabulary table is built once; the parser is per generation."""
        _patch_legacy_tokenization_module()
        try:
            from lmformatenforcer import CharacterLevelParserConfig, JsonSchemaParser
            from lmformatenforcer.integrations.transformers import (
                build_token_enforcer_tokenizer_data,
                build_transformers_prefix_allowed_tokens_fn,
            )
        except ImportError:
            raise BackendError("JSON-constrained output needs lm-format-enforcer: "
                               "pip install lm-format-enforcer") from None
        if self._enforcer_data is None:
            self._enforcer_data = build_token_enforcer_tokenizer_data(self.tokenizer)
        # Fields in the schema's order, as llama.cpp's grammar writes them.
        parser = JsonSchemaParser(without_patterns(schema),
                                  config=CharacterLevelParserConfig(force_json_field_order=True))
        return build_transformers_prefix_allowed_tokens_fn(self._enforcer_data, parser)

    # -- lifecycle ----------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "device": self.device, "dtype": self._dtype}

    def close(self) -> None:
        if getattr(self, "model", None) is None:
            return
        self.model = None
        if self.device == "cuda":
            self._torch.cuda.empty_cache()


class TransformersBackend(_TransformersBackend):
    """Full precision: float32 on CPU, bfloat16 on CUDA."""

    name = "transformers"

    def _load_options(self, torch: Any, transformers: Any) -> dict[str, Any]:
        return {"dtype": torch.bfloat16 if self.device == "cuda" else torch.float32}


class Transformers4BitBackend(_TransformersBackend):
    """4-bit NF4 weights with bfloat16 compute (bitsandbytes; CUDA, and CPU since 0.45)."""

    name = "transformers-4bit"

    def _load_options(self, torch: Any, transformers: Any) -> dict[str, Any]:
        logging.getLogger("bitsandbytes").setLevel(logging.ERROR)  # optional-kernel notices
        try:  # fail here with a clear message, not deep in loading
            importlib.import_module("bitsandbytes")
        except ImportError:
            raise BackendError("the transformers-4bit backend needs bitsandbytes: "
                               "pip install 'local-agent[gpu]'") from None
        quantization = transformers.BitsAndBytesConfig(
            load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16
        )
        dtype = torch.bfloat16 if self.device == "cuda" else torch.float32
        return {"quantization_config": quantization, "dtype": dtype}


def without_patterns(schema: Any) -> Any:
    """The schema without regex patterns on strings that also have a length bound.
    lm-format-enforcer cannot combine the two, and it checks a pattern character by character in
    Python, several times slower (scripts/decode_costs.py). The length bound keeps
    the answer complete within the token limit; the pattern is checked after decoding."""
    if isinstance(schema, list):
        return [without_patterns(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    bounded = "pattern" in schema and ("maxLength" in schema or "minLength" in schema)
    return {key: without_patterns(value) for key, value in schema.items() if not (bounded and key == "pattern")}
