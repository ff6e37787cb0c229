"""Solve an everyday word problem, or say how it was read and that it is not sure.

The problem is read once (its quantities and what its question asks), every one- and
two-operation expression over the quantities is proposed, and the trained ranker scores them.
Candidates with the same value pool their probability; the best value is the answer only when
it wins over the next value by the shipped margin, a larger one when the best expression
leaves a quantity of the problem unused (a reason to doubt it). Otherwise the result is
`Unsure`, with the reading to say back: "I read this as 36 ÷ 4 = 9, is that what you meant?"; so
is a winner whose units are not the ones the question asks for (dimensions.py: 12 pens × $7.80
is no price per item), and one that adds where the problem says "3 times as many" or "twice as
old" (`cue_missed`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .candidates import Candidate, asks_for_both, candidates
from .dimensions import unit_check
from .features import features
from .quantities import Quantity, Reading, read
from .ranker import RankerWeights, shipped, softmax


@dataclass(frozen=True)
class Solved:
    """An answer the program stands behind."""

    expression: str  # "36 ÷ 4"
    value: float
    reading: str  # "I read this as 36 ÷ 4 = 9."
    margin: float  # how far the answer's probability is above the next value's

    @property
    def answer(self) -> str:
        return number_text(self.value)


@dataclass(frozen=True)
class Unsure:
    """No answer the program stands behind: the best reading, if any, to say back and ask."""

    expression: str  # "" when no expression was read
    value: float | None
    reading: str  # "I read this as 36 ÷ 4 = 9, is that what you meant?", or "" when nothing was read
    margin: float
    reason: str  # "fewer than two quantities", "no candidate", "low margin", "a quantity left unused"


@dataclass(frozen=True)
class Ranked:
    """A problem's candidate values, best first: each value's pooled probability and its best
    expression."""

    reading: Reading
    values: tuple[tuple[float, float, Candidate], ...]


# "3 times as many", "twice as old", "double", "half as much": a product or a share, never a sum.
_MULTIPLYING = re.compile(r"\b(?:\d+(?:\.\d+)?|two|three|four|five|six|ten)\s+times\s+(?:as|more|bigger|larger|older)\b"
                          r"|\b(?:twice|double|triple|thrice|half\s+as)\b", re.IGNORECASE)


def cue_missed(text: str, expression: str) -> str | None:
    """The words of `text` that ask to multiply or take a share ("3 times as many", "twice as
    old") when `expression` neither multiplies nor divides, else None."""
    found = _MULTIPLYING.search(text)
    return found.group() if found and "×" not in expression and "÷" not in expression else None


def by_one(candidate: Candidate, quantities: tuple[Quantity, ...]) -> str | None:
    """A quantity of 1 that `candidate` multiplies or divides by ("35 ÷ 1" for "one can covers
    35 square metres"), as written: it changes nothing, so the reading uses one number, not two;
    else None."""
    for side in (candidate.left, candidate.right):
        if isinstance(side, Candidate):
            if (found := by_one(side, quantities)) is not None:
                return found
        elif candidate.top in ("*", "/", "floor", "ceil") and quantities[side].value == 1 \
                and (side == candidate.right or candidate.top == "*"):
            return quantities[side].text
    return None


def number_text(value: float) -> str:
    rounded = round(value, 2)
    return f"{int(rounded)}" if rounded == int(rounded) else f"{rounded:.2f}".rstrip("0")


def rank(text: str, weights: RankerWeights | None = None) -> Ranked:
    """Every candidate value of the problem in `text`, best first."""
    weights = weights or shipped()
    reading = read(text)
    proposed = candidates(reading.quantities, both=asks_for_both(reading.question_words))
    if not proposed:
        return Ranked(reading, ())
    probabilities = softmax([weights.score(features(reading, c)) for c in proposed])
    pooled: dict[float, tuple[float, float, Candidate]] = {}
    for candidate, probability in zip(proposed, probabilities, strict=True):
        key = round(candidate.value, 6)
        total, best, chosen = pooled.get(key, (0.0, -1.0, candidate))
        pooled[key] = (total + probability, max(best, probability), candidate if probability > best else chosen)
    ordered = sorted(pooled.values(), key=lambda item: -item[0])
    return Ranked(reading, tuple((c.value, total, c) for total, _, c in ordered))


def solve(text: str, weights: RankerWeights | None = None) -> Solved | Unsure:
    """The answer to the word problem in `text`, or Unsure with its reading."""
    weights = weights or shipped()
    ranked = rank(text, weights)
    if len(ranked.reading.quantities) < 2:
        return Unsure("", None, "", 0.0, "fewer than two quantities")
    if not ranked.values:
        return Unsure("", None, "", 0.0, "no candidate")
    value, probability, best = ranked.values[0]
    margin = probability - (ranked.values[1][1] if len(ranked.values) > 1 else 0.0)
    expression = best.text(ranked.reading.quantities)
    unused = len(ranked.reading.quantities[:6]) > len(best.leaves_set())
    needed = weights.margin_unused if unused else weights.margin
    fits = unit_check(ranked.reading)
    if margin >= needed and fits is not None and not fits(best):  # 12 pens × $7.80 is no price per item
        return Unsure(expression, value, f"I read this as {expression} = {number_text(value)}, but that does not "
                      "give what you asked for; could you say how you would work it out?", margin, "units")
    if margin >= needed and (one := by_one(best, ranked.reading.quantities)) is not None:  # "35 ÷ 1"
        return Unsure(expression, value, f"I read this as {expression} = {number_text(value)}, but the {one} there "
                      "changes nothing; could you say how you would work it out?", margin, "a one that changes nothing")
    if margin >= needed and (cue := cue_missed(text, expression)):  # "3 times as many" read as 3 + 14
        return Unsure(expression, value, f"I read this as {expression} = {number_text(value)}, but \"{cue}\" asks "
                      "for a product or a share; is that what you meant?", margin, "a cue left out")
    if margin >= needed:
        return Solved(expression, value, f"I read this as {expression} = {number_text(value)}.", margin)
    return Unsure(expression, value, f"I read this as {expression} = {number_text(value)}, is that what you meant?",
                  margin, "a quantity left unused" if unused and margin >= weights.margin else "low margin")
