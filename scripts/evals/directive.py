"""Which system setup answers everyday prompts better (scripts/eval_directive.py): our directive
as `compose` renders it (with today's date, and recalled memories as quoted data above the
message), against the model's own default setup, as `llm` runs it: no system message of ours,
so the chat template puts in its own default (SmolLM2's "You are a helpful AI assistant named
SmolLM, trained by Hugging Face"). Memories and the earlier exchange reach the model the same
way in every setup; only the system message differs.

Each case has a checkable answer, scored automatically: the keywords it must contain (each a
set of alternatives), whether it speaks to the user rather than of "the user", and whether it
repeats the previous answer to a different question word for word.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from local_agent.config import DEFAULT_CTX_SIZE, Settings
from local_agent.prompt import DEFAULT_SYSTEM, Budget, compose
from local_agent.types import MemoryRecord, Message, Provenance

TODAY = "2024-05-20"
NOTED = "2024-05-02T18:30"


@dataclass(frozen=True)
class Case:
    name: str
    message: str
    keywords: tuple[tuple[str, ...], ...] = ()  # every group must have one of its words in the answer
    memories: tuple[str, ...] = ()  # facts, rendered as the prompt renders a recalled fact
    previous: tuple[str, str] | None = None  # an earlier exchange (question, answer) in the dialogue
    second_person: bool = False  # the answer speaks to the user, never of "the user"


CASES: tuple[Case, ...] = (
    Case("greeting", "hi", (("hello", "hi", "hey", "greetings"),)),
    Case("greeting-how", "Hello! How are you?", (("good", "well", "great", "fine", "doing", "thank", "thanks"),)),
    Case("thanks", "Thanks for your help!", (("welcome", "glad", "pleasure", "happy"),)),
    Case("morning", "Good morning!", (("morning", "hello", "hi"),)),
    Case("capital", "What is the capital of France?", (("paris",),)),
    Case("colour", "What colour is the sky on a clear day?", (("blue",),)),
    Case("legs", "How many legs does a spider have?", (("8", "eight"),)),
    Case("add", "What is 2 + 3?", (("5", "five"),)),
    Case("multiply", "What is 6 times 7?", (("42", "forty-two"),)),
    Case("subtract", "What is 10 minus 4?", (("6", "six"),)),
    Case("opposite", "What is the opposite of hot?", (("cold",),)),
    Case("week", "How many days are in a week?", (("7", "seven"),)),
    Case("today", "What is today's date?", (("20", "2024-05-20"), ("may", "2024-05-20"))),
    Case("name", "What is my name?", (("alexandra",),), memories=("The user's name is Alexandra.",),
         second_person=True),
    Case("home", "Where do I live?", (("lisbon",),), memories=("The user lives in Lisbon.",), second_person=True),
    Case("food", "What food do I like?", (("sushi",),), memories=("The user likes sushi.",), second_person=True),
    Case("age", "How old am I?", (("34",),), memories=("The user is 34 years old.",), second_person=True),
    Case("diet", "Can you suggest a dinner for me tonight?", (), memories=("The user is vegetarian.",),
         second_person=True),
    Case("snack", "Can you suggest a snack for me?", (), memories=("The user is vegetarian.",),
         previous=("Can you suggest a dinner for me tonight?",
                   "Since you are vegetarian, try a vegetable stir-fry with tofu and rice."),
         second_person=True),
    Case("pet", "What is my dog called?", (("rex",),), memories=("The user's dog is called Rex.",),
         previous=("What is my name?", "Your name is Alexandra."), second_person=True),
)

PREVIOUS_SYSTEM = (  # the directive before this comparison, kept as a reference
    "You are a concise, helpful assistant running privately on the user's computer. "
    "Answer briefly. When the notes from memory answer a question, use them instead of guessing; "
    "if you do not know, say so."
)
SETUPS: dict[str, str | None] = {
    "model_default": None,  # no system message of ours: the chat template's own default
    "previous": PREVIOUS_SYSTEM,
    "ours": DEFAULT_SYSTEM,
}


def messages_for(case: Case, directive: str | None, counter: Any) -> list[Message]:
    """The messages one setup sends: `compose` for ours, the same without the system message
    (and so without today's date) for the model's default."""
    memories = [_rendered(text) for text in case.memories]
    history = [Message("user", case.previous[0]), Message("assistant", case.previous[1])] if case.previous else []
    budget = Budget.for_context(DEFAULT_CTX_SIZE, 128, Settings.memory_tokens)
    composed = compose(message=case.message, counter=counter, budget=budget,
                       today=TODAY, directive=directive or DEFAULT_SYSTEM, history=history, memories=memories,
                       special_tokens=counter.special_tokens)
    return composed.messages if directive is not None else composed.messages[1:]


def _rendered(text: str) -> str:
    from local_agent.memory.index.render import prompt_text

    record = MemoryRecord(id="m", kind="fact", text=text, provenance=Provenance(role="user", date=NOTED))
    return prompt_text(record)


def score(case: Case, answer: str) -> dict[str, bool]:
    """The checks that apply to `case`, each True when the answer passes it."""
    words = set(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)*", answer.lower()))
    plain = " ".join(answer.lower().split())
    checks = {"answered": bool(plain)}
    if case.keywords:
        checks["keywords"] = all(any(word in words or word in plain for word in group) for group in case.keywords)
    if case.second_person:
        checks["second_person"] = not re.search(r"\b(the )?user(s|'s)?\b", plain)
    if case.previous:
        checks["no_repeat"] = _overlap(case.previous[1], answer) < 0.8
    return checks


def _overlap(before: str, after: str) -> float:
    """The share of the new answer's word 3-grams already in the previous answer."""
    def grams(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"[a-z0-9']+", text.lower())
        return {tuple(words[i:i + 3]) for i in range(max(0, len(words) - 2))}

    new = grams(after)
    return len(new & grams(before)) / len(new) if new else 0.0


def evaluate(backend: Any, setups: dict[str, str | None] = SETUPS, cases: Sequence[Case] = CASES,
             max_tokens: int = 96) -> dict[str, Any]:
    """Every case under every setup, with chat's generation settings (greedy by default); per
    setup the share of checks passed and of cases passing all their checks, and each answer."""
    from local_agent.config import Settings

    settings = dataclasses.replace(Settings().generation(), max_tokens=max_tokens)
    report: dict[str, Any] = {}
    for name, directive in setups.items():
        rows = []
        for case in cases:
            answer = backend.generate(messages_for(case, directive, backend), settings).text.strip()
            rows.append({"case": case.name, "answer": answer, "checks": score(case, answer)})
        checks = [passed for row in rows for passed in row["checks"].values()]
        report[name] = {"cases_passed": round(sum(all(r["checks"].values()) for r in rows) / len(rows), 3),
                        "checks_passed": round(sum(checks) / len(checks), 3), "answers": rows}
    return report
