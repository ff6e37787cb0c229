"""The one word pattern of the package and the word lists, loaded once from words.toml.

A word is a run of letters and digits, with apostrophes inside it ("I'm", "don't", "o'clock",
typographic ’ too): `WORD`. Every part of the program that counts or matches words uses it
(`words` for the lower-case words of a text, with ’ written '); patterns that compose word
lists ("|".join(MONTHS)) stay with the code that uses them.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Iterator
from functools import cache
from importlib import resources
from typing import Any

FORMAT_VERSION = 1
WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")


def words(text: str) -> list[str]:
    """The words of `text` in lower case, a typographic apostrophe written '."""
    return lower_words(compounds(text))


def letter_words(text: str) -> list[str]:
    """The words of `text` that are not numbers ("8 weeks from today": three)."""
    return [word for word in words(text) if not word.isdigit()]


def lower_words(tokens: Iterable[tuple[str, int, int]]) -> list[str]:
    """The words of `compounds` in lower case, a compound's parts as words of their own."""
    return [part.lower().replace("\u2019", "'") for token, _, _ in tokens for part in token.split("-")]


def compounds(text: str) -> Iterator[tuple[str, int, int]]:
    """The words of `text` as (word, start, end), words joined by one hyphen read as one
    ("Jean-Luc", "well-known")."""
    span: tuple[int, int] | None = None
    for match in WORD.finditer(text):
        if span is not None and text[span[1]:match.start()] == "-":
            span = (span[0], match.end())
            continue
        if span is not None:
            yield text[span[0]:span[1]], span[0], span[1]
        span = match.span()
    if span is not None:
        yield text[span[0]:span[1]], span[0], span[1]


@cache
def _data() -> dict[str, Any]:
    text = resources.files("local_agent.reading").joinpath("words.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    if data.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"reading/words.toml: format {data.get('format_version')!r}, expected {FORMAT_VERSION}")
    return data


def word_list(name: str) -> tuple[str, ...]:
    """One list of words.toml, in its order."""
    return tuple(str(_data()["lists"][name]).split())


def word_set(*names: str) -> frozenset[str]:
    """The words of one or more lists."""
    return frozenset(word for name in names for word in word_list(name))


def stopwords_by_language() -> dict[str, frozenset[str]]:
    """Each language's frequent function words, by language code, in the file's order."""
    return {code: frozenset(str(listed).split()) for code, listed in _data()["stopwords"].items()}


def alternation(listed: Iterable[str]) -> str:
    """A regex alternation of `listed` words, longest first (so "sept" is tried before "sep")."""
    return "|".join(sorted(listed, key=lambda word: (-len(word), word)))


MONTHS = word_list("months")
WEEKDAYS = word_list("weekdays")
WEEKDAY_ABBREVIATIONS = word_list("weekday_abbreviations")
# each weekday by its whole name and by each shortening ("wed", "thurs")
_WEEKDAY_NAMED = {**{day: day for day in WEEKDAYS},
                  **{short: day for short in WEEKDAY_ABBREVIATIONS for day in WEEKDAYS if day.startswith(short[:3])}}
NUMBER_WORDS = word_list("number_words")  # NUMBER_WORDS[n - 1] is n
FUNCTION_WORDS = word_set("function_words")
STOPWORDS = FUNCTION_WORDS | word_set("stopwords")
SMALL_TALK_WORDS = word_set("small_talk")
THANKS = word_set("thanks")
GREETINGS = word_set("greetings")
GREETINGS_EN = word_set("greetings_en")
COURTESY_WORDS = SMALL_TALK_WORDS | FUNCTION_WORDS | THANKS | GREETINGS | word_set("courtesy_also")
LEAVING_WORDS = COURTESY_WORDS | word_set("leaving")


# Chat spellings of question words and the words they spell ("wat": "what"; words.toml).
QUESTION_SPELLINGS: dict[str, str] = dict(pair.split("=", 1) for pair in word_list("question_spellings"))


# A chat spelling where it opens the text or a clause: after . , ! ? ; : or a leading "and", "so", "but", "ok".
_SPELLED_OPENING = re.compile(
    rf"(?:^|(?<=[.,!?;:])|\b(?:and|so|but|ok|okay|also|wait|sorry|btw|on)\b)\s*"
    rf"(?P<word>{'|'.join(sorted(map(re.escape, QUESTION_SPELLINGS), key=len, reverse=True))})(?![\w'])",
    re.IGNORECASE)


def full_weekday(word: str) -> str | None:
    """The weekday a word names, whole or shortened ("wed", "Thurs" -> "wednesday", "thursday")."""
    return _WEEKDAY_NAMED.get(word.lower())


def respelled(text: str) -> str:
    """`text` with the chat spellings of question words that open a clause read as the words
    they spell ("wat mark did i get" -> "what mark did i get"; words.toml `question_spellings`)."""
    def spelled(match: re.Match[str]) -> str:
        found = match["word"]
        word = QUESTION_SPELLINGS[found.lower()]
        word = word[:1].upper() + word[1:] if found[:1].isupper() else word
        return match[0][: match.start("word") - match.start()] + word
    return _SPELLED_OPENING.sub(spelled, text)
