"""A question as the rules read it: lower case, number words in digits ("forty-five" -> 45,
"a quarter" -> 1/4), thousands commas and currency signs dropped, and misspellings of the
words the rules look for corrected ("sqaure" -> square, "dyas" -> days).

A word is corrected only when it is not an English word (pyspellchecker's dictionary knows
it) and one edit (a letter changed, added, dropped, or two swapped; two edits for a word of
seven letters or more) turns it into exactly one word of the rules' vocabulary; so "men"
stays "men" and "devided" becomes "divided", not the
dictionary's own first guess "decided". The dictionary loads only when a word is one edit
from the vocabulary and not in it."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache
from typing import Any

from ..reading.clauses import asks_after_quantities
from ..reading.values import mixed_numbers, words_to_digits
from ..reading.words import MONTHS, QUESTION_SPELLINGS, WEEKDAYS, WORD, letter_words

VOCABULARY = frozenset("""
what whats which how much many calculate compute evaluate work out solve tell average mean sum total add plus minus
times multiplied multiply divided divide over percent percentage square root cube squared cubed power split
between among each tip discount off per cost costs price left remaining quarter third half together altogether
people persons friends ways sqrt equals bill owe pay paid spend spent each everybody everyone person
second seconds minute minutes hour hours day days week weeks month months year years
today tomorrow yesterday ago from after before until till since
weekday date old born someone somebody birthday the of is was will
users user activities activity database table count number average oldest youngest signed signup
degree degrees celsius fahrenheit kelvin mile miles kilometer kilometers kilometre kilometres meter meters metre
metres centimeter centimeters inch inches foot feet yard yards pound pounds kilogram kilograms gram grams ounce
ounces liter liters litre litres gallon gallons milliliter milliliters millilitre millilitres cup cups
tablespoon tablespoons teaspoon teaspoons convert evenly equally
""".split()) | frozenset(MONTHS) | frozenset(WEEKDAYS)
# "a third of 60" is a number; "a third" alone ("why did he get a third?") is not.
_FRACTIONS = [(rf"{words}(?=\s+of\b)", fraction) for words, fraction in (
    (r"\b(?:a|one)\s+quarter", "(1/4)"), (r"\bthree\s+quarters", "(3/4)"), (r"\b(?:a|one)\s+third", "(1/3)"),
    (r"\btwo\s+thirds", "(2/3)"), (r"\b(?:a\s+)?half", "(1/2)"))]
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
# A sign said in words before a number that follows no other ("it's minus 5 out"), not the
# operator of "20 minus 5"; and an amount "below zero" ("5 degrees below zero", "10 f below 0").
_SIGN = re.compile(r"(?<![\d)%])(?<![\d)%]\s)\b(?:minus|negative)\s+(?=\d)")
_BELOW_ZERO = re.compile(r"(?<![\d.-])(\d+(?:\.\d+)?)\s*((?:(?:degrees?|°)\s*)?(?:(?:celsius|fahrenheit|c|f)\s+)?)"
                         r"below\s+(?:zero|0)\b")
_SCALED = re.compile(r"(?:\b(\d+(?:\.\d+)?)|\b(?:a|one))\s+(1000|1000000|1000000000)\b")
_CURRENCY = re.compile(r"[$€£¥]\s?(?=\d)|(?<=\d)\s?[$€£¥]")


def decimal_text(value: Decimal | float) -> str:
    """A number written out in full, without an exponent or trailing zeros: 2500, 0.005, 1.609344."""
    text = f"{Decimal(repr(value)) if isinstance(value, float) else value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _scaled(count: str | None, scale: str) -> str:
    return decimal_text(Decimal(count or 1) * int(scale))


@lru_cache(maxsize=256)
def normalize(message: str, extra: frozenset[str] = frozenset()) -> str:
    """`message` as the rules read it (see the module's docstring); `extra` words are
    corrected to as well (a database's table, column and value names)."""
    text = " ".join(QUESTION_SPELLINGS.get(word, word) for word in message.lower().replace("’", "'").split())
    text = WORD.sub(lambda match: _corrected(match.group(), extra), text)
    for pattern, fraction in _FRACTIONS:
        text = re.sub(pattern, fraction, text)
    text = mixed_numbers(words_to_digits(text, threshold=0))  # "thirty-two and a half": 32.5
    text = _THOUSANDS.sub("", text)
    # "minus 10 c", "5 degrees below zero": negative amounts
    text = _BELOW_ZERO.sub(lambda m: f"-{m[1]} {m[2].strip()}".rstrip(), _SIGN.sub("-", text))
    text = _SCALED.sub(lambda match: _scaled(match[1], match[2]), text)  # "1 million" reads "1 1000000"
    return " ".join(_CURRENCY.sub("", text).split())


# A year said in words after a month ("February in twenty twenty-eight": "february in 20 28").
_SPOKEN_YEAR = re.compile(rf"\b((?:{'|'.join(MONTHS)})(?:,?\s+(?:of|in))?\s+)(19|20)\s+(\d\d)\b")


def spoken_years(text: str) -> str:
    """A normalized `text` with a year said in words after a month written as one number."""
    return _SPOKEN_YEAR.sub(r"\1\2\3", text)


# A question after a comma ("my gym is 35 a month, what do I pay in a year"): a question word
# with the word that makes it ask, so "..., when you ..." in a statement is not one.
_CLAUSE_QUESTION = re.compile(r",\s+(?:what(?:'s|\s+(?:is|are|was|were|do|does|did|will|would|should))|"
                              r"how\s+(?:much|many|long|far|old|often)|which|when\s+(?:is|was|will|did|does|do))\b")


def asks(text: str, openers: str, terse_words: int = 4) -> bool:
    """Whether a normalized message asks something: it holds a question mark, a sentence of
    it opens with one of `openers` (after greetings such as "hey", "ok so"), or it has at most
    `terse_words` words ("8 weeks from today"). A "when" or "what" inside a statement ("it's
    incredible when you ...") is not a question."""
    if "?" in text or len(letter_words(text)) <= terse_words:
        return True
    greeting = r"(?:(?:ok|okay|so|hey|hi|hello|please|quick\s+one|quick\s+question|and|also|anyway|now)\W+)*"
    opens = re.search(rf"(?:^|[.!;:]\s+){greeting}(?:{openers})\b", text) is not None
    return opens or _CLAUSE_QUESTION.search(text) is not None or asks_after_quantities(text)


def _corrected(token: str, extra: frozenset[str]) -> str:
    """A word of the message with each of its letter runs corrected ("waht's" -> "what's"); a
    word with digits or other letters than a-z stays as written."""
    parts = token.split("'")
    if not all(part.isascii() and part.isalpha() for part in parts):
        return token
    return "'".join(correct(part, extra) for part in parts)


@lru_cache(maxsize=4096)
def correct(word: str, extra: frozenset[str] = frozenset()) -> str:
    """The vocabulary word a misspelled `word` stands for (the nearest one), or `word` itself."""
    vocabulary = VOCABULARY | extra
    if len(word) < 3 or word in vocabulary or word.isdigit():
        return word
    near = sorted((edit_distance(word, term), term) for term in vocabulary if _close(word, term))
    tied = _nearest([term for distance, term in near if distance == near[0][0]] if near else [], word)
    if len(tied) != 1 or known_word(word):
        return word  # no vocabulary word near, two equally near, or an English word already
    return tied[0]


def _nearest(tied: list[str], word: str) -> list[str]:
    """Of vocabulary words equally near `word`, the one it stands for: a word and its plural
    are one ("minuts": minutes, "minut": minute), and the longest shared opening wins ("minuts":
    minute(s) over minus, a typo being likelier at a word's end); more than one left is a tie."""
    tied = [term for term in tied if not (term.endswith("s") and term[:-1] in tied)
            or word.endswith("s")]
    tied = [term for term in tied if not (word.endswith("s") and term + "s" in tied)]
    if len(tied) < 2:
        return tied
    shared = {term: next((at for at, (a, b) in enumerate(zip(term, word)) if a != b), min(len(term), len(word)))
              for term in tied}
    best = max(shared.values())
    return [term for term in tied if shared[term] == best]


def _close(word: str, term: str) -> bool:
    """Whether `word` is a misspelling of `term`: one edit away (a letter changed, added or
    dropped, or two neighbours swapped), two for words of seven letters or more; a word of
    three letters only by a swap or a dropped letter (so "now" is not "how")."""
    if word == term or abs(len(word) - len(term)) > 2:
        return False
    distance = edit_distance(word, term)
    if len(word) <= 3:
        return distance == 1 and (sorted(word) == sorted(term) or len(term) == len(word) + 1)
    return distance <= (2 if len(word) >= 7 else 1)


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance: substitutions, insertions, deletions and swaps of
    neighbouring letters each cost one."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[-1]


def known_word(word: str) -> bool:
    """Whether `word` is an English word (pyspellchecker's dictionary)."""
    return word in _dictionary()


@lru_cache(maxsize=1)
def _dictionary() -> Any:
    from spellchecker import SpellChecker

    return SpellChecker(distance=1).word_frequency
