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
from collections.abc import Sequence
from dataclasses import dataclass

from ..words import word_set
from .candidates import Candidate, asks_for_both, candidates
from .dimensions import unit_check
from .features import features
from .quantities import Quantity, Reading, read, singular
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


# What the question's own words ask for, and the operations that do it: "how many are left"
# takes away (or keeps a remainder), "on average" shares out, "what percent" asks for a share (words.toml).
_ASKED_CUES = ((word_set("cue_left", "cue_difference"), ("-", "remainder", "less")), (word_set("cue_average"), ("÷",)),
               (word_set("cue_percent"), ("%",)))  # no candidate takes a share × 100
_TOTAL_CUES = word_set("cue_total")
_CUE_ASKS = {**dict.fromkeys(word_set("cue_total"), "for both amounts added together"),
             **dict.fromkeys(word_set("cue_left", "cue_difference"), "to take something away"),
             **dict.fromkeys(word_set("cue_average"), "to share out"),
             **dict.fromkeys(word_set("cue_percent"), "for a share")}


def _cue_asks(cue: str) -> str:
    if cue.endswith(" than"):
        return "the other way round"
    if cue.startswith("and "):
        return "to count one more"
    return _CUE_ASKS.get(cue, "for a product or a share")


def cue_missed(text: str, expression: str, question: Sequence[str] = ()) -> str | None:
    """The words of `text` that ask to multiply or take a share ("3 times as many", "twice as
    old") when `expression` neither multiplies nor divides, or the word of the `question`'s
    words that asks to take away ("left") or share out ("average") when `expression` does
    neither; else None."""
    found = _MULTIPLYING.search(text)
    if found and "×" not in expression and "÷" not in expression:
        return found.group()
    for cue_words, operations in _ASKED_CUES:
        cue = next((word for word in question if word in cue_words), None)
        if cue and not any(operation in expression for operation in operations):
            return cue
    return None


def comparison_missed(reading: Reading, candidate: Candidate) -> str | None:
    """A comparison the reading turns the wrong way, as written ("36 more than"): "74 stamps,
    36 more than Mark" asks for Mark's by taking away, "Kim has 4 more than Jo" for Kim's by
    adding. It is checked where the question names the one compared with (`than`) or the one
    compared (`owner`), and `candidate` uses the compared quantity with neither + nor -
    of the direction that reads it; else None."""
    used = candidate.leaves_set()
    for at, quantity in enumerate(reading.quantities):
        if at not in used or not quantity.compared or not quantity.than or not reading.asked_owner:
            continue
        asked_base = reading.asked_owner == quantity.than
        if not asked_base and reading.asked_owner != quantity.owner:
            continue
        adds = (quantity.compared == "more") != asked_base  # Kim's "4 more than Jo": add; Jo's: take away
        if ("+" if adds else "-") not in candidate.text(reading.quantities):
            return f"{quantity.text} {quantity.compared} than"
    total = next((word for word in reading.question_words if word in _TOTAL_CUES), None)
    if total and any(q.compared and q.than for q in reading.quantities) and len(candidate.leaves()) < 3:
        return total  # both amounts asked, one of them compared: the base counts twice
    return None


_COMPANY = word_set("company_nouns")
_WITH = frozenset({"his", "her", "my", "their", "our"})
_WHO = frozenset({"NAME", "me", "i", "he", "she", "we", "you", "myself"})


def company_missed(reading: Reading, candidate: Candidate) -> str | None:
    """A count of people with someone besides ("Bob and his 4 friends", "between me and 4
    friends": 5 people) that `candidate` uses as the whole count, as written; None when it
    uses none, or the question asks for those people ("how many friends")."""
    for at in candidate.leaves_set():
        quantity = reading.quantities[at]
        before = list(quantity.context[:len(quantity.context) - len(quantity.after[:3])])
        before = before[:-1] if before[-1:] and before[-1] in _WITH else before
        noun = quantity.after[0] if quantity.after else ""
        if (noun in _COMPANY and before[-2:-1] and before[-2] in _WHO and before[-1] == "and"
                and singular(noun) not in reading.asked_unit):
            return f"and {quantity.text} {noun}"
    return None


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
    cue = (cue_missed(text, expression, ranked.reading.question_words)  # "3 times as many" read as 3 + 14
           or comparison_missed(ranked.reading, best) or company_missed(ranked.reading, best))
    if margin >= needed and cue:
        return Unsure(expression, value, f"I read this as {expression} = {number_text(value)}, but \"{cue}\" asks "
                      f"{_cue_asks(cue)}; is that what you meant?", margin,
                      "a cue left out")
    if margin >= needed:
        return Solved(expression, value, f"I read this as {expression} = {number_text(value)}.", margin)
    return Unsure(expression, value, f"I read this as {expression} = {number_text(value)}, is that what you meant?",
                  margin, "a quantity left unused" if unused and margin >= weights.margin else "low margin")
