"""Is every value an answer asserts supported by its sources?

A value of the answer (values.py) is supported when one of the sources (a tool's result, the
question, a memory) holds the same value once both are normalized:

- a number: a source number with the same key, or one that rounds to it (46.7833 supports
  46.78, 46.8 and 47; an integer supports only itself); the year, month and day of a source
  date count as numbers too (10 in "the 10th" for 2026-04-10);
- a date: the same date in a source; a day and month (--04-10) or a month and year (2026-04)
  are supported by a full source date that has them;
- a weekday: a weekday a source names, or the weekday of a full date a source holds; and
  when the answer writes a weekday next to a full date ("Friday, 10 April 2026", "2026-04-10
  is a Friday"), it must be that date's weekday;
- a time: the same hours and minutes;
- a name: the same words, in any case, in a source.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

from ..reading.values import KINDS, Kind, Value, extract, weekday_of

NEXT_TO = 12  # characters between a weekday and the date it names ("Friday, " / " is a ")


@dataclass(frozen=True)
class Verdict:
    """The values of an answer that were checked, and those no source supports."""

    values: tuple[Value, ...]
    unsupported: tuple[Value, ...]

    @property
    def ok(self) -> bool:
        return not self.unsupported


class Support:
    """What a set of sources supports, read once and asked about many values."""

    def __init__(self, sources: Iterable[str]) -> None:
        texts = [text for text in sources if text]
        self.keys: dict[Kind, set[str]] = {kind: set() for kind in KINDS}
        self.decimals: list[Decimal] = []
        for value in (value for text in texts for value in extract(text)):
            self._add(value)
        self.text = "\n".join(" ".join(text.lower().split()) for text in texts)

    def _add(self, value: Value) -> None:
        self.keys[value.kind].add(value.key)
        if value.kind == "number":
            self.decimals.append(Decimal(value.key))
        if value.kind == "date":
            self._add_date(value.key)

    def _add_date(self, key: str) -> None:
        parts = key.lstrip("-").split("-")
        self.keys["number"].update(str(int(part)) for part in parts)
        if len(key) == 10 and not key.startswith("--"):
            self.keys["date"].update({"--" + key[5:], key[:7]})
            self.keys["weekday"].add(weekday_of(key) or "")

    def supports(self, value: Value) -> bool:
        if value.key in self.keys[value.kind]:
            return True
        if value.kind == "number":
            return self._rounds_to(value)
        if value.kind == "name":
            return re.search(r"(?<!\w)" + re.escape(" ".join(value.key.split())) + r"(?!\w)", self.text) is not None
        return False

    def _rounds_to(self, value: Value) -> bool:
        """Whether a source number with more decimals rounds to the answer's number."""
        written = value.text.replace(",", "").lstrip("+-")
        if not re.fullmatch(r"\d+(?:\.\d+)?", written):
            return False
        places = len(written.split(".")[1]) if "." in written else 0
        target = Decimal(value.key)
        step = Decimal(1).scaleb(-places)
        for source in self.decimals:
            if source == source.to_integral_value() or _places(source) <= places:
                continue
            if target in (source.quantize(step, ROUND_HALF_UP), source.quantize(step, ROUND_HALF_EVEN)):
                return True
        return False


def _places(number: Decimal) -> int:
    exponent = number.as_tuple().exponent
    return -exponent if isinstance(exponent, int) and exponent < 0 else 0


def _weekday_clashes(values: Sequence[Value]) -> list[Value]:
    """Weekdays written next to a full date that is another day of the week. A weekday belongs
    to the date right after it ("Friday, 10 April 2026"), or else to the one right before it
    ("2026-04-10 is a Friday"), so "From Wednesday, 11 March 2026 (2026-03-11) to Friday, 10
    April 2026" pairs Friday with 10 April."""
    dates = [value for value in values if value.kind == "date" and weekday_of(value.key)]
    clashes = []
    for weekday in (value for value in values if value.kind == "weekday"):
        end = weekday.start + len(weekday.text)
        after = [date for date in dates if 0 <= date.start - end <= NEXT_TO]
        before = [date for date in dates if 0 <= weekday.start - (date.start + len(date.text)) <= NEXT_TO]
        owner = min(after, key=lambda date: date.start) if after else (
            max(before, key=lambda date: date.start) if before else None)
        if owner is not None and weekday_of(owner.key) != weekday.key:
            clashes.append(weekday)
    return clashes


def check(answer: str, sources: Support | Iterable[str], kinds: tuple[Kind, ...] = KINDS) -> Verdict:
    """The values of `kinds` in `answer`, and those that `sources` do not support."""
    support = sources if isinstance(sources, Support) else Support(sources)
    values = extract(answer)
    readings: dict[tuple[int, str], bool] = {}  # 10/04/2026 is read two ways: one supported reading is enough
    for value in values:
        place = (value.start, value.text)
        readings[place] = readings.get(place, False) or support.supports(value)
    unsupported = [value for value in values if value.kind in kinds and not readings[(value.start, value.text)]]
    unsupported += [clash for clash in _weekday_clashes(values) if "weekday" in kinds and clash not in unsupported]
    return Verdict(tuple(value for value in values if value.kind in kinds), tuple(unsupported))
