"""The quantities of a word problem and what each one counts.

A quantity is a number in the text (digits, number words, "a dozen", fractions such as "3/8"
or "three quarters", percentages, money) with what the words around it say of it: the noun it
counts (`unit`: the content words right after it, "12 red apples" -> red, apple; when none follow,
those of the quantity before it in the sentence: "18 points ... and 27 in the second"), whose it is
(`owner`: the nearest name or pronoun before it in its sentence), the words near it
(`context`), the sentence it is in and whether that sentence is the question.

Numbers that are not quantities of the problem are left out: clock times ("7:45"), ordinals
("first", "2nd"), and "one" as a pronoun ("one of them", "no one").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace
from fractions import Fraction

from ..values import mixed_numbers
from ..words import NUMBER_WORDS

_WORD = re.compile(r"\$?\d+(?:,\d{3})*(?:\.\d+)?(?:/\d+)?%?|[A-Za-z][A-Za-z'-]*|[.?!;,]")
_HOURS = rf"(?:\d{{1,2}}|{'|'.join(NUMBER_WORDS)})"
# clock times: "7:45", "7pm", "quarter to nine", "half past five", "ten o'clock"; "leave at 7.40"
# (a time said with a dot after a verb of when, not "3 at 4.50 each")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\b\.?)?|\b\d{1,2}\s*[ap]\.?m\b\.?"
                    rf"|\b(?:(?:a\s+)?quarter|half|(?:twenty[\s-])?(?:five|ten)|twenty)\s+(?:past|to)\s+{_HOURS}\b"
                    rf"|\b{_HOURS}\s+o'?clock\b", re.IGNORECASE)
_DOT_CLOCK = re.compile(r"\b(?:leave|leaves|left|start|starts|started|finish|finishes|finished|arrive|arrives|arrived|"
                        r"wake|woke|up|open|opens|close|closes|begin|begins|end|ends)\s+(?:\w+\s+)?at\s+"
                        r"(\d{1,2}\.[0-5]\d)\b", re.IGNORECASE)
_ONE = re.compile(r"(?<![\w-])(?:no|any|every|some|each)\s+one\b|(?<![\w-])(?<!ty )one\s+(?=of\b|another\b|by one\b)",
                  re.IGNORECASE)
_DENOMINATORS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
                 "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10}
_NUMERATORS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}
_FRACTION = re.compile(r"\b(a|one|two|three|four)[\s-]+(" + "|".join(_DENOMINATORS) + r")\b", re.IGNORECASE)
_MULTIPLIERS = {"dozen": 12, "dozens": 12, "twice": 2, "double": 2, "triple": 3, "thrice": 3}
_PERCENT_WORDS = frozenset({"percent", "per cent", "pct", "percnt", "procent"})
_MONEY_WORDS = frozenset({"dollar", "dollars", "euro", "euros", "pound", "pounds", "cent", "cents",
                          "bucks", "usd", "eur", "gbp"})
STOP = frozenset("""a an the of in on at to for from by with and or but if then than that this these those
is are was were be been being has have had do does did will would can could should shall may might
each every per all some any more less fewer many much how what which who whom whose when where
there their they them he she it its his her him i me my we our us you your yours it's is left
total altogether remaining rest times as so too also only just still now already""".split())
PRONOUNS = frozenset("i we you he she they it".split())
MORE = frozenset("more older longer taller heavier bigger larger greater higher faster further".split())
LESS = frozenset("fewer less younger shorter lighter smaller cheaper lower slower".split())
_NOT_NAMES = frozenset("""If How What When Where Which Who Why The A An There This That These Those
Then After Before During Each Every In On At For From Some All Now One Two It He She They We I
You His Her Their Our My Mr Mrs Ms Dr And But So Later Yesterday Today Tomorrow Last Next""".split())


@dataclass(frozen=True)
class Quantity:
    """One quantity of a problem: its value and what the words around it say of it."""

    value: float
    text: str  # as written ("forty-five", "$2.40", "25%")
    index: int  # its place among the problem's quantities
    unit: tuple[str, ...]  # the content words after it, singular ("apple",)
    owner: str  # the name or pronoun it belongs to, lower case ("" when none)
    context: tuple[str, ...]  # words just before and after it, lower case
    sentence: int
    in_question: bool
    percent: bool = False
    money: bool = False
    near_names: tuple[str, ...] = ()  # names and pronouns in the words around it, lower case
    compared: str = ""  # "more" or "less" for "5 more than", "3 years younger than"
    than: str = ""  # the name or pronoun after "than" ("5 more than Ben" -> ben)
    after: tuple[str, ...] = ()  # the words right after it, lower case ("miles", "per", "gallon")


@dataclass(frozen=True)
class Reading:
    """A problem read once: its quantities, the question's words, what the question asks for."""

    text: str
    quantities: tuple[Quantity, ...]
    question_words: tuple[str, ...]  # the words of the question sentence, lower case
    asked_unit: tuple[str, ...]  # the words after "how many"/"how much", singular
    asked_owner: str  # the name the question is about ("" when none)
    asked_each: tuple[str, ...] = ()  # what the question asks per ("each ticket", "per person"), singular


def singular(word: str) -> str:
    word = word.lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=256)
def _as_digits(text: str) -> str:
    """`text` with number words written as digits (text2num, imported on first use); "one" as a
    pronoun and clock times are kept out of the way."""
    from text_to_num import alpha2digit

    kept = _DOT_CLOCK.sub(lambda m: m[0][:m.start(1) - m.start()] + " ", _CLOCK.sub(" ", text))
    kept = _ONE.sub(lambda match: re.sub("one", "\u2060", match.group(0), flags=re.IGNORECASE), kept)
    kept = re.sub(r"\b(a|one)\s+dozen\b", "12", kept, flags=re.IGNORECASE)
    kept = _FRACTION.sub(lambda m: f"{_NUMERATORS[m.group(1).lower()]}/{_DENOMINATORS[m.group(2).lower()]}", kept)
    try:
        digits = alpha2digit(kept, "en", threshold=0).replace("\u2060", "one")
    except (ValueError, IndexError):  # the library refuses some odd runs of number words
        digits = kept.replace("\u2060", "one")
    return mixed_numbers(digits)




def _sentences(tokens: list[str]) -> list[int]:
    numbers, current = [], 0
    for token in tokens:
        numbers.append(current)
        if token in ".?!;" or token == "?":
            current += 1
    return numbers


def _word(token: str) -> str:
    """A word as the ranker sees it: lower case, a name as NAME (names vary, their role does not)."""
    if token[0].isupper() and token not in _NOT_NAMES and token.lower() not in PRONOUNS:
        return "NAME"
    return token.lower()


def _value(token: str) -> tuple[float, bool, bool] | None:
    """A number token's value, and whether it was written as money or a percentage."""
    money, percent = token.startswith("$"), token.endswith("%")
    digits = token.strip("$%").replace(",", "")
    try:
        value = float(Fraction(digits)) if "/" in digits else float(digits)
    except (ValueError, ZeroDivisionError):
        return None
    return value, money, percent


def _unit(tokens: list[str], start: int) -> tuple[str, ...]:
    words: list[str] = []
    for token in tokens[start:start + 4]:
        if not token[0].isalpha() or token.lower() in STOP:
            if words or not token[0].isalpha():
                break
            continue
        words.append(singular(token))
        if len(words) == 2:
            break
    return tuple(words)


def _owner(tokens: list[str], at: int, sentence_of: list[int]) -> str:
    for position in range(at - 1, -1, -1):
        if sentence_of[position] != sentence_of[at]:
            break
        token = tokens[position]
        if token.lower() in PRONOUNS or (token[0].isupper() and token not in _NOT_NAMES):
            return token.lower()
    return ""


def _question_start(tokens: list[str], sentence_of: list[int]) -> int:
    """The sentence the question is in: the last one that ends in "?" or opens with a question
    word, else the last sentence."""
    asked = [sentence_of[i] for i, token in enumerate(tokens) if token == "?"]
    if asked:
        return asked[-1]
    openers = [sentence_of[i] for i, token in enumerate(tokens)
               if token.lower() in {"how", "what", "find", "calculate"}]
    return openers[-1] if openers else (sentence_of[-1] if sentence_of else 0)


def _token_quantity(tokens: list[str], at: int) -> tuple[float, str, bool, bool] | None:
    token = tokens[at]
    lower = token.lower()
    if lower in _MULTIPLIERS:
        return float(_MULTIPLIERS[lower]), token, False, False
    if lower == "half" and at + 1 < len(tokens) and tokens[at + 1].lower() == "of":  # not "the first half"
        return 0.5, token, False, False
    if not (token[0].isdigit() or token[0] == "$"):
        return None
    parsed = _value(token)
    if parsed is None:
        return None
    value, money, percent = parsed
    following = tokens[at + 1].lower() if at + 1 < len(tokens) else ""
    if following in {"st", "nd", "rd", "th"}:
        return None
    return value, token, money or following in _MONEY_WORDS, percent or following in _PERCENT_WORDS


def _quantity(tokens: list[str], at: int, sentence_of: list[int], question: int, index: int) -> Quantity | None:
    """The quantity at token `at`, with the words around it, or None when it is no quantity."""
    parsed = _token_quantity(tokens, at)
    if parsed is None:
        return None
    value, written, money, percent = parsed
    around = tokens[max(0, at - 4):at] + tokens[at + 1:at + 4]
    context = tuple(map(_word, around))
    names = tuple(t.lower() for t, w in zip(around, context, strict=True) if w == "NAME" or w in PRONOUNS)
    unit = ("money", *_unit(tokens, at + 1)) if money else _unit(tokens, at + 1)
    compared, than = _comparison(tokens[at + 1:at + 7])
    return Quantity(value / 100 if percent else value, written, index, unit, _owner(tokens, at, sentence_of),
                    context, sentence_of[at], sentence_of[at] == question, percent, money, names, compared, than,
                    tuple(token.lower() for token in tokens[at + 1:at + 5]))


def _comparison(following: list[str]) -> tuple[str, str]:
    """"more"/"less" when the words after a quantity compare it ("5 more stickers than Ben"),
    and whom with."""
    lower = [t.lower() for t in following]
    for at, word in enumerate(lower[:3]):
        if word in MORE or word in LESS:
            kind = "more" if word in MORE else "less"
            after = lower.index("than", at) + 1 if "than" in lower[at:] else len(lower)
            after += after < len(lower) and lower[after] == "what"  # "36 more than what Mark collected"
            name = following[after] if after < len(following) else ""
            named = name.lower() in PRONOUNS or (name[:1].isupper() and name not in _NOT_NAMES)
            return kind, name.lower() if named else ""
        if not word[0].isalpha():
            break
    return "", ""


def read(text: str) -> Reading:
    """Read a problem once: its quantities in order, and what its question asks."""
    tokens = _WORD.findall(_as_digits(text))
    sentence_of = _sentences(tokens)
    question = _question_start(tokens, sentence_of)
    found: list[Quantity] = []
    for at in range(len(tokens)):
        quantity = _quantity(tokens, at, sentence_of, question, len(found))
        if quantity is None:
            continue
        previous = found[-1] if found else None
        if not quantity.unit and previous and previous.sentence == quantity.sentence and not quantity.percent:
            quantity = replace(quantity, unit=previous.unit)  # "18 points in the first half and 27 in the second"
        found.append(quantity)
    words = [t for t, s in zip(tokens, sentence_of, strict=True) if s == question]
    return Reading(text, tuple(found), tuple(map(_word, words)), _asked_unit(words), _asked_owner(words),
                   _asked_each(words))


def _asked_each(words: list[str]) -> tuple[str, ...]:
    lower = [w.lower() for w in words]
    for at, word in enumerate(lower[:-1]):
        if word in {"each", "per", "every"}:
            return _unit(words, at + 1)
    return ()


def _asked_unit(words: list[str]) -> tuple[str, ...]:
    lower = [w.lower() for w in words]
    for at in range(len(lower) - 1):
        if lower[at] == "how" and lower[at + 1] == "many":
            return _unit(words, at + 2)
        if lower[at] == "how" and lower[at + 1] == "much":
            return ("money", *_unit(words, at + 2))
    return ()


def _asked_owner(words: list[str]) -> str:
    for at, word in enumerate(words):
        if at and (word.lower() in PRONOUNS or (word[0].isupper() and word not in _NOT_NAMES)):
            return word.lower()
    return ""
