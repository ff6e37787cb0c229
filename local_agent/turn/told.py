"""Whether the user told what a question about their life asks, and the program's reply when
they did not ("You haven't told me what Jonas likes to cook. You told me Jonas is a nurse.").

A transparent scorer, its margin chosen on the live set's dev split (docs/answers.md):
- the question's asked words: its content words (evidence.py) that are not names memory holds
  (the subject: "Jonas", "Mochi"); a word that asks for a name ("name", "called") or a number
  ("old", "age") is no asked word, it asks for a value instead;
- a candidate (a memory shown, or an earlier message) holds an asked word when it has the word
  or one of the same sense (words.toml `same_sense`: "mum" for "mother", "work" for "job"), or a
  member of the kind it names (`kinds`: "guitar" for "instrument"; senses.py);
- a candidate answers when it holds the asked words (all of them; of three or more, all but one
  in three) and the value asked: a name the question does not hold, a number; "when" a day or a
  time phrase ("on the 3rd": dates/event_days.py), "who" a name; an outing a day is asked of is
  told by its place ("what day was the zoo trip?": "took Lily to the zoo on wed");
- the question was told when some candidate answers, part by part (`parts`: "Where do I live
  and what does Jonas do?"); else the reply says so, with what shares most with it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime

from ..dates.event_days import event_days
from ..reading.clauses import split_clauses
from ..reading.names import proper_names
from ..reading.values import extract
from ..reading.words import MONTHS, NUMBER_WORDS, WEEKDAYS, word_set, words
from .aliases import alias_words, aliases
from .evidence import Candidate, asks_only, content_words
from .names_asked import asks_named_thing, names_for
from .senses import (
    asked_sense,
    group_words,
    holds_all,
    kind_nouns,
    members_of,
    misspelled,
    names_kind,
    said_sense,
    shares_sense,
)
from .value_kinds import (
    KIND_NOUNS,
    asked_kind,
    calls_thing,
    holds_kind,
    kind_values,
    of_someone_unnamed,
    owner_of,
    owns_member,
    says_where,
    without_filler,
)

_SOME_DAY = datetime(2001, 1, 1)  # whether a text names a time at all does not depend on when it was said
MARGIN = 1.0  # the share of a part's asked words a candidate must hold (chosen on the live dev split)
_ASKS_NAME = word_set("asks_name")
_ASKS_NUMBER = word_set("asks_number")
_GENERIC = word_set("asks_generic") | {"long", "many", "much", "what"}
_SOMEONE = word_set("relations", "pets")
_OUTINGS = word_set("outings")
# "which sport", "what type of": the noun says what kind of value is asked, it is no asked word
_KIND = re.compile(r"^\W*(?:what|which)\s+(\w+)\s+(?:of|do|does|did|am|i|you|we|my|got|has|have)\b",
                   re.IGNORECASE)
_KIND_IS = re.compile(r"^\W*(?:what|which)\s+(\w+)\s+(?:is|are|was|were)\b", re.IGNORECASE)
_DAYS = frozenset([*MONTHS, *WEEKDAYS, *(m[:3] for m in MONTHS), "today", "yesterday", "tomorrow", "tonight",
                   "week", "weekend", "month", "year", "spring", "summer", "autumn", "winter", "morning"])
_NUMBER = frozenset(NUMBER_WORDS)
_THING = re.compile(r"^\W*(?:what|which)\s+(?!(?:is|was|are|were|do|does|did|has|have|had|can|will)\b)(\w+)\s+"
                    r"(?:is|was|are|were)\s+(?:the|my|our)\b", re.IGNORECASE)
_DAY_ASKED = re.compile(r"^\W*(?:(?:what|which)\s+|the\s+)?(day|date)\b(?!\s+(?:of\s+birth|night|trip)\b)",
                        re.IGNORECASE)  # "which date was Kenji born?", the terse "date of the root canal?"
# a part opens with a question word, or names a kind of value after "and" ("my trade and town")
_SPLITTING = KIND_NOUNS | (kind_nouns() - word_set("pets"))  # "name and breed?": a part asks the breed
_PART = re.compile(r"\s*(?:,|\band\b|\balso\b)\s*(?=(?:(?:in|at|on|for|with|from|to)\s+)?"
                   r"(?:what|what's|whats|where|when|who|which|how|do|does|did)\b"
                   rf"|(?:(?:my|your|his|her|their|the)\s+)?(?:{'|'.join(sorted(_SPLITTING))})\b)", re.IGNORECASE)
_SPEAKER = re.compile(r"^[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)?: ")  # an imported conversation's line: "Melanie: ..."
QUESTION_WORD = re.compile(r"^\W*(what|what's|whats|where|when|who|whose|which|how)\b", re.IGNORECASE)


def parts(question: str) -> list[str]:
    """The parts of a multi-part question, each a question of its own ("Where do I live",
    "what does Jonas do?"); one part when it asks one thing."""
    pieces = [_LEADING_PREPOSITION.sub("", piece.strip()) for joined in _JOINED.split(question)
              for piece in _PART.split(joined) if piece.strip()]  # "my job + my sister's name?"
    return [_named_again(piece, before) for before, piece in zip(["", *pieces], pieces, strict=False)] or [question]


# "On which date was Kenji born?", "in which city is my practice": the question word asks, not "date".
_JOINED = re.compile(r"\s+[+&]\s+(?=(?:my|our|his|her|their|what|what's|whats|where|when|who|how|which)\b)",
                     re.IGNORECASE)  # "my job + my sister's name?", not "Tom & Jerry"
_LEADING_PREPOSITION = re.compile(r"^\W*(?:on|in|at|for|from|to|with|by|during)\s+"
                                  r"(?=(?:what|which|whose|who|whom|how|when|where)\b)", re.IGNORECASE)
_OWN_RELATION = re.compile(rf"\b(?:my|our)\s+({'|'.join(sorted(word_set('relations'), key=len, reverse=True))})\b",
                           re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:(?P<whose>his|their)|(?P<her>her)(?=\s+[a-z])|(?P<who>he|she|they|him|them|her))\b",
                      re.IGNORECASE)


def _named_again(part: str, before: str) -> str:
    """A part that speaks of someone by a pronoun, with the one name the part before it says in
    its place ("where does Kofi live and what's his job" asks Kofi's job, not the user's), or
    with the one relation of the user's it says ("what's my son's name and how old is he")."""
    said = [name for name in proper_names(before + ".") if name.lower() not in ("i", "i'm")]
    if proper_names(part + "."):
        return part
    if len(said) != 1:  # "what's my son's name and how old is he": he is my son
        relations = {m[1].lower() for m in _OWN_RELATION.finditer(before)}
        if said or len(relations) != 1:
            return part
        name = f"my {relations.pop()}"
    else:
        name = said[0]
    return _PRONOUN.sub(lambda m: f"{name}'s" if m["whose"] or m["her"] else name, part)


_STRETCH = re.compile(r"[,.;:!?\n\u2014\u2013]|\s-\s")


def _kind_asked(part: str) -> re.Match[str] | None:
    """The noun a part asks "what/which <noun>" of ("what language am I learning"), or with "is"
    after it only a kind whose members words.toml lists ("what colour is my car", not "what
    venue is the wedding at")."""
    found = _KIND.match(part)
    if found is None and (named := _KIND_IS.match(part)) and names_kind(named[1].lower()):
        return named
    return found


def _asked(part: str, subjects: frozenset[str]) -> tuple[set[str], str]:
    """The part's asked words, and the value it asks for: "name", "number", "day" or ""."""
    found = content_words(without_filler(part))
    opening = QUESTION_WORD.match(part)
    wh = opening[1].lower() if opening else ""
    named, naming = asked_kind(part)  # "what is my profession?": a job, not the word "profession"
    value = ("age" if named == "age" else "name" if found & _ASKS_NAME or wh in ("who", "whose") else
             "number" if found & _ASKS_NUMBER or re.search(r"\bhow (?:many|much|long)\b", part, re.IGNORECASE) else
             "day" if wh == "when" else named or ("where" if wh == "where" else ""))
    kind = _kind_asked(part) or _DAY_ASKED.match(part)
    if kind and kind[1].lower() in ("day", "days", "date"):
        value = value or "day"
    if not value and asks_named_thing(part):
        value = "name"  # "which university do I teach at?": its name, not "the university"
    dropped = _ASKS_NAME | _ASKS_NUMBER | _GENERIC | content_words(kind[1] if kind else "") | content_words(
        " ".join(naming))
    left = {w for w in found - dropped if w not in subjects}
    left -= _OUTINGS if value == "day" and left - _OUTINGS else set()  # "the zoo trip": "took Lily to the zoo"
    return left, value


asked = _asked  # the part's asked words and the kind of value it asks for (see the module's definitions)


def _owner(part: str, subjects: frozenset[str], named: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """Whose value the part asks for (value_kinds.py `owner_of`), with the words of the same
    sense and the names that stand for one of them ("how old is my dog?": the retriever, Biscuit)."""
    owner = owner_of(part, subjects, _asked(part, subjects)[0])
    alike = owner | {word for group in map(group_words, owner) for word in group}
    return frozenset(alike | {name for name, stands in named.items() if stands & alike})


def _has_value(candidate: Candidate, value: str, part: str, subjects: frozenset[str] = frozenset(),
               named: Mapping[str, frozenset[str]] = {}) -> bool:
    said = set(words(candidate.text))
    if value == "name":
        return bool(names_for(part, candidate.text))
    if value == "number":  # not the day of a date ("her birthday is 14 December" tells no age)
        return bool(extract(candidate.text, ("number",))) or any(w in _NUMBER for w in said)
    if value == "where":  # "where does Joost work?": a place of his, or somewhere he is said to be ("at a bakery")
        return says_where(candidate.text, _owner(part, subjects, named))
    if value == "day":  # a day word, or a time phrase ("on the 3rd", "just now": dates/event_days.py)
        return any(w.isdigit() or w in _DAYS or w.removesuffix("s") in _DAYS for w in said) or bool(
            event_days(candidate.text, _SOME_DAY))
    return holds_kind(candidate.text, value, _owner(part, subjects, named))


def score(part: str, candidate: Candidate, subjects: frozenset[str], named: Mapping[str, frozenset[str]] = {}
          ) -> float:
    """The share of the part's asked words the candidate holds (1.0 when none are asked; a name
    of `named` holds the word it stands for: aliases.py), 0.0 when the value the part asks for
    is not in it, when the part names a kind whose members words.toml lists ("what language")
    and it holds none of them, or when it lacks a relation, an animal or a name the part names."""
    if not _has_value(candidate, _asked(part, subjects)[1], part, subjects, named):
        return 0.0
    text = f"{candidate.note} {alias_words(candidate.text, named)}"  # with its day
    kind = _kind_asked(part)  # "what language am I learning?": one of the kind ("Spanish") of the owner's
    if kind and names_kind(kind[1].lower()) and not owns_member(kind[1].lower(), candidate.text + " " + text,
                                                                  _owner(part, subjects, named)):
        return 0.0
    if not holds_all(_asked(part, subjects)[0] & _SOMEONE, text):  # "my daughter" is never the word left out
        return 0.0
    naming = {word for name in proper_names(part + ".") for word in content_words(name)} & subjects
    if naming and not naming & content_words(text) and not of_someone_unnamed(
            candidate.text, proper_names(candidate.text), subjects):
        return 0.0  # "what day are Marta's lessons?": a record of Marta's, or of "her" naming no one else
    return held_share(part, text, subjects)


def held_share(part: str, text: str, subjects: frozenset[str]) -> float:
    """The share of the part's asked words `text` holds, by stem or sense (a record that names a
    job of the user's holds "work" for a part asking where), whatever value the part asks for
    (1.0 when none are asked)."""
    (asked, value), said = _asked(part, subjects), content_words(text)
    where = value in ("place", "where") or asks_named_thing(part)  # "which city do I work in?" is told by
    if asked and where and kind_values(text, "job"):  # "I'm a pastry chef in Montreal"; "which hospital", by a name
        said.add("job")
    held = set().union(*map(said_sense, said))
    return sum(1 for word in asked if asked_sense(word) & held or misspelled(word, said)) / len(asked) if asked else 1.0


def asked_words(part: str, subjects: frozenset[str]) -> set[str]:
    """The part's asked words (see the module's definitions)."""
    return _asked(part, subjects)[0]


def holds_asked(part: str, word: str, subjects: frozenset[str]) -> bool:
    """Whether `word` (one word of a record) is one of the part's asked words, by stem or sense."""
    return any(asked_sense(asked) & said_sense(found) for asked in _asked(part, subjects)[0]
               for found in content_words(word))


def subjects_of(candidates: Sequence[Candidate], question: str = "") -> frozenset[str]:
    """The names the candidates hold, in lower case as content words ("jona" for "Jonas"), and
    the question's names that some candidate holds as a word ("Melanie: I went camping")."""
    held = {word for candidate in candidates for word in content_words(candidate.text)}
    return frozenset({word for candidate in candidates for name in proper_names(candidate.text)
                      for word in content_words(name)}
                     | {word for name in proper_names(question + ".") for word in content_words(name)} & held)


def said_by_user(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The candidates that are the user's own words or facts about them, not the assistant's
    earlier answers ("I told you: ...", which tell nothing new); a line of an imported
    conversation ("Melanie: ...") is someone's words; a question tells nothing."""
    return [candidate for candidate in candidates if not asks_only(candidate)
            and (" I told you: " not in candidate.note or _SPEAKER.match(candidate.text))]


def margin(part: str, subjects: frozenset[str]) -> float:
    """The share of asked words a record must hold: all of them, but one of three or more."""
    asked = len(_asked(part, subjects)[0])
    return MARGIN if asked < 3 else (asked - asked // 3) / asked


def untold_parts(question: str, candidates: Sequence[Candidate]) -> list[str]:
    """The parts of `question` that no candidate answers by the margin."""
    candidates = said_by_user(candidates)
    subjects, named = subjects_of(candidates, question), aliases(c.text for c in candidates)
    return [part for part in parts(question) if not any(
        score(part, candidate, subjects, named) >= margin(part, subjects) - 1e-9 for candidate in candidates)]


def answering(question: str, candidates: Sequence[Candidate]) -> list[Candidate]:
    """For each part of `question`, the newest candidate that answers it by the margin (the
    first of those on a tie; each candidate once), among those that name the kind the part asks
    for when some do ("what race am I training for?": "a half marathon", not "time to train
    properly"): the records an answer must draw on."""
    candidates = said_by_user(candidates)
    subjects, standing = subjects_of(candidates, question), aliases(c.text for c in candidates)
    found: list[Candidate] = []
    for part in parts(question):
        need = margin(part, subjects) - 1e-9  # a record that says the words itself before one a name stands in for
        passing = ([c for c in candidates if score(part, c, subjects) >= need]
                   or [c for c in candidates if score(part, c, subjects, standing) >= need])
        named = _kind_asked(part)  # "what race ...": a record that names one ("a half marathon") first
        if named and (naming := [c for c in passing if shares_sense({named[1].lower()}, content_words(c.text))]):
            passing = naming
        if calling := [c for c in passing if calls_thing(c.text, *_asked(part, subjects))]:
            passing = calling  # "what's my band called?": "a band called The Static Hours", not "our band's gig"
        elif beside := [c for c in passing if _names_beside(part, c.text, subjects)]:
            passing = beside  # "what are my kids called?": "two kids Sam and Ella", not "Jill's birthday ... kids"
        best = None
        for candidate in passing:
            best = candidate if best is None or candidate.newer_than(best) else best
        if best is not None and best not in found:
            found.append(best)
    return found


def draws_on_each_part(answer: str, question: str, candidates: Sequence[Candidate], names: Sequence[str]) -> bool:
    """Whether `answer` holds, for each part of `question`, a content word of a record that
    answers the part which the question does not hold and which is none of `names` (the user's
    own: "Tomás is a doctor" says nothing of what Jonas does); of a part that names its subject,
    a word of the record's clause about the subject ("Jonas at the Ghent residence" says
    nothing of what Jonas does either); of a part of several that names no one, a word of the
    record's stretch that holds what it asks ("You are learning Portuguese" says nothing of the
    diet asked beside it); a name that only stands for the part's subject ("Zainab" for "what
    does my granddaughter study?") draws on nothing."""
    said = content_words(answer) - content_words(question) - {w for name in names for w in content_words(name)}
    candidates = said_by_user(candidates)
    subjects, standing = subjects_of(candidates, question), aliases(c.text for c in candidates)
    several = len(parts(question)) > 1
    for part in parts(question):
        told = [c for c in candidates if score(part, c, subjects) >= margin(part, subjects) - 1e-9]
        named = {word for name in proper_names(part + ".") for word in content_words(name)} & subjects
        whose = {name for name, stands in standing.items() if stands & content_words(part)}  # "Zainab" for "she"
        by_stretch = several and not named and _asked(part, subjects)[1] != "name"  # a name: names_each_kind's
        near = [_stretch_asked(part, c.text, subjects) if by_stretch else _near(c.text, named) for c in told]
        if told and not any((said - whose) & words_near for words_near in near):
            return False
    return True


def _stretch_asked(part: str, text: str, subjects: frozenset[str]) -> set[str]:
    """The content words of the stretches of `text` that hold what the part asks about, all of
    its words when none does: of "I'm Aiko, 29, UX designer in Osaka, vegetarian", the diet
    asked is "vegetarian", which an answer must say."""
    asked_words = _asked(part, subjects)[0]
    found = [content_words(stretch) for stretch in _STRETCH.split(text)
             if asked_words and shares_sense(asked_words, content_words(stretch))]
    return set().union(*found) if found else content_words(text)


def _names_beside(part: str, text: str, subjects: frozenset[str]) -> set[str]:
    """The names a part asking for a name finds in the stretches of `text` (between commas or
    sentence ends) that hold a word it asks about ("two kids Sam and Ella": Sam, Ella)."""
    asked_words, value = _asked(part, subjects)
    if value != "name" or not asked_words:
        return set()
    return set().union(*(names_for(part, stretch) for stretch in _STRETCH.split(text)
                         if shares_sense(asked_words, content_words(stretch))))


def _near(text: str, named: set[str]) -> set[str]:
    """The content words of the clauses of `text` that name one of `named` (the part's subject:
    "Jonas" in "what does Jonas do?"), all of its words when none does or none is asked."""
    clauses = [content_words(clause.text) for clause in split_clauses(text)] if named else []
    near = [found for found in clauses if found & named]
    return set().union(*near) if near else content_words(text)


def names_each_kind(answer: str, question: str, candidates: Sequence[Candidate]) -> bool:
    """Whether `answer` names, for each part that asks for a kind of value (value_kinds.py: a
    job, a place, an age), a name or a number, a value of that kind that a record answering the
    part holds, and for a name some name at all ("Your job is great!" names no job; "You are a
    chef at a Turkish restaurant in Berlin" no name for "what's my restaurant called?"; "You
    have been feeling low since Aoife moved" no number for "how long have I known Aoife?")."""
    said = " ".join(words(answer))
    subjects = subjects_of(said_by_user(candidates), question)
    for part in parts(question):
        asked_words_, value = _asked(part, subjects)
        kind = asked_kind(part)[0] or (value if value in ("number", "name") else "")
        told = answering(part, candidates) if kind else []
        if kind == "name":  # "what's my restaurant called?" is answered with a name, a told one if any
            held = set().union(*(_names_beside(part, c.text, subjects) or names_for(part, c.text) for c in told))
            named = names_for(part, answer)
            if not named or (held and not named & held):
                return False
            continue
        if kind == "number":
            values = set().union(*(_numbers(c.text) for c in told))
            if values and not values & _numbers(answer):
                return False
            continue
        if not _names_a_member(answer, part, candidates):  # "breed?" is answered with a breed told
            return False
        if not kind:
            continue
        owner = owner_of(part, subjects, asked_words_)
        values = set().union(*(kind_values(c.text, kind, owner) for c in told))
        if values and not any(re.search(rf"\b{re.escape(value)}", said) for value in values):
            return False
    return True


def _names_a_member(answer: str, part: str, candidates: Sequence[Candidate]) -> bool:
    """Whether `answer` names a member of the kind the part names ("breed": "beagle") that a
    record answering the part names, when one does."""
    wanted = set().union(*map(members_of, content_words(part) & kind_nouns()))
    told = set().union(*(content_words(c.text) & wanted for c in answering(part, candidates))) if wanted else set()
    return not told or bool(content_words(answer) & told)


def _numbers(text: str) -> set[str]:
    """The numbers of `text` (digits and number words alike, not a date's day)."""
    return {value.key for value in extract(text, ("number",))}


def asks_of_records(question: str, candidates: Sequence[Candidate]) -> bool:
    """Whether a part of `question` asks for a value (a name, a number, a day, a job, a place) of
    something a record the user told holds every asked word of: "what's the vet clinic called?"
    after "I'm now a receptionist at a vet clinic" asks about their life, with no "my" in it; or
    names the thing it asks ("what venue ...") of something a record holds every other asked
    word of ("what venue is the wedding at?" after "Hannah's wedding got moved to January")."""
    candidates = said_by_user(candidates)
    subjects = subjects_of(candidates, question)
    for part in parts(question):
        asked_words_, value = _asked(part, subjects)
        thing = _THING.match(part)  # "what venue is the wedding at?": a thing of the wedding the user told of
        rest = asked_words_ - content_words(thing[1]) if thing else set()
        if not (asked_words_ and value) and not rest:
            continue
        if any(holds_all(rest or asked_words_, c.note) for c in candidates):
            return True
    return False
