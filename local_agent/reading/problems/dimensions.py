"""What each quantity measures, and whether a candidate's measure is the one the question asks
for: a units check on the solver's candidates.

A quantity measures money ("$7.80", "36 euros"), a measure a rate names ("32 miles per
gallon": miles over gallons; "$3.89 a gallon": money over gallons; "$14 each": money over one
item; "65 mph"), or a count of things ("12 pens": items; "350 miles" is miles when a rate of the
problem names miles). A candidate's measure composes from its quantities': × adds the powers,
÷ takes them away, + and - need the same measure (a bare count or number fits any), a
percentage changes nothing. The question asks for money ("how much will the fuel cost", "what
do I pay") or for the money of one item ("price per item", "how much was each ticket"); any
other question asks for nothing this check reads.

A candidate whose measure is not the one asked is no answer: 12 pens × $7.80 is no price per
item, 32 miles per gallon × $3.89 a gallon is no amount of money (it lacks the distance).
Counts of things are told apart only when the question asks for one item's money.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence

from ..words import word_set
from .candidates import Candidate
from .quantities import STOP, Quantity, Reading, singular

MONEY = "$"
ITEM = "#"  # one of the things counted
Measure = Counter[str]  # each unit's power: {"$": 1, "gallon": -1}
_PER = frozenset({"per", "a", "an", "every"})
_EACH = frozenset({"each", "apiece"})
_SPEEDS = {"mph": ("mile", "hour"), "kph": ("km", "hour"), "kmh": ("km", "hour")}
_EACH_BEFORE = frozenset({"each", "every", "per"})
_RATE_NOUNS = word_set("rate_nouns")
_MONEY_ASKED = frozenset({"cost", "costs", "pay", "paid", "spend", "spent", "price", "bill", "owe", "charge",
                          "charged", "fare", "fee", "money"})


def rate_of(quantity: Quantity) -> tuple[str, str]:
    """What a quantity counts and what it is per, read from the words right after it: ("mile",
    "gallon") for "32 miles per gallon", ("", ITEM) for "$14 each" or "each piece costs 30
    cents" (money only: "4 tires each" is a count), ("", "") for no rate."""
    if quantity.money and _EACH_BEFORE & set(_before(quantity)):
        return ("", ITEM)
    content: list[str] = []
    for at, word in enumerate(quantity.after):
        following = quantity.after[at + 1] if at + 1 < len(quantity.after) else ""
        if word in _SPEEDS:
            return _SPEEDS[word]
        if word == "for" and following in _EACH | {"every"}:
            continue  # "$8.00 for every mile", "$9.00 for each game"
        top = content[0] if content and not quantity.money else ""
        if word in _EACH and quantity.money:
            return (top, ITEM)
        if word in _PER and following.isalpha() and (word in ("per", "every") or following in _RATE_NOUNS):
            return (top, singular(following))
        if not word.isalpha() or word in STOP or len(content) == 2:
            break
        content.append(singular(word))
    return ("", "")


def _measures(quantities: Sequence[Quantity]) -> list[Measure]:
    """Each quantity's measure; a counted noun is itself only when a rate of the problem names it."""
    rates = [rate_of(quantity) for quantity in quantities]
    named = {word for top, per in rates for word in (top, per) if word and word != ITEM}
    found: list[Measure] = []
    for quantity, (top, per) in zip(quantities, rates, strict=True):
        if quantity.percent:
            found.append(Counter())
            continue
        noun = top or (quantity.unit[-1] if quantity.unit and quantity.unit[0] != "money" else "")
        measure = Counter({MONEY if quantity.money else (noun if noun in named else ITEM): 1})
        if per:
            measure[per] -= 1
        found.append(measure)
    return found


def _before(quantity: Quantity) -> tuple[str, ...]:
    """The words before a quantity in its context, back to the start of its clause."""
    before = quantity.context[:len(quantity.context) - len(quantity.after[:3])]
    cut = max((at for at, word in enumerate(before) if word in {",", ".", ";", "?", "and"}), default=-1)
    return before[cut + 1:]


def _bare(measure: Measure) -> bool:
    return all(unit == ITEM for unit, power in measure.items() if power)


def _compose(candidate: Candidate | int, measures: Sequence[Measure]) -> Measure | None:
    """The measure of a candidate (or of a quantity, by index), or None when it adds unlike things."""
    if isinstance(candidate, int):
        return measures[candidate]
    left, right = _compose(candidate.left, measures), _compose(candidate.right, measures)
    if left is None or right is None:
        return None
    if candidate.top == "*":
        return Counter({k: left[k] + right[k] for k in left.keys() | right.keys()})
    if candidate.top in ("/", "floor", "ceil"):
        return Counter({k: left[k] - right[k] for k in left.keys() | right.keys()})
    if candidate.top in ("pct_off", "pct_up"):
        return left
    if _same(left, right) or _bare(right):  # +, -, mod
        return left
    return right if _bare(left) else None


def _same(one: Measure, other: Measure) -> bool:
    return all(one[unit] == other[unit] for unit in one.keys() | other.keys())


def asked_measure(reading: Reading) -> Measure | None:
    """The measure the question asks for: money, or money per item (or per a named unit);
    None when it asks for something this check does not read."""
    words = set(reading.question_words)
    if any(word == "how" and after == "many" for word, after in itertools.pairwise(reading.question_words)):
        return None  # "how many pencils can she buy with the money"
    has_money = any(quantity.money for quantity in reading.quantities)
    each = _asked_per(reading.question_words)  # "what is that per yogurt", money in the problem: a price
    money = bool(words & _MONEY_ASKED) or (has_money and (reading.asked_unit[:1] == ("money",) or bool(each)))
    if not money:
        return None
    if each:
        named = {per for _, per in map(rate_of, reading.quantities)}
        return Counter({MONEY: 1, (each if each in named else ITEM): -1})
    return Counter({MONEY: 1})


def _asked_per(words: Sequence[str]) -> str:
    """What the question asks the money of one of ("how much was each ticket": ticket, "price
    per item": item), after its last question word ("If each ball costs $1.54, how much for
    three?" asks for no one ball), or ""."""
    start = max((at for at, word in enumerate(words) if word in ("how", "what", "what's", "whats")), default=-1)
    asked, start = start >= 0, max(start, 0)
    for at in range(start, len(words)):
        following = words[at + 1] if at + 1 < len(words) else ""
        if words[at] in _EACH_BEFORE | {"one", "1"} and following.isalpha() and following not in ("of", "more"):
            return singular(following)
        if asked and words[at] in _EACH and not following.isalpha():  # "how much each?", not "12 euros each, total?"
            return "item"
    return ""


def unit_check(reading: Reading) -> Callable[[Candidate], bool] | None:
    """Whether a candidate measures what the question asks (counts of things compared only when
    one item's money is asked); None when the question asks for nothing this check reads."""
    asked = asked_measure(reading)
    if asked is None:
        return None
    measures, per_item = _measures(reading.quantities), asked[ITEM] != 0

    def fits(candidate: Candidate) -> bool:
        measure = _compose(candidate, measures)
        return measure is not None and all(measure[unit] == asked[unit] for unit in measure.keys() | asked.keys()
                                           if per_item or unit != ITEM)
    return fits
