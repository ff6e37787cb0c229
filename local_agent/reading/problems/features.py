"""What the ranker sees of a candidate: the question's words beside the operations, and each
quantity's role (the noun it counts and whether the question asks about it, whose it is and
whether the question is about them, the words near it: "more than", "each", "left", "per"),
which side of the operation it sits on, and whether the expression uses every quantity.

Every feature is a name with a value (1.0 for a word or a role that is there); the weights of
the names are learned (scripts/train_problem_ranker.py)."""

from __future__ import annotations

import itertools

from .candidates import Candidate
from .quantities import STOP, Quantity, Reading, singular

# Question words that carry no operation: kept out so that the weights learn from the others.
_QUIET = frozenset("a an the is are was were do does did of to in on at it its".split())
_CUE_STOP = STOP - frozenset("""each every per more less fewer left total altogether remaining rest times
than all some many much how than together""".split())


def _question_words(reading: Reading) -> set[str]:
    """The question's words and word pairs ("how many more", "in all", "left over")."""
    words = [w for w in reading.question_words if w[0].isalpha()]
    pairs = {f"{a}_{b}" for a, b in itertools.pairwise(words)}
    return {w for w in words if w not in _QUIET} | pairs


def _leaf_features(quantity: Quantity, side: str, top: str, reading: Reading) -> dict[str, float]:
    found: dict[str, float] = {}
    for word in quantity.context:
        if word[0].isalpha() and word not in _CUE_STOP:
            found[f"ctx:{word}|{top}|{side}"] = 1.0
    for first, second in itertools.pairwise(quantity.context):
        if first[0].isalpha() and second[0].isalpha():
            found[f"ctx:{first}_{second}|{top}|{side}"] = 1.0
    if reading.asked_unit and set(quantity.unit) & set(reading.asked_unit):
        found[f"unit-asked|{top}|{side}"] = 1.0
    if set(quantity.unit) & {singular(w) for w in reading.question_words}:
        found[f"unit-in-question|{top}|{side}"] = 1.0
    if reading.asked_unit and set(reading.asked_unit) & {singular(w) for w in quantity.context}:
        found[f"asked-unit-near|{top}|{side}"] = 1.0
    if reading.asked_each and set(quantity.unit) & set(reading.asked_each):
        found[f"counts-asked-each|{top}|{side}"] = 1.0
    if quantity.compared:
        role = ("asked" if quantity.than and quantity.than == reading.asked_owner else
                "owner" if quantity.owner and quantity.owner == reading.asked_owner else "other")
        found[f"compared-{quantity.compared}-{role}|{top}|{side}"] = 1.0
    if reading.asked_owner and quantity.owner == reading.asked_owner:
        found[f"owner-asked|{top}|{side}"] = 1.0
    elif reading.asked_owner and reading.asked_owner in quantity.near_names:
        found[f"asked-owner-near|{top}|{side}"] = 1.0
    for flag, on in (("percent", quantity.percent), ("money", quantity.money), ("in-question", quantity.in_question),
                     ("one", quantity.value == 1), ("small", quantity.value < 1)):
        if on:
            found[f"{flag}|{top}|{side}"] = 1.0
    return found


def _pair_features(left: Quantity, right: Quantity, top: str) -> dict[str, float]:
    found = {f"order-{'text' if left.index < right.index else 'reversed'}|{top}": 1.0,
             f"{'bigger' if left.value > right.value else 'smaller'}-left|{top}": 1.0}
    if left.unit and right.unit and set(left.unit) & set(right.unit):
        found[f"same-unit|{top}"] = 1.0
    if left.owner and left.owner == right.owner:
        found[f"same-owner|{top}"] = 1.0
    if left.sentence == right.sentence:
        found[f"same-sentence|{top}"] = 1.0
    return found


def _coverage(reading: Reading, used: frozenset[int]) -> dict[str, float]:
    unused = [q for q in reading.quantities if q.index not in used]
    found = {f"unused:{min(len(unused), 3)}": 1.0}
    for quantity in unused:
        kind = "one" if quantity.value == 1 else "in-question" if quantity.in_question else "other"
        found[f"unused-{kind}"] = found.get(f"unused-{kind}", 0.0) + 1.0
    return found


def _value_features(reading: Reading, candidate: Candidate) -> dict[str, float]:
    value = candidate.value
    whole = abs(value - round(value)) < 1e-9
    found = {f"whole:{whole}|{candidate.top}": 1.0}
    units = {w for q in reading.quantities for w in q.unit}
    if reading.asked_unit and not set(reading.asked_unit) & units:
        found[f"asked-unit-new|{candidate.top}"] = 1.0
    if reading.asked_unit and "money" not in reading.asked_unit:
        found[f"count-whole:{whole}"] = 1.0
    if any(abs(value - q.value) < 1e-9 for q in reading.quantities):
        found["equals-a-quantity"] = 1.0
    if value < 1:
        found["below-one"] = 1.0
    return found


def _reuse_features(reading: Reading, candidate: Candidate, shape: str) -> dict[str, float]:
    """A quantity used twice, by whose it is: the one compared with ("4 more than Jo", then Jo's
    7 again: `than`) or the compared one's owner's ("Rosa has 14, 6 more than Kai", then
    Rosa's 14 again: `owner`), beside the comparison's direction and the expression's shape."""
    indices = [index for index, _ in candidate.leaves()]
    twice = [index for index in set(indices) if indices.count(index) > 1]
    compared = [reading.quantities[i] for i in indices if reading.quantities[i].compared]
    if not twice or not compared:
        return {}
    again, other = reading.quantities[twice[0]], compared[0]
    role = "than" if again.owner == other.than else "owner"
    return {f"reused-{role}-{other.compared}|{shape}": 1.0}


def features(reading: Reading, candidate: Candidate) -> dict[str, float]:
    """The named features of one candidate for its problem."""
    top, inner = candidate.top, candidate.inner
    shape = f"{inner}>{top}" if inner else top
    found: dict[str, float] = {"bias": 1.0, f"op:{top}": 1.0, f"shape:{shape}": 1.0}
    for word in _question_words(reading):
        found[f"q:{word}|{top}"] = 1.0
        if inner:
            found[f"q:{word}|in:{inner}"] = 1.0
    leaves = candidate.leaves()
    for index, side in leaves:
        found.update(_leaf_features(reading.quantities[index], side, top, reading))
    lefts = [i for i, side in leaves if side == "L"]
    rights = [i for i, side in leaves if side == "R"]
    found.update(_pair_features(reading.quantities[lefts[-1]], reading.quantities[rights[0]], top))
    if inner:
        inner_side = candidate.left if isinstance(candidate.left, Candidate) else candidate.right
        pair = [reading.quantities[i] for i, _ in inner_side.leaves()]  # type: ignore[union-attr]
        found.update({f"in|{name}": 1.0 for name in _pair_features(pair[0], pair[1], inner)})
    found.update(_reuse_features(reading, candidate, shape))
    found.update(_coverage(reading, candidate.leaves_set()))
    found.update(_value_features(reading, candidate))
    return found
