"""The kind of value a question asks for by a noun that names the kind, not the thing ("what is
my profession?", "which city do I live in?", "my trade and town"), and whether a record holds a
value of that kind (told.py reads a part's asked words and value with it).

Definitions (the words are data: reading/words.toml):
- a part asks for a job when it has a word of `asks_job` ("profession", "trade"), "for work",
  "for a living", "earn my living", or is "what does/do X do"; for a place when it has a word
  of `asks_place` ("city", "town"), or asks where with a word of `place_verbs` ("where do I
  live now"); neither when it asks where otherwise, when, who or how many ("where is it I went
  back to work?" asks a place of its own);
- a part asks for an age with "how old", "my age", "Yaw's age"; a record holds one as "41 years
  old", "I'm 41", "aged 41", "turns 80", "is 9" (not "is 14 December"), or a number on its own
  among facts ("Omar. 41. taxi driver", "my son Yaw, 9,");
- the kind's words are no asked words: the record need not say "profession" (nor "live", for a
  place: `place_verbs`); a phrase that only says when or how it is asked (`asks_filler`: "these
  days", "finally") is no asked word either;
- a record holds a job when it has a word of `occupations` (or its plural), or says what someone
  works as or in ("works as a ...", "work in IT support", "works at a bakery"); a place when it
  has a proper name after a place preposition ("in Leeds", "from Berlin", "to Augsburg"), after
  a comma (", Cairo") or as a list item of its own after the first ("Pete. plumber. Cork.");
- a value is the owner's (`kind_values`): said of the person the part names, or, for the
  user's own, in a clause that names no one else ("he", "my sister", "a tutor named Giorgio").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from ..reading.clauses import split_clauses
from ..reading.introductions import introduced_name
from ..reading.names import proper_names
from ..reading.words import MONTHS, NUMBER_WORDS, WEEKDAYS, word_list, word_set, words
from ..tools.question_text import edit_distance, known_word
from .evidence import content_words
from .senses import members_of

Kind = str  # "job", "place" or ""
_JOB = word_set("asks_job")
_PLACE = word_set("asks_place")
_PLACE_VERBS = word_set("place_verbs")
_OCCUPATIONS = word_set("occupations")
_RELATIONS = word_set("relations")
_PETS = word_set("pets")
_TO_SOMEONE = word_set("to_someone")
_SELF = frozenset("i i'm me my mine myself we our us".split())
_INTRODUCING = frozenset("me i'm im am".split())  # the word before the user's own name
_POSSESSIVE = frozenset("my our his her their your".split())
_CALENDAR = frozenset([*MONTHS, *WEEKDAYS])  # a capitalized word that names no one
_THIRD = frozenset("he she his her him they their them".split())
KIND_NOUNS = _JOB | _PLACE  # the nouns that name a kind of value
_DOES = re.compile(r"^\W*what\s+(?:do|does|did)\s+(?:\w+\s+){1,2}do\b(?:\s+for\s+(?:work|a\s+living))?\W*$",
                   re.IGNORECASE)
# "for work", "for a living", "earn my living": a job; "what city am I living in" is no job
_FOR_WORK = re.compile(r"\bfor\s+(?:work|a\s+living)\b|\bline\s+of\s+(?:work|business)\b"
                       r"|\b(?:earn|earns|make|makes)\s+(?:a|my|his|her|their|your)\s+living\b", re.IGNORECASE)
_SORT_OF = re.compile(r"^\W*(?:what|which)\s+(?:sort|kind|type)s?\s+of\s+(\w+)", re.IGNORECASE)
_WHERE = re.compile(r"^\W*where\b", re.IGNORECASE)
_OTHER_WH = re.compile(r"^\W*(?:where|when|who|whose|how\s+(?:many|much|long|old))\b", re.IGNORECASE)
# "work in IT support", "works at a bakery": what the work is (a capitalized name after it is a place or a firm)
_WORKS_IN = re.compile(r"\bwork(?:s|ed|ing)?\s+(?:in|at)\s+(?:an?\s+|the\s+)?(?:[A-Z]{2,}\s+)?([a-z][a-z-]+)\b")
_WORKS_AS = re.compile(r"\bwork(?:s|ed|ing)?\s+as\s+(?:a|an)?\s*\w+", re.IGNORECASE)
_WORK_VERBS = word_set("work_verbs")
# "I teach chemistry", "drives a bus", "a design job": work said as a verb, or named before "job"
_WORK_VERB = re.compile(rf"\b({'|'.join(sorted(_WORK_VERBS))})\s+(?!me\b|us\b|him\b|her\b|them\b|you\b)\w+"
                        rf"|\b(drive|drives)\s+(?:a|an|the)\s+(?:{'|'.join(sorted(word_set('work_vehicles')))})\b",
                        re.IGNORECASE)
_NAMED_JOB = re.compile(r"\b(?:a|an|my|his|her|their|our)\s+([a-z][a-z-]+)\s+job\b", re.IGNORECASE)
# "I run a little bike repair shop", "she owns a bakery": the business one runs is one's work
_RUNS = re.compile(rf"\b(?:run|runs|running|own|owns|manage|manages)\s+(?:a|an|my|our|the|his|her|their)\s+"
                   rf"(?:[a-z-]+\s+){{0,3}}?({'|'.join(sorted(word_set('businesses')))})\b", re.IGNORECASE)
_JOB_ADJECTIVES = word_set("job_adjectives")
# an age: "how old am I", "my age?", "how old is Yaw"; told as "41 years old", "I'm 41", "turns eighty",
# or a number on its own in a list of facts ("Omar. 41. taxi driver", "I'm Ines, 27, software tester")
_ASKS_AGE = re.compile(r"\bhow\s+old\b|\b(?:my|his|her|their|your|\w+'s)\s+age\b", re.IGNORECASE)
_NOT_AGE = (r"(?!\s*(?:[%:.]\d|[%:]|min|hour|hr|day|week|month|km|mile|kg|lb|cm|percent|euro|dollar|pound|times"
            r"|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))")
_COUNTED = "|".join(NUMBER_WORDS)
_AGE = re.compile(rf"\b(\d{{1,3}}|{_COUNTED})\s*(?:years?|yrs?)\s+old\b|\b(?:turns|turned|turning)\s+({_COUNTED})\b"
                  rf"|\b(?:I'm|I\s+am|im|aged|is|turns|turned|turning|was)\s+(\d{{1,3}})\b{_NOT_AGE}"
                  r"|(?:^|[.,;:]\s*)(\d{1,3})\s*(?=[.,;]|$)", re.IGNORECASE)
# an item of its own after a short one, in a terse note: "plumber. Cork.", not "... not Mark. Autocorrect."
_SHORT_ITEM = r"(?:^|[.;])\s*(?:[^\s.;]+\s+){0,2}[^\s.;]+[.;]\s+"
_AT_PLACE = re.compile(r"(?:\b(?:in|from|to|near|at|outside|around|into)\s+|,\s*)$", re.IGNORECASE)


@cache
def _filler() -> re.Pattern[str]:
    phrases = sorted((p.replace("_", r"\s+") for p in word_list("asks_filler")), key=len, reverse=True)
    return re.compile(rf"\b(?:{'|'.join(phrases)})\b", re.IGNORECASE)


def without_filler(part: str) -> str:
    """The part without the phrases that only say when it is asked ("these days", "again")."""
    return _filler().sub(" ", part)


def asked_kind(part: str) -> tuple[Kind, set[str]]:
    """The kind of value the part asks for by naming it ("job", "place", "age" or ""), and the
    words that name it (no asked words)."""
    if _ASKS_AGE.search(part):
        return "age", {"old", "age", "aged"}
    said = set(words(part))
    if _WHERE.match(part) and said & _PLACE_VERBS:  # "where do I live now": a place, whoever's
        return "place", said & _PLACE_VERBS
    if _OTHER_WH.match(part):
        return "", set()
    sort = _SORT_OF.match(part)  # "what sort of doctor am I?": a job of that kind
    if sort and _occupation(sort[1].lower()):
        return "job", {sort[1].lower(), "work", "do"}
    if said & _JOB or _FOR_WORK.search(part) or _DOES.match(without_filler(part)):
        return "job", (said & _JOB) | {"work", "do", "living", "earn", "line", "business"}
    if said & _PLACE:
        return "place", (said & _PLACE) | (said & _PLACE_VERBS)
    return "", set()


def holds_kind(text: str, kind: Kind, owner: frozenset[str] = frozenset()) -> bool:
    """Whether `text` holds a value of the kind that is `owner`'s (see `kind_values`); any text
    holds ""."""
    return bool(kind_values(text, kind, owner)) if kind else True


def owner_of(part: str, subjects: frozenset[str], asked: Iterable[str] = ()) -> frozenset[str]:
    """Whose value the part asks for, as words: the names and relation words it says ("Priya",
    "dad"), and, in a part that does not speak of the user, its `asked` words ("how old is
    yaw", "elenis job"); none: the user's own."""
    said = set(words(part))
    bare = {w.removesuffix("'s") for w in said}  # "my boyfriend's job": the boyfriend's
    named = (bare & (_RELATIONS | _PETS)) | bare & subjects | {
        w.lower() for name in proper_names(part + ".") for w in words(name)}
    return frozenset(named if named or said & _SELF else set(asked))


def kind_values(text: str, kind: Kind, owner: frozenset[str] = frozenset()) -> set[str]:
    """The values of the kind `text` holds, in lower case: its occupations ("surgeon"), what it
    says someone works as, or its places ("leeds"); each only when it is `owner`'s: said in a
    clause that names one of `owner` (or says "he"/"she" in a record that names one), or, for
    the user's own (no owner), in a clause that names no one else ("he", "my sister", "a tutor
    named Giorgio")."""
    found = _values(text, kind)
    if not found:
        return set()
    clauses = [clause.text for clause in split_clauses(text)]
    return {value for value in found if any(_owns_value(clause, text, owner, at.start()) for clause in clauses
                                             for at in re.finditer(rf"\b{re.escape(value)}", clause, re.IGNORECASE))}


_SOMEWHERE = re.compile(r"\b(?:at|in|from|near|outside|inside|on)\s+(?:a|an|the|my|his|her|their|our)\s+\w+"
                        r"|\b(?:at|in)\s+(?:home|work|school|church|town)\b", re.IGNORECASE)


def says_where(text: str, owner: frozenset[str] = frozenset()) -> bool:
    """Whether `text` says where `owner` (the user when none) is or does something: a place of
    theirs, or a clause of theirs that says somewhere ("at a bakery", "in the garage")."""
    if kind_values(text, "place", owner):
        return True
    return any(_SOMEWHERE.search(clause.text) and _owns(clause.text, text, owner) for clause in split_clauses(text))


def _values(text: str, kind: Kind) -> set[str]:
    """The values of the kind in `text`, whoever's they are."""
    if kind == "job":
        found = {w for w in words(text) if _occupation(w)}
        found |= {m[0].split()[-1].lower() for m in _WORKS_AS.finditer(text)}
        found |= {(m[1] or m[2]).lower().removesuffix("es").removesuffix("s") for m in _WORK_VERB.finditer(text)}
        found |= {m[1].lower() for m in _NAMED_JOB.finditer(text) if m[1].lower() not in _JOB_ADJECTIVES}
        found |= {m[1].lower() for m in _RUNS.finditer(text)}
        return found | {m[1].lower() for m in _WORKS_IN.finditer(text)}
    if kind == "place":
        return {name.lower() for name in proper_names(text) if _at_place(text[: text.find(name)])
                or re.search(_SHORT_ITEM + rf"{re.escape(name)}\s*(?:[.;]|$)", text)}
    if kind == "age":
        return {next(filter(None, m.groups())) for m in _AGE.finditer(text)}
    return set()


@cache
def _occupation(word: str) -> bool:
    """Whether `word` names an occupation, in the plural or spelled another way ("plumbr"): one
    letter off one of six letters or more, and no English word itself."""
    if word in _OCCUPATIONS or (word.endswith("s") and word[:-1] in _OCCUPATIONS):
        return True
    return len(word) >= 6 and not known_word(word) and any(
        abs(len(word) - len(job)) <= 1 and edit_distance(word, job) == 1 for job in _OCCUPATIONS)


def _at_place(before: str) -> bool:
    """Whether a name after `before` is a place: after "in", "from", ... or a comma, but not a
    comma after a person ("a son, Tobi," names him) nor "to" after a verb said to someone
    ("married to Aoife")."""
    if not _AT_PLACE.search(before):
        return False
    said = words(before)
    if len(said) > 1 and said[-1] == "to" and said[-2] in _TO_SOMEONE:  # "married to Aoife" names her
        return False
    return not (before.rstrip().endswith(",") and said and said[-1] in _RELATIONS)


def places(text: str) -> set[str]:
    """The places `text` names ("in Berlin", ", Cairo"), in lower case, whoever's they are."""
    return _values(text, "place")


def asks_place(part: str) -> bool:
    """Whether the part names a kind of place ("the name of the town I grew up in")."""
    return bool(set(words(part)) & _PLACE)


def owns_word(text: str, word: str, owner: frozenset[str] = frozenset()) -> bool:
    """Whether `word` is said in `text` as `owner`'s (the user's when none): "beekeeping" in "My
    husband has taken up beekeeping" is the husband's (see `kind_values`)."""
    return any(_owns_value(clause.text, text, owner, at.start()) for clause in split_clauses(text)
               for at in re.finditer(rf"\b{re.escape(word)}", clause.text, re.IGNORECASE))


def _owns_value(clause: str, text: str, owner: frozenset[str], at: int) -> bool:
    """Whether the value at `at` in `clause` is `owner`'s (the user's when none): the nearest
    person the clause speaks of before it ("I", "my husband", "she", a name of `owner`) says
    whose it is ("I'm Liam, software tester, married to Aoife": Liam's, not Aoife's); with none
    before it, the whole clause does (`_owns`); a value right after "my" is someone of theirs
    ("my plumber"), no one's value."""
    own = (introduced_name(text) or "").lower()
    others = set(words(text)) & (_THIRD | _RELATIONS | _PETS)  # a name is someone else's only in a record of others
    names = ({w.lower() for name in proper_names(clause[:at] + ".") for w in words(name)} - places(text)
             if others else set())
    people = _SELF | _THIRD | _RELATIONS | owner | names
    before = [word.removesuffix("'s") for word in words(clause[:at])]
    where = next((i for i in range(len(before) - 1, -1, -1) if before[i] in people), None)
    nearest = None if where is None else before[where]
    if nearest in names and where is not None:  # "I'm Liam", "me: Priscilla": the user; "my partner Jonas": the partner
        previous = before[where - 1] if where else ""
        nearest = "i" if previous in _INTRODUCING or nearest == own else previous if previous in owner else nearest
    if before and before[-1] in _POSSESSIVE:  # "I love my plumber": someone of theirs, no job of theirs
        return False
    if nearest is None:
        return _owns(clause, text, owner)
    if not owner:
        return nearest in _SELF
    if nearest in _SELF or nearest in names - owner:
        return False
    named = set(words(text)) | content_words(text)  # "Jonas, my partner, is a nurse" is Jonas's
    return nearest in owner or bool(owner & set(before)) or (nearest in _THIRD | _RELATIONS and bool(named & owner))


def _owns(clause: str, text: str, owner: frozenset[str]) -> bool:
    said, everything = set(words(clause)) | content_words(clause), set(words(text)) | content_words(text)
    if owner:
        return bool(said & owner) or bool(everything & owner and said & _THIRD)
    return not (said & (_THIRD | _RELATIONS | {"named", "called"}))


def of_someone_unnamed(text: str, named: Iterable[str], subjects: frozenset[str]) -> bool:
    """Whether `text` speaks of someone by "she", "her", "he" or "his" and, of `named` (its
    names), names none of `subjects` ("her birthday is 14 December" may be Greta's)."""
    opening = re.match(r"\W*(\w+),", text)  # "Wait, I got that wrong": no name
    others = {w for name in named for w in content_words(name)} - _CALENDAR - {opening[1].lower() if opening else ""}
    return bool(set(words(text)) & _THIRD) and not others & subjects


def owns_member(kind: str, text: str, owner: frozenset[str]) -> bool:
    """Whether `text` names a member of the kind as `owner`'s ("what hobby have I taken up?" is
    not told by "My husband has taken up beekeeping")."""
    said = set(words(text))
    return any(owns_word(text, word, owner) for word in members_of(kind) if word in said)


def calls_thing(text: str, things: set[str], value: str) -> bool:
    """Whether `text` names an asked thing with "called" or "named" ("a band called The Static Hours")."""
    return value == "name" and any(re.search(rf"\b(?i:{re.escape(thing)})\w*,?\s+(?i:is\s+)?(?i:called|named)\s+"
                                             r"(?:the\s+)?[A-Z]", text) for thing in things)
