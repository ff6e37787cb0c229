"""Distillation: after each answer, judge the user's message and propose durable facts about
the user.

The pipeline, cheapest first:
1. the gate (gate.py) rejects messages that cannot hold a durable fact (questions, requests,
   talk about others, passing remarks) without a model call;
2. rules (rules.py) turn common statements ("my name is ...") into keyed facts;
3. the model is asked only about durable statements no rule covered, with a short few-shot
   prompt whose fixed part comes first (so llama.cpp reuses its KV cache) and decoding
   constrained to a bounded JSON schema, so the answer always parses and always fits;
4. every candidate is validated (validation.py); rejects are kept with their reason.
Only the user's message is ever read: the assistant's text never becomes a fact.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from string import Template
from typing import TYPE_CHECKING, Any

from ...backends.base import Backend
from ...reading.clauses import Clause
from ...types import DistillResult, FactCandidate, GenerationSettings, Message
from .gate import Embeds, Gate, GateDecision
from .person import third_person
from .rules import RuleFact, extract_from, infer_key
from .validation import CandidateChecker, as_user_fact, content_stems

if TYPE_CHECKING:
    import jsonschema

log = logging.getLogger(__name__)

MAX_MEMORIES = 1
MAX_MEMORY_UNITS = 100
# A memory is one sentence of printable ASCII without quote or backslash: every character is
# one byte, so one token at most, and no escape sequence can make a string longer than its
# characters. `.`, `!` and `?` only end it (a `.` inside only before a digit, as in 3.5): small
# models otherwise run on into invented sentences until the length limit.
_PLAIN = r" #-\-/->@-\[\]-~"
MEMORY_PATTERN = rf"^([{_PLAIN}]|[.][0-9]){{1,{MAX_MEMORY_UNITS}}}[.!?]?$"
MAX_MEMORY_CHARS = 2 * MAX_MEMORY_UNITS + 1
# Whitespace a constrained decoder may put between JSON tokens: llama.cpp's grammar allows one
# space, lm-format-enforcer up to 12 in a row by default.
MAX_WHITESPACE_RUN = 12
_SECTION = re.compile(r"^\[(system|user|assistant)\]\s*$", re.M)


def distill_schema(max_memories: int = MAX_MEMORIES) -> dict[str, Any]:
    """The JSON the model must answer: its judgement first, then at most `max_memories`
    one-sentence memories; both backends write the fields in this order. llama.cpp's grammar
    follows the pattern, which also bounds the length; transformers' (lm-format-enforcer)
    follows the length, and the pattern is checked after decoding."""
    return {
        "type": "object",
        "properties": {
            "save": {"type": "boolean"},
            "memories": {"type": "array", "maxItems": max_memories, "items": {
                "type": "string", "pattern": MEMORY_PATTERN, "maxLength": MAX_MEMORY_CHARS}},
        },
        "required": ["save", "memories"],
        "additionalProperties": False,
    }


def schema_token_bound(max_memories: int = MAX_MEMORIES, max_chars: int = MAX_MEMORY_CHARS) -> int:
    """Tokens the longest answer the schema allows can take: every token is at least one byte,
    every allowed character one byte, plus the most whitespace between any two JSON tokens."""
    longest = json.dumps({"save": False, "memories": ["x" * max_chars] * max_memories}, separators=(",", ":"))
    gaps = sum(longest.count(mark) for mark in "{}[]:,") + 1
    return len(longest) + gaps * MAX_WHITESPACE_RUN + 1  # + the end-of-text token


DEFAULT_MAX_TOKENS = schema_token_bound()


@dataclass(frozen=True)
class DistillPrompt:
    """The few-shot prompt: fixed messages, then the user's message in the last one."""

    fixed: tuple[Message, ...]
    last: Template

    def messages(self, user_message: str) -> list[Message]:
        return [*self.fixed, Message("user", self.last.substitute(message=user_message))]

    def texts(self) -> list[str]:
        """Every example fact and instruction sentence, to catch candidates copied from them."""
        out: list[str] = []
        for message in self.fixed:
            if message.role == "assistant":
                out += json.loads(message.content)["memories"]
            else:
                out += [s for s in re.split(r"(?<=[.!?])\s+", message.content) if s]
        return out


@lru_cache(maxsize=1)
def load_prompt() -> DistillPrompt:
    """Parse prompts/distill.txt: `[role]` lines start messages; the last one holds $message."""
    text = resources.files("local_agent").joinpath("prompts", "distill.txt").read_text(encoding="utf-8")
    parts = _SECTION.split(text)[1:]
    messages = [Message(role, body.strip()) for role, body in zip(parts[::2], parts[1::2])]  # type: ignore[arg-type]
    if not messages or messages[-1].role != "user" or "$message" not in messages[-1].content:
        raise ValueError("prompts/distill.txt must end with a [user] section holding $message")
    return DistillPrompt(tuple(messages[:-1]), Template(messages[-1].content))


class Distiller:
    """Judges a user message and proposes facts to remember. `backend` may be None: then only
    the rules run. Give it its own Backend instance so the prompt prefix stays cached."""

    def __init__(self, backend: Backend | None, embedder: Embeds | None = None, *,
                 max_tokens: int = DEFAULT_MAX_TOKENS, gate: Gate | None = None) -> None:
        if max_tokens < DEFAULT_MAX_TOKENS:
            raise ValueError(f"max_tokens must be at least {DEFAULT_MAX_TOKENS}, the longest answer the "
                             "distill schema allows")
        self.backend = backend
        self.gate = gate if gate is not None else Gate(embedder)
        self.settings = GenerationSettings(max_tokens=max_tokens, temperature=0.0, seed=0)
        self.schema = distill_schema()
        self.prompt = load_prompt()
        self.checker = CandidateChecker(self.prompt.texts())

    def distill(self, user_message: str, clauses: Sequence[Clause] | None = None) -> DistillResult:
        """Rules run on every message with a first-person statement; the model only on
        statements the gate's classifier finds durable and no rule covered. `clauses` are the
        message's, when the turn has read it already."""
        start = time.perf_counter()
        result = DistillResult()
        decision = self.gate.check(user_message, clauses)
        if not decision.complete:  # a long message: what is checked against is what the gate read
            user_message = " ".join(clause.text for clause in decision.clauses)
        result.gate = decision.reason
        rule_facts = extract_from(decision.clauses) if decision.statements else []
        for fact in rule_facts:
            self._consider(FactCandidate(fact.text, "rule", fact.key, fact.rule), user_message, result,
                           decision.clauses)
        uncovered = _uncovered(decision.durable(self.gate.threshold), rule_facts)
        if not decision.passed:
            log.debug("distill gate: %s: %r", decision.reason, user_message[:80])
        if uncovered:
            self._phrase(decision, rule_facts, uncovered, result)
        result.seconds = time.perf_counter() - start
        return result

    def _phrase(self, decision: GateDecision, rule_facts: list[RuleFact], uncovered: list[Clause],
                result: DistillResult) -> None:
        """Facts for durable statements no rule covered: the model's phrasing, and the user's
        own words in the third person for any such statement no accepted model fact says.
        The model reads the message's statements that no rule covered (questions and requests
        left out): enough context, little to copy or repeat, and a short, fast prompt."""
        covered = {fact.clause for fact in rule_facts}
        statements = [c.text for c in decision.clauses if c.act == "statement"]
        if self.backend is not None:
            focus = [text for text in statements if text not in covered]
            for text in self._ask_model(self.backend, focus, result):
                self._consider(FactCandidate(text, "model", infer_key(text)), " ".join(statements), result)
        model_facts = [c.text for c in result.candidates if c.route == "model"]
        for clause in uncovered:
            if not any(_speaks_of(fact, clause.text) for fact in model_facts):
                text = third_person(clause.text)
                self._consider(FactCandidate(text, "rule", infer_key(text), "rewrite"), clause.text, result)

    def _ask_model(self, backend: Backend, statements: list[str], result: DistillResult) -> list[str]:
        messages = self._fitting_prompt(backend, statements)
        completion = backend.generate(messages, self.settings, json_schema=self.schema)
        result.model_called = True
        result.raw_json = completion.text
        memories, result.valid_json = parse_answer(completion.text, self.schema)
        return list(dict.fromkeys(as_user_fact(m) for m in memories))

    def _fitting_prompt(self, backend: Backend, statements: list[str]) -> list[Message]:
        """The prompt with as much of the statements as fits the context window next to the
        longest answer: later statements go first, then the end of an overlong one."""
        room = backend.context_size - self.settings.max_tokens
        kept = list(statements)
        while True:
            text = _without_special_tokens(" ".join(s + "." for s in kept), backend.special_tokens)
            messages = self.prompt.messages(text)
            if backend.count_prompt_tokens(messages) <= room or not kept or not kept[0]:
                return messages
            if len(kept) > 1:
                kept.pop()
            else:
                kept[0] = kept[0][: len(kept[0]) // 2]

    def _consider(self, candidate: FactCandidate, message: str, result: DistillResult,
                  clauses: Sequence[Clause] | None = None) -> None:
        reason = self.checker.reason_to_reject(candidate.text, message, clauses)
        if reason is None:
            reason = _duplicate_reason(candidate, result.candidates)
        if reason is None:
            result.candidates.append(candidate)
            return
        result.rejected.append((candidate.text, reason))
        log.info("distill rejected %s candidate %r: %s", candidate.route, candidate.text, reason)


def parse_answer(text: str, schema: dict[str, Any]) -> tuple[list[str], bool]:
    """The memories in a model answer and whether the answer was valid JSON for the schema.
    Tolerant: a broken answer still yields the quoted strings of its memories list. A
    `"save": false` answer yields no memories."""
    import jsonschema  # 0.1 s to import: only once the model has answered

    try:
        data = json.loads(text)
        _validator(json.dumps(schema, sort_keys=True)).validate(data)
    except (json.JSONDecodeError, jsonschema.ValidationError):
        return _salvage(text), False
    return (list(data["memories"]) if data["save"] else []), True


@lru_cache(maxsize=4)
def _validator(schema_json: str) -> jsonschema.protocols.Validator:
    import jsonschema

    schema = json.loads(schema_json)
    return jsonschema.validators.validator_for(schema)(schema)


def _salvage(text: str) -> list[str]:
    if re.search(r'"save"\s*:\s*false', text):
        return []
    listed = re.search(r'"memories"\s*:\s*\[(.*?)(?:\]|$)', text, re.S)
    if not listed:
        return []
    return [s for s in re.findall(r'"((?:[^"\\]|\\.)*)"', listed.group(1)) if s.strip()][:MAX_MEMORIES]


def _uncovered(durable: list[Clause], rule_facts: list[RuleFact]) -> list[Clause]:
    covered = {fact.clause for fact in rule_facts}
    return [clause for clause in durable if clause.text not in covered]


def _speaks_of(fact: str, clause: str) -> bool:
    """Whether the fact says what the clause says: most of the fact's content words come from
    the clause and it keeps at least half of the clause's. A fact that drops most of what the
    user said ("listens to music" for "work at the flower shop, but in my spare time listen to
    music") leaves the clause to be kept in the user's own words."""
    stems, said = content_stems(fact), content_stems(clause)
    shared = len(stems & said)
    return bool(stems) and shared * 2 >= len(stems) and shared * 2 >= len(said)


def _duplicate_reason(candidate: FactCandidate, accepted: list[FactCandidate]) -> str | None:
    stems = content_stems(candidate.text)
    for other in accepted:
        if candidate.key is not None and candidate.key == other.key:
            return f"same {candidate.key[1]} as an accepted {other.route} fact"
        theirs = content_stems(other.text)
        if stems and len(stems & theirs) / len(stems | theirs) >= 0.8:
            return f"repeats an accepted {other.route} fact"
    return None


def _without_special_tokens(text: str, special: list[str]) -> str:
    for token in special:
        text = text.replace(token, " ")
    return text
