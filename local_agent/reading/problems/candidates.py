"""Candidate expressions over a problem's quantities: every one- and two-operation expression
(+, -, x, / and, for sharing out, floor, ceiling and remainder), and for a percentage, the
share of an amount, the amount less it and the amount plus it.

A candidate keeps its shape (the top operation, the inner one, which quantities sit on which
side), so that the ranker can read each quantity's role. Candidates with no value (a division
by zero), a negative or zero one are left out: an everyday question does not ask for them; so
are floor and ceiling of a whole quotient, which is the division itself.

A quantity is used once, except that a question for two sides together may use again the
quantity a comparison is made with ("Jo has 7 pens and Kim has 4 more than Jo. How many pens do
they have together?": 7 + (7 + 4))."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .quantities import Quantity

SYMBOLS = {"+": "+", "-": "-", "*": "×", "/": "÷", "floor": "÷", "ceil": "÷", "mod": "mod",
           "pct_off": "less", "pct_up": "plus"}
_APPLY: dict[str, Callable[[float, float], float]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
    "floor": lambda a, b: float(math.floor(a / b + 1e-9)), "ceil": lambda a, b: float(math.ceil(a / b - 1e-9)),
    "mod": lambda a, b: a - b * math.floor(a / b + 1e-9),
    "pct_off": lambda a, b: a * (1 - b), "pct_up": lambda a, b: a * (1 + b)}
COMMUTATIVE = frozenset({"+", "*"})
INNER_OPS = ("+", "-", "*", "/", "pct_off", "pct_up")
OUTER_OPS = ("+", "-", "*", "/", "floor", "ceil", "mod", "pct_off", "pct_up")
MAX_QUANTITIES = 6
BOTH = frozenset({"together", "altogether", "total", "all", "both", "combined", "sum"})


@dataclass(frozen=True)
class Candidate:
    """An expression over quantities: `top` applied to `left` and `right`, each a quantity's
    index or an inner candidate."""

    top: str
    left: Candidate | int
    right: Candidate | int
    value: float

    def leaves(self) -> tuple[tuple[int, str], ...]:
        """Each quantity the expression uses, with its side of the top operation (L or R)."""
        return tuple((leaf, "L") for leaf in _leaves(self.left)) + tuple((leaf, "R") for leaf in _leaves(self.right))

    def leaves_set(self) -> frozenset[int]:
        return frozenset(leaf for leaf, _ in self.leaves())

    @property
    def inner(self) -> str:
        for side in (self.left, self.right):
            if isinstance(side, Candidate):
                return side.top
        return ""

    def text(self, quantities: tuple[Quantity, ...]) -> str:
        """The expression as a person reads it: "36 ÷ 4", "⌊50 ÷ 8⌋", "80 less 25%"."""
        left, right = (_side_text(side, quantities, self.top) for side in (self.left, self.right))
        if self.top == "floor":
            return f"⌊{left} ÷ {right}⌋"
        if self.top == "ceil":
            return f"⌈{left} ÷ {right}⌉"
        if self.top == "mod":
            return f"the remainder of {left} ÷ {right}"
        return f"{left} {SYMBOLS[self.top]} {right}"


def _leaves(side: Candidate | int) -> tuple[int, ...]:
    if isinstance(side, int):
        return (side,)
    return _leaves(side.left) + _leaves(side.right)


def _side_text(side: Candidate | int, quantities: tuple[Quantity, ...], outer: str) -> str:
    if isinstance(side, Candidate):
        inner = side.text(quantities)
        return f"({inner})"
    quantity = quantities[side]
    if quantity.percent:
        return f"{quantity.value * 100:g}%"
    return f"{quantity.value:g}"


def _allowed(op: str, left: Candidate | int, right: Candidate | int, quantities: tuple[Quantity, ...]) -> bool:
    """A percentage is taken of an amount (x), or off it or on top of it (on the right)."""
    left_percent = isinstance(left, int) and quantities[left].percent
    right_percent = isinstance(right, int) and quantities[right].percent
    if op.startswith("pct_"):
        return right_percent and not left_percent
    if left_percent or right_percent:
        return op == "*" and not (left_percent and right_percent)
    return True


def _combine(op: str, left: Candidate | int, right: Candidate | int, quantities: tuple[Quantity, ...],
             values: tuple[float, float]) -> Candidate | None:
    if not _allowed(op, left, right, quantities):
        return None
    try:
        value = _APPLY[op](*values)
    except (ZeroDivisionError, OverflowError):
        return None
    if value <= 0 or math.isnan(value) or math.isinf(value):
        return None
    if op in {"floor", "ceil"} and abs(values[0] / values[1] - round(values[0] / values[1])) < 1e-9:
        return None  # a whole quotient is the division itself
    return Candidate(op, left, right, value)


def _value(side: Candidate | int, quantities: tuple[Quantity, ...]) -> float:
    return side.value if isinstance(side, Candidate) else quantities[side].value


def _pairs(sides: list[Candidate | int], ops: tuple[str, ...], quantities: tuple[Quantity, ...],
           first: Candidate | int) -> Iterator[Candidate]:
    for other in sides:
        for op in ops:
            orders = [(first, other)] if op in COMMUTATIVE else [(first, other), (other, first)]
            for left, right in orders:
                made = _combine(op, left, right, quantities, (_value(left, quantities), _value(right, quantities)))
                if made is not None:
                    yield made


def _reused(inner: Candidate, quantities: tuple[Quantity, ...]) -> list[Candidate | int]:
    """The quantity an inner sum or difference may use again: the one a compared quantity is
    compared with ("Jo has 7 pens and Kim has 4 more than Jo": Kim's 7 + 4, then Jo's 7 again
    for both together), or the compared one's owner's ("Rosa has 14, 6 more than Kai": Kai's
    14 - 6, then Rosa's 14 again). Only when the inner operation is the comparison's own
    reading: more than Jo adds to Jo's, more than Kai takes from Rosa's."""
    if inner.top not in ("+", "-") or not all(isinstance(side, int) for side in (inner.left, inner.right)):
        return []
    left, right = quantities[inner.left], quantities[inner.right]  # type: ignore[index]
    for base, compared in ((left, right), (right, left)):
        if not compared.compared or not compared.than or base.compared or not base.owner:
            continue
        if base.owner == compared.than:  # the other side is base ± the difference
            adds = compared.compared == "more"
        elif base.owner == compared.owner:  # base is the compared one's: the other side is base ∓ it
            adds = compared.compared != "more"
        else:
            continue
        if (inner.top == "+") == adds and (adds or inner.left == base.index):
            return [base.index]
    return []


def asks_for_both(question_words: tuple[str, ...]) -> bool:
    """Whether the question asks for two sides together ("how many do they have together",
    "in all", "altogether"): only then may a quantity be used twice."""
    return bool(BOTH & set(question_words))


def candidates(quantities: tuple[Quantity, ...], *, both: bool = False) -> list[Candidate]:
    """Every one- and two-operation candidate over `quantities` (at most MAX_QUANTITIES are
    read); with `both` (the question asks for two sides together), a quantity another is
    compared with may be used twice (`_reused`)."""
    used = quantities[:MAX_QUANTITIES]
    one = [made for i, j in itertools.combinations(range(len(used)), 2)
           for made in _pairs([j], OUTER_OPS, used, i)]
    two: list[Candidate] = []
    for inner in one:
        if inner.top not in INNER_OPS:
            continue
        rest: list[Candidate | int] = [k for k in range(len(used)) if k not in inner.leaves_set()]
        two.extend(_pairs(rest + (_reused(inner, used) if both else []), OUTER_OPS, used, inner))
    return one + two
