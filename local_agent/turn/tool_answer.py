"""The last step of a tool turn: the model phrases the answer, and the program decides what it
may say.

The answer step sees only the question and this turn's results (never the worked examples
or the dialogue), so no example value can reach it. Every number, date, weekday, time and
name in its answer must be supported by those results or the question (grounding/), and it
must state at least one value the tools returned (an answer that only restates the question
says nothing) and every word of a one-row query result (the group a "which ...?" asks for).
An answer that fails gets one retry, with the result quoted right before the answer; if that
fails too the answer is built from the result by template (tools/plain.py). A turn whose
every call failed or came back empty gets an answer that says so, and the model is not asked.

The path taken is the answer's `check`: accepted, retried, templated or failed."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..backends.base import Backend
from ..grounding import Support, Value, check
from ..tools.loop import ASK_USER, ToolCall
from ..tools.plain import failure_answer, one_row_words, plain_answer, usable
from ..tools.text import quoted_result
from ..types import GenerationSettings, Message

Check = Literal["direct", "accepted", "retried", "templated", "failed", "asked"]
ANSWER_TOKENS = 60
MAX_ANSWER_CHARS = 400
SYSTEM = ("You answer the user's question from the tool results you are given. Write one short "
          "sentence. Use only numbers, dates and names that are in the results.")
RETRY = "The result: {result}\nAnswer the question in one sentence with this result."
_ROW_COUNT = re.compile(r"^\(\d+ rows[^)]*\)$", re.M)  # a SQL result's row count states nothing asked


@dataclass(frozen=True)
class Phrased:
    """An answer, how it was reached, and the values the rejected drafts asserted unsupported."""

    text: str
    check: Check
    rejected: tuple[Value, ...] = ()
    tokens: dict[str, int] = field(default_factory=lambda: {"prompt": 0, "completion": 0})


def sources(question: str, calls: Sequence[ToolCall]) -> list[str]:
    """What an answer may draw its values from: the question, the results that came back
    with the arguments that gave them (a query's filter on Oslo makes "they live in Oslo"
    true of its rows), and what the user replied when asked."""
    good = usable(calls)
    return [question, *(call.result for call in good), *(_argument_text(call.arguments) for call in good),
            *(call.result for call in calls if call.name == ASK_USER)]


def _argument_text(arguments: object) -> str:
    """The values in a call's arguments, one a line."""
    if isinstance(arguments, dict):
        return "\n".join(_argument_text(value) for value in arguments.values())
    if isinstance(arguments, list):
        return "\n".join(_argument_text(value) for value in arguments)
    return str(arguments)


def names_row(draft: str, call: ToolCall) -> bool:
    """Whether `draft` names each word of a one-row SQL result ("healthcare" for "which industry
    do most of them work in?"): "The answer is: 13." states the count and leaves out what was asked."""
    said = draft.lower()
    return all(word.lower() in said for word in one_row_words(call))


def first_sentences(text: str) -> str:
    """The model's answer: its first line, without wrapping quotes, within the length cap."""
    line = next((line.strip() for line in text.strip().splitlines() if line.strip()), "")
    line = line.strip('"').strip()
    if len(line) > MAX_ANSWER_CHARS:
        line = line[:MAX_ANSWER_CHARS].rsplit(" ", 1)[0] + " ..."
    return line


class AnswerStep:
    """Phrases the answer of a tool turn over `backend`, greedily."""

    def __init__(self, backend: Backend, seed: int = 0) -> None:
        self.backend = backend
        self.seed = seed

    def answer(self, question: str, calls: Sequence[ToolCall], notice: str = "") -> Phrased:
        good = usable(calls)
        tokens = {"prompt": 0, "completion": 0}
        if not calls and not notice:  # the model called nothing: it may answer from the question alone
            draft = self._generate(question, "", tokens)
            verdict = check(draft, [question])
            if draft and verdict.ok:
                return Phrased(draft, "accepted", (), tokens)
            return Phrased(failure_answer(calls, question), "failed", verdict.unsupported, tokens)
        if not good:
            return Phrased(failure_answer(calls, question), "failed")
        support = Support(sources(question, calls))
        returned = Support(_ROW_COUNT.sub("", call.result) for call in good)
        rejected: list[Value] = []
        results = "\n\n".join(quoted_result(call.name, call.result, special_tokens=self.backend.special_tokens)
                              for call in good)
        plain = plain_answer(good[-1])
        for path, prompt in (("accepted", results), ("retried", results + "\n\n" + RETRY.format(result=plain))):
            draft = self._generate(question, prompt, tokens)
            verdict = check(draft, support)
            if draft and verdict.ok and any(returned.supports(value) for value in verdict.values) and names_row(
                    draft, good[-1]):
                return Phrased(draft, path, tuple(rejected), tokens)  # type: ignore[arg-type]
            rejected += verdict.unsupported
        return Phrased(plain, "templated", tuple(rejected), tokens)

    def _generate(self, question: str, results: str, tokens: dict[str, int]) -> str:
        messages = [Message("system", SYSTEM), Message("user", f"{question.strip()}\n\n{results}".strip())]
        settings = GenerationSettings(max_tokens=ANSWER_TOKENS, temperature=0.0, seed=self.seed)
        completion = self.backend.generate(messages, settings)
        tokens["prompt"] += completion.prompt_tokens
        tokens["completion"] += completion.completion_tokens
        return first_sentences(completion.text)
