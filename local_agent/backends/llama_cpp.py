"""The llama.cpp runtime (llama-cpp-python): runs a GGUF file, fastest on CPU.

The prompt is the model's own chat template from the GGUF metadata, rendered the way
llama-cpp-python renders it. One `Llama` object lives as long as the backend, so llama.cpp
reuses the KV cache for the prompt prefix shared with the previous call.
"""

from __future__ import annotations

import codecs
import ctypes
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from ..types import GenerationSettings, Message
from .base import TEMPLATE_MARKER, Backend, check_context
from .chat_template import ChatTemplate
from .cpu_share import CoreShare, available_cores, fitting_threads
from .generation import Usage
from .gguf_check import checked_overrides
from .grammar_cache import GrammarCache
from .llama_grammar import GrammarGreedy
from .llama_import import FORMATTER_EXTRAS, import_llama_cpp
from .llama_score import mean_log_probability
from .llama_state import MIN_TOKENS, PrefixStates, model_identity
from .probe import physical_cores

PREPARE_CHUNK = 64  # tokens read ahead per step, so that exiting the chat never waits long
# A sliding-window model (Gemma 3) keeps the KV cache of every position, not only the window:
# the prompt-prefix reuse and the saved states (llama_state.py) go back to earlier positions,
# which a window-sized cache has already dropped. It costs the full cache on those layers.
SWA_FULL = True


def build_has_amx(llama_cpp: Any) -> bool:
    """Whether this llama.cpp build compiled AMX kernels (GGML_NATIVE on an AMX-capable CPU)."""
    return b"AMX_INT8 = 1" in llama_cpp.llama_print_system_info()


def batch_size_for(llama_cpp: Any, device: str) -> int:
    """Tokens per prompt-evaluation batch.

    An AMX build runs multi-token batches on AMX tiles, and hypervisors such as Firecracker
    advertise AMX without enabling it: the process dies with SIGILL. Single-token batches take
    the AVX512-VNNI kernels, so AMX builds evaluate the prompt one token at a time (slower
    prompt evaluation, correct everywhere). Loading without the AMX weight buffers is no way
    out: the generic Q4_1/Q8_0 kernels of such a build gave wrong logits on the same machine.
    """
    return 1 if device == "cpu" and build_has_amx(llama_cpp) else 512


class LlamaCppBackend(Backend):
    name = "llama-cpp"

    def __init__(
        self,
        model_path: Path,
        *,
        model_name: str,
        context_size: int,
        threads: int = 0,
        device: str = "cpu",
        seed: int = 0,
        state_dir: Path | None = None,
    ) -> None:
        super().__init__(model_name, context_size)
        self._lib = llama_cpp = import_llama_cpp()
        self.device = device
        self.threads = threads or physical_cores()
        # Threads left to the backend (threads=0) follow the cores other programs leave free.
        self._share = CoreShare() if not threads and device == "cpu" else None
        self._threads_now = self.threads
        self._grammars = GrammarCache(llama_cpp)
        batch = batch_size_for(llama_cpp, device)
        self._llm = self._load(model_path, batch, seed)
        self._vocab = llama_cpp.llama_model_get_vocab(self._llm.model)
        self._bos_text = self._token_text(self._llm.token_bos())
        self._chat = self._chat_template(model_path)
        self._special: list[str] | None = None
        self._chars: dict[int, str] | None = None
        self._states = None if state_dir is None else self._prefix_states(state_dir, model_path, batch)

    def _load(self, model_path: Path, batch: int, seed: int) -> Any:
        """The model, once its metadata is checked (gguf_check.py)."""
        overrides = checked_overrides(model_path)
        try:
            return self._lib.Llama(
                model_path=str(model_path),
                n_ctx=self.context_size,
                n_batch=batch,
                n_ubatch=batch,
                n_threads=self.threads, n_threads_batch=self.threads,
                n_gpu_layers=-1 if self.device == "cuda" else 0,
                seed=seed,
                swa_full=SWA_FULL,
                kv_overrides=overrides or None,
                verbose=False,
            )
        except ValueError as exc:
            raise ModelError(f"llama.cpp could not load {model_path} ({exc}); is it a valid GGUF file?") from None

    def _chat_template(self, model_path: Path) -> ChatTemplate:
        """The model's chat template from its GGUF metadata, rendered as llama-cpp-python's
        Jinja2ChatFormatter renders it, in the counting sandbox (chat_template.py)."""
        source = self._llm.metadata.get("tokenizer.chat_template")
        if not source:
            self.close()
            raise ModelError(f"{model_path} has no chat template in its GGUF metadata (tokenizer.chat_template)")
        special = {"bos_token": self._bos_text, "eos_token": self._token_text(self._llm.token_eos())}
        return ChatTemplate(source, model_path, {**special, **dict.fromkeys(FORMATTER_EXTRAS)})

    def _prefix_states(self, folder: Path, model_path: Path, batch: int) -> PrefixStates:
        """Saved states for this model and everything that shapes its KV cache."""
        return PrefixStates(folder, {
            "model": model_identity(model_path), "llama_cpp": self._lib.__version__,
            "build": self._lib.llama_print_system_info().decode("utf-8", "replace"), "n_ctx": self.context_size,
            "n_batch": batch, "n_ubatch": batch, "flash_attn": False, "swa_full": SWA_FULL, "device": self.device})

    # -- prompt and tokens --------------------------------------------------------------------
    def format_prompt(self, messages: Sequence[Message]) -> str:
        return self._chat.render(messages)

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _prompt_tokens(self, prompt: str) -> list[int]:
        """Tokens of the templated prompt; markers in it are parsed as special tokens, and BOS
        is added when the vocabulary asks for it unless the template already wrote it."""
        add_bos = bool(self._lib.llama_vocab_get_add_bos(self._vocab)) and not (
            self._bos_text and prompt.startswith(self._bos_text)
        )
        return self._llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return self._lib.llama_vocab_get_text(self._vocab, token).decode("utf-8", errors="replace")

    @property
    def special_tokens(self) -> list[str]:
        if self._special is None:
            control = {
                self._token_text(token)
                for token in range(self._llm.n_vocab())
                if self._lib.llama_vocab_is_control(self._vocab, token)
            }
            self._special = sorted(text for text in control if text)
        return sorted({*self._special, *TEMPLATE_MARKER.findall(self._chat.source)})

    # -- generation ---------------------------------------------------------------------------
    def _stream(
        self,
        messages: Sequence[Message],
        settings: GenerationSettings,
        json_schema: dict[str, Any] | None,
        usage: Usage,
    ) -> Iterator[str]:
        tokens = self._prompt_tokens(self.format_prompt(messages))
        usage.prompt_tokens = len(tokens)
        check_context(len(tokens), settings.max_tokens, self.context_size)
        self._fit_threads()
        self._restore_system_prompt(messages, tokens)
        if json_schema is not None and settings.greedy and settings.repeat_penalty == 1.0 and not settings.stop:
            yield from self._stream_constrained(tokens, settings, self._grammar(json_schema), usage)
            return
        chunks = self._llm.create_completion(
            tokens,
            stream=True,
            max_tokens=settings.max_tokens,
            temperature=0.0 if settings.greedy else settings.temperature,
            top_p=settings.top_p,
            repeat_penalty=settings.repeat_penalty,
            seed=settings.seed,
            stop=list(settings.stop),
            grammar=self._grammar(json_schema) if json_schema is not None else None,
        )
        parts: list[str] = []
        try:
            for chunk in chunks:
                choice = chunk["choices"][0]
                if choice.get("finish_reason"):
                    usage.finish_reason = choice["finish_reason"]
                if choice["text"]:
                    parts.append(choice["text"])
                    yield choice["text"]
                self._fit_threads()
        finally:
            chunks.close()  # a consumer that stops early (Ctrl-C) stops llama.cpp here
        # The stream does not report token counts: re-tokenize the answer, plus the
        # end-of-turn token when generation ended on it (as the transformers backends count).
        ended_on_eog = usage.finish_reason == "stop" and not settings.stop
        usage.completion_tokens = self.count_tokens("".join(parts)) + int(ended_on_eog)

    def _stream_constrained(self, tokens: list[int], settings: GenerationSettings, grammar: Any,
                            usage: Usage) -> Iterator[str]:
        """Greedy decoding under the grammar (llama_grammar.py): the model picks the tokens the
        grammar leaves a choice about; forced text is read in one batch with what precedes it,
        all but its last token, which the model writes itself so that it reads its usual tokens;
        generation ends as soon as the grammar is complete."""
        context, limit = list(tokens), len(tokens) + settings.max_tokens
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        usage.finish_reason = "length"
        with GrammarGreedy(self._lib, self._vocab, grammar._grammar, grammar._root, self._llm.n_vocab(),
                           self._char_tokens(), self._llm.token_eos()) as chooser:
            while len(context) < limit:
                text, ends = chooser.forced()
                forced = self._spelling(text)
                if forced is None:  # no tokens spell exactly this text: the model writes it
                    forced, ends = [], False
                elif not ends:  # the last token may merge with what follows (`[` then `"` is `["`)
                    forced = forced[:-1]
                if len(forced) > limit - len(context):
                    forced, ends = forced[: limit - len(context)], False
                for token in forced:
                    chooser.accept(token)
                context += forced
                if piece := decoder.decode(self._llm.detokenize(forced)):
                    yield piece
                if ends or len(context) >= limit:
                    usage.finish_reason = "stop" if ends else "length"
                    break
                self._fit_threads()
                self._evaluate(context)
                token = chooser.choose(self._last_logits())
                if self._lib.llama_vocab_is_eog(self._vocab, token):
                    usage.finish_reason = "stop"
                    break
                chooser.accept(token)
                context.append(token)
                if piece := decoder.decode(self._llm.detokenize([token])):
                    yield piece
        # as the other paths count: the answer's tokens, plus the end of turn when it ended
        usage.completion_tokens = len(context) - len(tokens) + int(usage.finish_reason == "stop")
        if tail := decoder.decode(b"", final=True):
            yield tail

    def _spelling(self, text: str) -> list[int] | None:
        """Tokens whose pieces spell exactly `text`, or None (a tokenizer that adds a space
        prefix, say), since the grammar must accept them as they are."""
        tokens = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False) if text else []
        return tokens if b"".join(map(self._piece, tokens)) == text.encode("utf-8") else None

    def _char_tokens(self) -> dict[int, str]:
        """The tokens whose piece, as the grammar sees it, is exactly one printable ASCII
        character, to probe the grammar with. A character with no such token is left out:
        text forced through it is then written by the model."""
        if self._chars is None:
            self._chars = {}
            for code in range(32, 127):
                ids = self._llm.tokenize(chr(code).encode(), add_bos=False, special=False)
                if len(ids) == 1 and self._piece(ids[0]) == chr(code).encode():
                    self._chars[ids[0]] = chr(code)
        return self._chars

    def _piece(self, token: int) -> bytes:
        buffer = ctypes.create_string_buffer(64)
        size = self._lib.llama_token_to_piece(self._vocab, token, buffer, len(buffer), 0, False)
        return buffer.raw[: max(size, 0)]

    def prepare(self, dialogue: Sequence[Message], cancelled: Callable[[], bool] = lambda: False) -> None:
        """Evaluate the tokens every next prompt of `dialogue` starts with (up to the opening of
        the next user message), a chunk at a time so that `cancelled` can stop it."""
        if not dialogue:
            return
        one, two = (self._prompt_tokens(self.format_prompt([*dialogue, Message("user", text)])) for text in "ab")
        shared = next((i for i, (a, b) in enumerate(zip(one, two)) if a != b), min(len(one), len(two)))
        if shared < 2 or shared + 1 >= self.context_size:
            return
        self._fit_threads()
        self._restore_system_prompt(dialogue, one)
        llm, prefix = self._llm, one[:shared]
        self._keep_cached(prefix, shared)
        while llm.n_tokens < shared and not cancelled():
            llm.eval(prefix[llm.n_tokens: llm.n_tokens + PREPARE_CHUNK])

    def _evaluate(self, tokens: list[int]) -> None:
        """Evaluate what the KV cache lacks of `tokens`, reusing the prefix it shares with them;
        the last token is always evaluated, for its logits."""
        self._keep_cached(tokens, len(tokens) - 1)
        self._llm.eval(tokens[self._llm.n_tokens:])

    def _keep_cached(self, tokens: list[int], limit: int) -> None:
        """Keep of the KV cache only the prefix it shares with `tokens`, at most `limit` tokens."""
        llm = self._llm
        cached = np.asarray(llm.input_ids[: min(llm.n_tokens, limit)])
        differs = np.flatnonzero(cached != np.asarray(tokens[: cached.size]))
        llm.n_tokens = int(differs[0]) if differs.size else cached.size

    def _last_logits(self) -> np.ndarray:
        pointer = self._lib.llama_get_logits_ith(self._llm.ctx, -1)
        return np.ctypeslib.as_array(pointer, shape=(self._llm.n_vocab(),))

    def _grammar(self, schema: dict[str, Any]) -> Any:
        """The GBNF grammar for a JSON schema (grammar_cache.py: the few most recent kept)."""
        return self._grammars.get(schema)

    def score(self, messages: Sequence[Message], continuations: Sequence[str]) -> list[float]:
        """Backend.score (llama_score.py): the prompt's KV cache is reused by every continuation."""
        prompt = self._prompt_tokens(self.format_prompt(messages))
        self._fit_threads()
        self._restore_system_prompt(messages, prompt)
        scores = []
        for text in continuations:
            tokens = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
            check_context(len(prompt), len(tokens), self.context_size)
            scores.append(mean_log_probability(self._logits_after, prompt, tokens))
        return scores

    def _logits_after(self, context: list[int]) -> np.ndarray:
        self._evaluate(context)
        return self._last_logits()

    def _restore_system_prompt(self, messages: Sequence[Message], tokens: list[int]) -> None:
        """On a fresh context, load the saved state of the prompt's system message, or
        evaluate it and save its state for the next process (see llama_state.py). Once per
        backend: after that the KV cache is reused within the process."""
        states, self._states = self._states, None
        if states is None or self._llm.n_tokens or len(messages) < 2 or messages[0].role != "system":
            return
        alone = self._prompt_tokens(self.format_prompt(messages[:1]))
        shared = next((i for i, (a, b) in enumerate(zip(alone, tokens)) if a != b), min(len(alone), len(tokens)))
        prefix = tokens[: min(shared, len(tokens) - 1)]  # the last token is evaluated for its logits
        if len(prefix) < MIN_TOKENS or states.restore(self._lib, self._llm, prefix):
            return
        self._llm.eval(prefix)
        states.save(self._lib, self._llm, prefix)

    def _fit_threads(self) -> None:
        """With automatic threads, decode with as many as the cores other programs left free
        over the last stretch (checked every fraction of a second): a thread waiting for a busy
        core stalls the others at every barrier. Greedy output does not depend on the count."""
        others = self._share.others_busy() if self._share is not None else None
        if others is None:
            return
        threads = fitting_threads(self.threads, available_cores(), others)
        if threads != self._threads_now:
            # Prompt evaluation keeps every thread: its operations are long, so a thread that
            # waits for a core costs little there, and the estimate may be old when it starts.
            self._lib.llama_set_n_threads(self._llm.ctx, threads, self.threads)
            self._threads_now = threads

    # -- what batched decoding shares with this backend (llama_parallel.py) ---------------------
    @property
    def llama(self) -> Any:
        """The loaded `Llama`: its model, vocabulary and context settings."""
        return self._llm

    @property
    def batch_size(self) -> int:
        """Tokens per prompt-evaluation batch (batch_size_for)."""
        return int(self._llm.n_batch)

    @property
    def state_folder(self) -> Path | None:
        """Where saved system-prompt states live (None: saved states are off)."""
        return self._states.folder if self._states is not None else None

    @property
    def follows_load(self) -> bool:
        """Whether decode threads follow the cores other programs leave free."""
        return self._share is not None

    def prompt_tokens(self, messages: Sequence[Message]) -> list[int]:
        """The tokens of `messages` as the model reads them (template, BOS)."""
        return self._prompt_tokens(self.format_prompt(messages))

    def system_prefix(self, messages: Sequence[Message], tokens: list[int]) -> int:
        """How many leading `tokens` are the system message's alone (0 without one)."""
        if len(messages) < 2 or messages[0].role != "system":
            return 0
        alone = self._prompt_tokens(self.format_prompt(messages[:1]))
        return min(next((i for i, (a, b) in enumerate(zip(alone, tokens)) if a != b), min(len(alone), len(tokens))),
                   len(tokens) - 1)

    def grammar(self, schema: dict[str, Any]) -> Any:
        """The compiled grammar of a JSON schema (cached)."""
        return self._grammar(schema)

    def spelling(self, text: str) -> list[int] | None:
        return self._spelling(text)

    def char_tokens(self) -> dict[int, str]:
        return self._char_tokens()

    def piece(self, token: int) -> bytes:
        return self._piece(token)

    # -- lifecycle ----------------------------------------------------------------------------
    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "device": self.device, "threads": self.threads,
                "threads_follow_load": self._share is not None}

    def close(self) -> None:
        llm, self._llm = getattr(self, "_llm", None), None
        if llm is not None:
            llm.close()
