"""The check shared by every grounded answer: which proper names and numbers of an answer none
of its sources holds (`names` and `values` define both). Sources are what the model was shown
and may draw on: for a memory answer, the memories in the prompt, the dialogue (and its
summary), today's date and the question; for a tool answer, the tool results as well."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .names import unsupported_names
from .numbers import unsupported_numbers


@dataclass(frozen=True)
class Unsupported:
    """What an answer asserts that its sources do not hold (empty: the answer is grounded)."""

    names: tuple[str, ...] = ()
    numbers: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.names or self.numbers)

    def describe(self) -> str:
        """One line for logs and traces: "names Lena, Porto; numbers 7"."""
        parts = [f"{label} {', '.join(items)}" for label, items in (("names", self.names), ("numbers", self.numbers))
                 if items]
        return "; ".join(parts)


def unsupported(answer: str, sources: Iterable[str], *, cut: bool = False) -> Unsupported:
    """The names and numbers of `answer` that none of `sources` holds. An answer `cut` by the
    token limit is checked without its last word, which may be cut too ("(12 July 20"); any
    other answer is checked to its end, full stop or not ("The answer is: 3")."""
    sources = list(sources)
    if cut and len(answer.split()) > 1:
        answer = answer.rstrip().rsplit(None, 1)[0]
    return Unsupported(tuple(unsupported_names(answer, sources)),
                       tuple(mention.text for mention in unsupported_numbers(answer, sources)))
