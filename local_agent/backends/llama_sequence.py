"""One generation inside the batch engine (llama_engine.py): what it asked for, the tokens it
still has to evaluate, how it picks the next token, and the text it hands back.

A sequence decodes as the single-sequence backend (llama_cpp.py) would, so that its greedy
answer does not depend on what else is in the batch:
- sampled: llama-cpp-python's sampler chain, rebuilt here (`Llama._init_sampler` with
  `create_completion`'s defaults): repeat penalty over the last 64 tokens, the grammar when
  one is given, then greedy, or top-k 40, typical 1.0, top-p, min-p 0.05, temperature and a
  seeded draw;
- constrained: greedy under a JSON grammar with forced text read in one go (llama_grammar.py),
  step for step as `LlamaCppBackend._stream_constrained` does.

Text leaves as whole UTF-8 characters, held back while it may be the start of a stop string;
an answer that reaches a stop string ends before it.
"""

from __future__ import annotations

import codecs
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..types import GenerationSettings
from .llama_batch import Feed
from .llama_grammar import GrammarGreedy

PENALTY_LAST_N = 64  # llama-cpp-python's last_n_tokens_size
TOP_K, MIN_P, TYPICAL_P = 40, 0.05, 1.0  # create_completion's defaults


@dataclass
class Request:
    """What a caller puts to the engine. `events` gets ("text", chunk) items, then one
    ("done", finish_reason, completion_tokens) or ("error", exception); setting `cancelled`
    stops the generation at the next step."""

    tokens: list[int]
    settings: GenerationSettings
    grammar: Any = None  # a LlamaGrammar: sampled under it
    constrained: bool = False  # greedy under `grammar`, forced text read in one go
    state_prefix: int = 0  # leading tokens (the system prompt) whose saved state may stand in
    ignore_end: bool = False  # write max_tokens tokens, past the end of turn (benchmarks)
    events: queue.SimpleQueue[tuple[Any, ...]] = field(default_factory=queue.SimpleQueue)
    cancelled: threading.Event = field(default_factory=threading.Event)


class Vocabulary:
    """What sequences need of the model's vocabulary, shared by all of them (the backend's
    own tokenizer helpers, and a cache of each token's bytes)."""

    def __init__(self, lib: Any, vocab: Any, piece: Callable[[int], bytes], spelling: Callable[[str], list[int] | None],
                 char_tokens: Callable[[], dict[int, str]], end_token: int, n_vocab: int) -> None:
        self.lib, self.vocab, self.n_vocab, self.end_token = lib, vocab, n_vocab, end_token
        self.spelling, self.char_tokens = spelling, char_tokens
        self._piece = piece
        self._pieces: dict[int, bytes] = {}

    def piece(self, token: int) -> bytes:
        found = self._pieces.get(token)
        if found is None:
            found = self._pieces[token] = self._piece(token)
        return found

    def ends_turn(self, token: int) -> bool:
        return bool(self.lib.llama_vocab_is_eog(self.vocab, token))


class TextOut:
    """An answer's bytes in, text chunks out to `send`."""

    def __init__(self, stops: tuple[str, ...], send: Callable[[str], None]) -> None:
        self._stops = [stop.encode("utf-8") for stop in stops if stop]
        self._data = bytearray()
        self._sent = 0  # bytes handed on (decoded)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._send = send

    def add(self, piece: bytes) -> bool:
        """Take a token's bytes; True when the answer has reached a stop string (it ends there)."""
        self._data += piece
        hits = [found for stop in self._stops if (found := self._data.find(stop, self._sent)) >= 0]
        if hits:
            del self._data[min(hits):]  # the answer ends before the stop string
            self._flush(len(self._data), final=True)
            return True
        self._flush(len(self._data) - self._held())
        return False

    def finish(self) -> None:
        """The answer ended: hand on whatever is left."""
        self._flush(len(self._data), final=True)

    def _held(self) -> int:
        """Bytes at the end that may still become a stop string."""
        longest = 0
        for stop in self._stops:
            for size in range(min(len(stop) - 1, len(self._data) - self._sent), longest, -1):
                if self._data.endswith(stop[:size]):
                    longest = size
                    break
        return longest

    def _flush(self, end: int, final: bool = False) -> None:
        if end < self._sent:
            return
        text = self._decoder.decode(bytes(self._data[self._sent: end]), final=final)
        self._sent = end
        if text:
            self._send(text)


class Sequence:
    """A request in a slot of the engine: `feed()` gives what to evaluate next, `advance()`
    takes the decoded logits and picks the next token."""

    def __init__(self, request: Request, slot: int, cached: int, vocab: Vocabulary, single_batch: int = 512) -> None:
        """`cached`: how many of the prompt's tokens the slot's KV cache already holds;
        `single_batch`: the single backend's batch size, whose grouping of the prompt `feed`
        keeps where it matters (see `chunk_size`)."""
        self.request, self.slot, self.vocab = request, slot, vocab
        self.context = list(request.tokens)  # prompt and answer so far
        self.past = cached  # positions evaluated
        self._single_batch = single_batch
        self.finish_reason: str | None = None
        self.generated = 0
        self._text = TextOut(request.settings.stop, self._send)
        self._lone_last = False  # whether the single backend evaluates the last pending token alone
        self._limit = len(request.tokens) + request.settings.max_tokens
        self._sampler: Any = None
        self._chooser: GrammarGreedy | None = None
        if request.constrained:
            self._chooser = GrammarGreedy(vocab.lib, vocab.vocab, request.grammar._grammar, request.grammar._root,
                                          vocab.n_vocab, vocab.char_tokens(), vocab.end_token)
            self._force()
        else:
            self._sampler = sampler_chain(vocab.lib, vocab.vocab, vocab.n_vocab, request.settings, request.grammar)
        self.begin_evaluation()

    @property
    def pending(self) -> int:
        """Tokens of the context not evaluated yet."""
        return len(self.context) - self.past

    @property
    def done(self) -> bool:
        return self.finish_reason is not None

    def feed(self, budget: int) -> Feed:
        """The next tokens to evaluate, about `budget` of them (see `chunk_size`); the logits
        are wanted once the last pending token is in."""
        size = chunk_size(self.pending, budget, lone_last=self._lone_last)
        tokens = self.context[self.past: self.past + size]
        feed = Feed(self.slot, tokens, self.past, logits=size == self.pending)
        self.past += size
        return feed

    def begin_evaluation(self) -> None:
        """What is pending now is evaluated in one go by the single backend (in batches of its
        n_batch): note whether its last token is then alone."""
        self._lone_last = self.pending % self._single_batch == 1

    def advance(self, ctx: Any, batch: Any, row: int) -> None:
        """Pick the next token from the logits of batch row `row` (the context `ctx`)."""
        if self._chooser is not None:
            self._advance_constrained(batch.logits(row))
            return
        token = int(self.vocab.lib.llama_sampler_sample(self._sampler, ctx, row))  # accepted by the chain too
        if self.vocab.ends_turn(token) and not self.request.ignore_end:
            self._end("stop")
            return
        self._append(token)
        if self._text.add(self.vocab.piece(token)):
            self._end("stop")
        elif self.generated >= self.request.settings.max_tokens:
            self._end("length")
        self.begin_evaluation()

    def _advance_constrained(self, logits: Any) -> None:
        assert self._chooser is not None
        token = self._chooser.choose(logits)
        if self.vocab.ends_turn(token):
            self._end("stop")
            return
        self._chooser.accept(token)
        self._append(token)
        self._text.add(self.vocab.piece(token))
        if len(self.context) >= self._limit:
            self._end("length")
        else:
            self._force()
        self.begin_evaluation()

    def _force(self) -> None:
        """Append the text the grammar leaves no choice about (all but its last token, which the
        model writes itself unless nothing may follow), as `_stream_constrained` does; end the
        answer when the grammar is complete or the limit is reached."""
        assert self._chooser is not None
        text, ends = self._chooser.forced()
        forced = self.vocab.spelling(text)
        if forced is None:
            forced, ends = [], False
        elif not ends:
            forced = forced[:-1]
        if len(forced) > self._limit - len(self.context):
            forced, ends = forced[: self._limit - len(self.context)], False
        for token in forced:
            self._chooser.accept(token)
            self._append(token)
            self._text.add(self.vocab.piece(token))
        if ends or len(self.context) >= self._limit:
            self._end("stop" if ends else "length")

    def _append(self, token: int) -> None:
        self.context.append(token)
        self.generated += 1

    def _send(self, text: str) -> None:
        self.request.events.put(("text", text))

    def _end(self, reason: str) -> None:
        self.finish_reason = reason
        self._text.finish()

    def completion_tokens(self) -> int:
        """The answer's tokens as the single-sequence backend counts them (the constrained
        path: tokens written plus the end of turn; the sampled path counts on the caller's side)."""
        return self.generated + int(self.finish_reason == "stop")

    def close(self) -> None:
        """Free the sampler. Safe to call twice."""
        sampler, self._sampler = self._sampler, None
        if sampler:
            self.vocab.lib.llama_sampler_free(sampler)
        chooser, self._chooser = self._chooser, None
        if chooser is not None:
            chooser.close()


def chunk_size(pending: int, budget: int, *, lone_last: bool) -> int:
    """How many of `pending` tokens to evaluate now, about `budget`, so that the result is the
    single backend's: llama.cpp computes a sequence's attention with one kernel for a lone token
    and another (summing in another order) for two or more, so a token evaluated alone here must
    be one the single backend evaluates alone too. That backend reads what a prompt adds in
    batches of 512 (its `n_batch`), so only the last token can be alone, when 512k + 1 remain
    (`lone_last`); here no chunk is a single token otherwise, and none leaves one behind."""
    if pending <= 1:
        return pending
    if lone_last:  # everything but the last, then the last alone
        return _at_least_two(pending - 1, budget) if pending > 2 else 1
    return _at_least_two(pending, budget)


def _at_least_two(total: int, budget: int) -> int:
    size = min(total, max(budget, 2))
    if total - size == 1:  # the next chunk would be one token
        size += 1
    return size


def sampler_chain(lib: Any, vocab: Any, n_vocab: int, settings: GenerationSettings, grammar: Any = None) -> Any:
    """llama-cpp-python's sampler chain for `settings` (see the module's docstring)."""
    chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
    parts = [lib.llama_sampler_init_penalties(n_vocab, PENALTY_LAST_N, settings.repeat_penalty, 0.0, 0.0)]
    if grammar is not None:
        parts.append(lib.llama_sampler_init_grammar(vocab, grammar._grammar.encode("utf-8"),
                                                    grammar._root.encode("utf-8")))
    if settings.greedy:
        parts.append(lib.llama_sampler_init_greedy())
    else:
        parts += [lib.llama_sampler_init_top_k(TOP_K), lib.llama_sampler_init_typical(TYPICAL_P, 1),
                  lib.llama_sampler_init_top_p(settings.top_p, 1), lib.llama_sampler_init_min_p(MIN_P, 1),
                  lib.llama_sampler_init_temp(settings.temperature), lib.llama_sampler_init_dist(settings.seed)]
    for part in parts:
        lib.llama_sampler_chain_add(chain, part)  # the chain owns it now
    return chain
