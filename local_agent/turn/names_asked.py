"""Names a question asks for ("what's my dog called?", "which university do I teach at?") and the
names a record holds that could answer it (turn/told.py reads a part's value with these).

Definitions (the words are data: reading/words.toml):
- a name in a record: a proper name (one that opens a sentence only before a function word:
  "Jonas is"), a possessive inside it allowed ("St Mary's Hospital"), or a word in lower case
  after "name is", "named" or "called" that is no English word ("my wifes name is sorcha");
- no name answers: one the question says, a title ("Dr"), a weekday or month said as a date
  ("last Tuesday", "6 October"), a town unless a town is asked (but "at Zalando" names the firm a
  "which company" asks), the user's own name unless asked, a member of a kind ("Turkish"), one
  said of another relation than the one asked ("wife Ada, 2 kids" names no kid), or one that only
  describes the thing asked ("a Turkish restaurant");
- a part asks which one of a thing that has a name ("which university", "what team":
  `named_things`) asks its name.
"""

from __future__ import annotations

import re

from ..reading.introductions import introduced_name
from ..reading.names import proper_names
from ..reading.words import MONTHS, STOPWORDS, WEEKDAYS, word_set, words
from ..tools.question_text import known_word
from .aliases import aliases
from .evidence import content_words
from .senses import a_member, shares_sense
from .value_kinds import asks_place, places

_SOMEONE = word_set("relations", "pets")
_OWN_NAME = re.compile(r"\b(?:my|your)\s+(?:first\s+|full\s+|last\s+)?name\b|\bwho\s+am\s+i\b", re.IGNORECASE)
_DAY_NAMES = "|".join([*MONTHS, *WEEKDAYS])
_DATE_WORD = (rf"(?<=\d\s)({_DAY_NAMES})\b|\b({_DAY_NAMES})(?=\s*\d)|"
              rf"\b(?:last|next|this|on|in|every|since|until|till|by)\s+({_DAY_NAMES})\b")
_NAMED_LOWER = re.compile(r"\b(?:name\s+is|names\s+is|name's|named|called)\s+(?:(?:him|her|it|them)\s+)?"
                          r"([a-z][a-z'-]+)\b")  # "named her pimenta"
_THING_ASKED = re.compile(r"^\W*(?:what|which)\s+(\w+)\b", re.IGNORECASE)
_NAMED_THINGS = word_set("named_things")
_TITLES = {title.lower() for title in word_set("abbreviations")}
_NAMED_THING = re.compile(r"(\w+?)(?:'s)?\s+(?:called|named|name)\b", re.IGNORECASE)  # "my restaurant called"
_OPENING = re.compile(r"(?:^|[.!?]\s+|^- .*?: )\W*$")  # what stands before a sentence's first word


def _after_at(text: str) -> set[str]:
    """The names right after "at" or "for" ("I work at Zalando", "I play for Leeds United"), in lower case."""
    return {name.lower() for name in proper_names(text) if re.search(rf"\b(?:at|for)\s+(?:the\s+)?{_spelled(name)}",
                                                                      text, re.IGNORECASE)}


def _dates_named(text: str) -> set[str]:
    """The weekdays and months `text` names as days ("last Tuesday", "6 October"), not as
    someone's name ("my sister May")."""
    return {word.lower() for found in re.findall(_DATE_WORD, text, re.IGNORECASE) for word in found if word}


def asks_named_thing(part: str) -> bool:
    """Whether the part asks which one of a thing that has a name ("which university", "what team")."""
    thing = _THING_ASKED.match(part)
    return thing is not None and thing[1].lower() in _NAMED_THINGS


def _describes(name: str, text: str, part: str) -> bool:
    """Whether `name` only says what kind of thing is asked the name of: it stands right before
    that thing ("a Turkish restaurant" for "what's my restaurant called?")."""
    thing = _NAMED_THING.search(part)
    asked = content_words(thing[1]) if thing else set()
    return bool(asked) and any(content_words(m[1]) & asked
                               for m in re.finditer(rf"\b{re.escape(name)}\s+(\w+)", text))


def names_for(part: str, text: str) -> set[str]:
    """The names in `text` (lower case) that could answer a part asking for a name: not one the
    part says itself, not a place unless a town is asked, not one that only describes the thing
    asked ("a Turkish restaurant" for "what's my restaurant called?"), not the user's own unless
    asked ("my name is Tomás and my mom is in the hospital" names no mother), not a
    member of a kind ("German", "Turkish": languages, no names of a thing), not one said of
    another relation than the one asked ("wife Ada, 2 kids" names no kid)."""
    asked = {w.lower() for w in proper_names(part + ".")} | set(words(part)) | _TITLES | _dates_named(text)
    if not asks_place(part):  # a town is no name of a thing asked, but "at Zalando" names the firm
        asked |= places(text) - (_after_at(text) if asks_named_thing(part) else set())
    if not _OWN_NAME.search(part) and (own := introduced_name(text)):  # "my mom's name" is never the user's own
        asked |= {own.lower(), *(word.lower() for word in own.split())}
    standing, whose = aliases([text]), content_words(part) & _SOMEONE  # "wife Ada" names no kid
    asked |= {name for name, stands in standing.items() if whose and not shares_sense(whose, set(stands))}
    found = {name.lower() for name in named_inside(text)} | lowercase_named(text)
    return {name for name in found if name not in asked and not _describes(name, text, part) and not a_member(name)
            and _beside_thing(name, text, part)}


_NAME_OF = re.compile(r"\bname\s+of\s+(?:(?:the|my|our|his|her|their|\w+'s)\s+)?(?:\w+\s+)?(\w+)\W*$", re.IGNORECASE)
_NEAR = 5  # words between a thing and its name ("Sora started at Little Acorns kindergarten")


def _thing_asked(part: str) -> str | None:
    """The thing (not someone) whose name the part asks: "the name of Sora's kindergarten",
    "what's the ramen restaurant called", "which university"."""
    found = _NAME_OF.search(part) or _NAMED_THING.search(part)
    if found is None and (which := _THING_ASKED.match(part)) and which[1].lower() in _NAMED_THINGS:
        found = which  # "which university": a thing with a name; "what dog" asks no name
    thing = found[1].lower() if found else None
    return None if thing is None or thing in _SOMEONE else thing


def _beside_thing(name: str, text: str, part: str) -> bool:
    """Whether `name` may be the name of the thing the part asks about: the record does not
    say the thing, or says it within a few words of the name ("our son Sora started
    kindergarten" names no kindergarten, and neither does "Daichi" far from it)."""
    thing = _thing_asked(part)
    said = words(text)
    spots = [n for n, word in enumerate(said) if thing and word.removesuffix("s") == thing.removesuffix("s")]
    if not spots:
        return True
    first = name.split()[0]
    return _named_so(first, text) or any(abs(n - spot) <= _NEAR for n, word in enumerate(said) if word == first
                                         for spot in spots)


def _named_so(name: str, text: str) -> bool:
    """Whether `text` names `name` with "called" or "named" ("It's called Anatolia")."""
    return re.search(rf"\b(?:called|named)\s+{re.escape(name)}\b", text, re.IGNORECASE) is not None


def lowercase_named(text: str) -> set[str]:
    """The names written in lower case after "name is", "named" or "called" ("my wifes name is
    sorcha"): a word that is no English word ("called it quits" names no one)."""
    return {found[1] for found in _NAMED_LOWER.finditer(text)
            if found[1] not in STOPWORDS and not known_word(found[1])}


def named_inside(text: str) -> list[str]:
    """The proper names of `text`, a word that opens a sentence only when a function word
    follows it ("Jonas is", "Mochi and"): "Big news, ... Less stress!" names nothing, "The boss
    hen is called Duchess" names Duchess."""
    def named(found: re.Match[str]) -> bool:
        after = words(text[found.end():])[:1]
        return not _OPENING.search(text[:found.start()]) or bool(after and after[0] in STOPWORDS)
    return [name for name in proper_names(text) if any(map(named, re.finditer(_spelled(name), text)))]


def _spelled(name: str) -> str:
    """A pattern for `name` as the text writes it, a possessive between its words allowed ("St Mary
    Hospital" in "St Mary's Hospital")."""
    return r"(?:['’]s)?\s+".join(map(re.escape, name.split()))
