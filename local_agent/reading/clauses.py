"""Split a chat message into clauses and tell what each one does: a first-person statement,
another statement, a question, or a request to the assistant. Cheap string work, no model."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .patterns import LazyPattern
from .values import extract
from .words import QUESTION_SPELLINGS, word_set

ClauseAct = Literal["statement", "question", "request"]

# Chat spellings normalized before any matching ("i m", "im", "dont" ...).
_SPELLINGS = [
    (LazyPattern(r"\bi\s?m\b", re.I), "I'm"),
    (LazyPattern(r"\bive\b", re.I), "I've"),
    (LazyPattern(r"\bi\b"), "I"),
    (LazyPattern(r"\bdont\b", re.I), "don't"),
    (LazyPattern(r"\bcant\b", re.I), "can't"),
    (LazyPattern(r"\bdoesnt\b", re.I), "doesn't"),
    (LazyPattern(r"[\u2018\u2019]"), "'"),
    (LazyPattern(r"\s+"), " "),
]
# A title or an abbreviation ends no sentence: "I am Dr. Amara Nwosu", "a cardiologist at St. Mary's".
_NOT_AN_END = "".join(rf"(?<!\b{word}\.)" for word in sorted(word_set("abbreviations")))
_SENTENCE_BREAK = LazyPattern(rf"(?<=[.!?;]){_NOT_AN_END}\s+|\s*\n+\s*|(?<=[.!?]){_NOT_AN_END}(?=[A-Z])")
_SUBJECTS = r"(?:I|I'm|I've|I'd|I'll|my|me|we|we're|our|you|your|you're)"
_QUESTION_OPENERS = (
    r"(?:whats|what|how|where|when|why|who|whom|whose|which|do|does|did|are|is|was|were|have|has|had|"
    r"can|could|would|will|should|shall|may|might|isn't|aren't|don't|doesn't|didn't|won't)"
)
# A clause starts after "but/and/so ..." or a comma when a subject or a question follows ("my
# scores were 78, 85 and 91, whats my average"; not "..., what a day", nor a relative clause ", who is 7").
# A question back to the assistant: "what do you ...", "how about you", "where did you ...".
_ASKS_THE_ASSISTANT = (
    r"(?:what|how|where|when|why|who|which)\s+(?:(?:do|did|does|are|were|is|was|would|could|can|have|"
    r"will)\s+(?:you|u)|about\s+(?:you|u|yours))\b"
)
_CLAUSE_BREAK = LazyPattern(
    rf",?\s+(?:but|and|so|because|though|although|plus|whereas)\s+(?={_SUBJECTS}\b)"
    rf"|,\s+(?={_SUBJECTS}\b)"
    rf"|,\s+(?=(?:and |but |so )?{_QUESTION_OPENERS}\s+(?:you|your|u|about)\b)"
    rf"|,\s+(?=(?:and |but |so )?{_ASKS_THE_ASSISTANT})"
    r"|,\s+(?=(?:and |but |so )?(?:what|whats|what's|how)\s+(?!a\b|an\b|such\b|about\b)\w)",
    re.I,
)
_INTERJECTION = LazyPattern(
    r"^(?:(?:oh|ah|aw+|well|yes|yeah|yep|yup|no|nope|nah|lol|lmao|haha+|hah|hehe|hi|hello|hey|ok|"
    r"okay|sure|cool|nice|wow|um+|uh+|hmm+|actually|honestly|also|and|but|so|plus|great|awesome|"
    r"indeed|really|thanks|thank you|anyway|anyways|right|true|same|me too|good|interesting|fun fact)"
    r"\b[\s,!.:;-]*)+",
    re.I,
)
_SPELLED_OPENERS = "|".join(re.escape(spelled) for spelled in QUESTION_SPELLINGS)  # "wait whens ...", "wat"
# An aside before what is asked ("wait, ...", "hang on where do I live", "sorry, quick question:"):
# only before a comma, a colon or a question word ("wait for me" is a request)
_ASIDE = LazyPattern(r"^(?:(?:wait|hang on|hold on|sorry|btw|by the way|quick question|one more thing|question)"
                     rf"(?:\s*[,:;.!-]+\s*|\s+(?=(?:{_QUESTION_OPENERS}|{_SPELLED_OPENERS})\b)))+", re.I)
_BARE_SUBJECT = LazyPattern(r"^\W*(?:my|our)(?: \w+){1,2}\W*$", re.I)
# An introductory phrase with no subject of its own ("As a nurse, I ...", "In 2019, we ...",
# "Working at a grocery store, I ..."): it belongs to the clause after its comma.
_LEADING_PHRASE = LazyPattern(
    r"^\W*(?:as|in|on|at|during|for|after|before|since|from|with|without|being|working|living|"
    r"growing up|having)\b(?:(?!\b(?:I|I'm|I've|we|you|he|she|they|it)\b)[^,]){1,40}$",
    re.I,
)
_FIRST_PERSON = LazyPattern(r"\b(?:I|I'm|I've|I'd|I'll|my|me|mine|myself|we|we're|we've|our|ours)\b", re.I)
# A run-on "Summer is my favorite I love fishing" has a second clause at the bare " I ", unless
# the word before it introduces a subordinate clause ("the way I", "that I", "so I").
_RUN_ON = LazyPattern(
    r"(?<=[a-z]) (?=I (?:am|have|had|was|love|like|hate|work|live|do|don't|enjoy|own|got|go|play|can|"
    r"just|also|really|used|grew|need|want)\b|I'm |I've "
    rf"|(?i:{_ASKS_THE_ASSISTANT}))"
)
_SUBORDINATORS = frozenset(
    """that which when where if because as since so and but or what how why who whom than while until
    before after though whether think know guess hope wish mean say said believe feel way time thing
    things one ones all the a an once till cause cuz now then also
    do does did can could should would will shall may might must am was were have has had""".split()
)  # the last line: an auxiliary before "I" asks a question of it ("where do I live")
_AUXILIARIES = frozenset("do does did are is was were have has had can could would will should shall may might".split())
# What follows an auxiliary that opens a question: its subject ("did you", "was the shop", "is there",
# "is next year", "is 2028": a number too).
_ASKED_SUBJECTS = frozenset("""i you he she it we they there this that these those the a an my your his her its our
their anyone anybody someone somebody everyone everybody anything something he's she's it's u ur ya y'all
next last today tomorrow yesterday any some all both each every""".split())
_QUESTION_START = LazyPattern(rf"^{_QUESTION_OPENERS}\b", re.I)
# "my trade and town", "my age": a message of nothing but the user's own kinds of value asks for them
_KIND_NOUNS = "|".join(sorted(word_set("asks_job", "asks_place") | {"age", "name", "birthday", "address"}))
_NOUNS_ASKED = LazyPattern(rf"^(?:and\s+)?(?:my|our)\s+(?:{_KIND_NOUNS})"
                           rf"(?:\s*(?:,|and|&)\s*(?:my\s+)?(?:{_KIND_NOUNS}))*$", re.I)
# "what a day", "what a mess that was": an exclamation, no question, unless it ends with "?"
_EXCLAMATION = LazyPattern(r"^what\s+(?:a|an|such)\b", re.I)
_REQUEST_START = LazyPattern(
    r"^(?:please|pls|can you|could you|would you|will you|help me|tell me|show me|give me|let me know|"
    r"let's|lets|I want you to|I need you to|I'd like you to|I would like you to|I'd like to know|"
    r"I want to know|I need help|I need a|I need an|I need some|I need to know|I'm looking for|"
    r"I am looking for|I wonder|I was wondering|I'd like a|I would like a|I'd like some|"
    r"I would like some|remind me|make sure|don't forget|do not forget)\b",
    re.I,
)
# Base-form verbs that open an instruction ("Write a poem", "List three ..."). Any verb the
# clause opens with that is not preceded by a subject reads as an imperative.
_IMPERATIVE_VERBS = frozenset(
    """add analyze answer apply arrange ask brainstorm build calculate categorize change check
    choose classify come compare compose compute convert correct count create decide define
    delete describe design determine discuss draft draw edit estimate evaluate explain extract
    fill find fix format generate get give go guess help identify imagine improve include
    write know label let list look make mark match name note offer organize outline paraphrase
    pick plan predict prepare proofread provide put rank rate read recommend remove rephrase
    remind replace respond restate return review revise rewrite say schedule select send shorten show
    simplify solve sort spell split state suggest summarize summarise take talk teach tell think
    transform translate try turn use verify book buy convince design detect find order""".split()
)


@dataclass(frozen=True)
class Clause:
    """A piece of a message with its speech act; `text` has interjections and final
    punctuation removed."""

    text: str
    act: ClauseAct

    @property
    def first_person(self) -> bool:
        """Whether the speaker speaks of themself anywhere in the clause."""
        return _FIRST_PERSON.search(self.text) is not None

    @property
    def first_person_statement(self) -> bool:
        return self.act == "statement" and self.first_person


def normalize(text: str) -> str:
    """Fix chat spellings ("im", lowercase "i", curly quotes) and collapse whitespace."""
    for pattern, replacement in _SPELLINGS:
        text = pattern.sub(replacement, text)
    return text.strip()


# A question said after the quantities it asks about, with no comma between, as speech and
# quick typing leave it ("oven says 350 farenheit whats that in celcius", "if i have ninety days
# to return it whats the last day"): the question starts a clause of its own. Not "I know how
# much it costs" (no quantity before it), "I ran 5 km, I know how much it hurts" (a clause after
# it), nor "what a day" (no asking word after "what").
_ASKED_AFTER = LazyPattern(r"\s+(?=(?:whats|what's|what\s+(?:is|was|will|would)\s+(?:that|it|this|the|my)|"
                           r"how\s+(?:much|many|long|far|old)(?!\s+(?:i|it|he|she|we|they|you)\s+(?!(?:is|are|am|was)\b)[a-z])|"
                           r"when\s+(?:is|was|will|do|does|did)|which\s+(?:day|date))\b)", re.I)


def _asked_after_quantities(sentence: str) -> list[str]:
    """`sentence` cut before a question that follows its quantities without a comma."""
    for found in _ASKED_AFTER.finditer(sentence):
        before = sentence[:found.start()]
        if before and before[-1] not in ",;:" and extract(before, ("number", "date", "time")):
            return [sentence[:found.start()], sentence[found.end():]]
    return [sentence]


def asks_after_quantities(text: str) -> bool:
    """Whether `text` asks a question after its quantities with no comma between."""
    return len(_asked_after_quantities(text)) > 1


def split_clauses(message: str) -> list[Clause]:
    """The message's clauses in order, each with its act; a chat clause that leaves its
    subject out is given the speaker's back (`_with_speaker`)."""
    clauses = []
    sentences = [cut for whole in _SENTENCE_BREAK.split(normalize(message)) for cut in _asked_after_quantities(whole)]
    for sentence in sentences:
        pieces = [q for p in _CLAUSE_BREAK.split(sentence) if p and p.strip() for q in _split_run_on(p)]
        parts = _join_fragments([p for p in pieces if p.strip()])
        for index, part in enumerate(parts):
            is_last = index == len(parts) - 1
            clause = _clean(part)
            if clause:
                clauses.append(Clause(clause, _act(clause, asked=is_last and sentence.rstrip().endswith("?"))))
    return _with_speaker(clauses)


# A chat clause without its subject: "(I'm) just watching the office", "(I) got a new car".
_ELIDED = re.compile(
    r"^(?:(?:just|currently|still|also|now|really|finally|recently)\s+)?"
    r"(?:(?P<doing>[a-z]+ing)|(?P<did>got|bought|went|finished|started|made|took|saw|had|visited|moved|adopted|"
    r"found|watched|played|tried|spent|met|ate|learned|learnt|began|joined|quit|left|booked))\b(?!\s+(?:you|your|u)\b)",
    re.IGNORECASE,
)
_NOT_VERBS = frozenset("""nothing something anything everything thing things morning evening spring king ring
    sing bring wing string ceiling wedding building meeting feeling pudding darling sibling during
    amazing interesting boring exciting according""".split())
# "do you want children? I do not": the short answer takes the question's verb phrase.
# "do you enjoy football? I love it": the pronoun takes the question's object.
_SHORT_ANSWER = re.compile(r"^(?:I (?P<aux>do not|don't|do|did not|didn't|did)(?: too| either)?)$", re.IGNORECASE)
_ASKED_YOU = re.compile(r"^(?:(?:and|so|but)\s+)?(?:do|did) you (?P<rest>.+)$", re.IGNORECASE)
_FEELING_IT = re.compile(r"^I (?:really |totally |absolutely )?(?P<verb>love|like|enjoy|adore|hate|dislike) "
                         r"(?:it|them|that)(?: too| so much| a lot)?$", re.IGNORECASE)
_ASKED_FEELING = re.compile(r"^(?:(?:and|so|but)\s+)?do you (?:\w+ )?(?:like|love|enjoy|hate) (?P<what>.+)$",
                            re.IGNORECASE)


def _with_speaker(clauses: list[Clause]) -> list[Clause]:
    """Subjectless statements in a message that speaks in the first person get "I" back, and a
    short answer to a "do you ...?" in the same message gets the question's verb phrase."""
    speaks = any(clause.first_person for clause in clauses)
    out: list[Clause] = []
    for clause in clauses:
        text = clause.text
        elided = _ELIDED.match(text) if clause.act == "statement" and not clause.first_person else None
        if elided and speaks and (elided.group("did") or elided.group("doing").lower() not in _NOT_VERBS):
            text = ("I'm " if elided.group("doing") else "I ") + text[0].lower() + text[1:]
        # the earlier clauses are searched only for a short answer or a feeling: a long message
        # of many clauses would otherwise cost their square
        short = _SHORT_ANSWER.match(text)
        asked = next(filter(None, (_ASKED_YOU.match(c.text) for c in reversed(out))), None) if short else None
        if short and asked:
            text = f"I {short.group('aux')} {asked.group('rest')}"
        feeling = _FEELING_IT.match(text)
        topic = next(filter(None, (_ASKED_FEELING.match(c.text) for c in reversed(out))), None) if feeling else None
        if feeling and topic:
            text = f"I {feeling.group('verb')} {topic.group('what')}"
        out.append(Clause(text, clause.act) if text != clause.text else clause)
    return out


def _split_run_on(text: str) -> list[str]:
    """Split "Summer is my favorite I love fishing" before the bare "I"."""
    pieces, start = [], 0
    for match in _RUN_ON.finditer(text):
        previous = text[start:match.start()].rsplit(" ", 1)[-1].lower()
        if previous not in _SUBORDINATORS:
            pieces.append(text[start:match.start()])
            start = match.end()
    return [*pieces, text[start:]]


def _join_fragments(parts: list[str]) -> list[str]:
    """Join a piece that is no clause to the one after it: a bare noun phrase ("My wife" + "and
    I just bought a house") and an introductory phrase ("As a cancer survivor" + ", my cat was
    always near me"), since what they say is about the clause that follows."""
    merged: list[str] = []
    for part in parts:
        if merged and _BARE_SUBJECT.match(merged[-1]):
            merged[-1] = f"{merged[-1]} and {part}"
        elif merged and _LEADING_PHRASE.match(merged[-1]):
            merged[-1] = f"{merged[-1]}, {part}"
        else:
            merged.append(part)
    return merged


def _clean(part: str) -> str:
    text = _INTERJECTION.sub("", _ASIDE.sub("", _INTERJECTION.sub("", part.strip())))
    return text.strip().rstrip(".!?;:,").strip().strip('"').strip()


def _act(clause: str, *, asked: bool) -> ClauseAct:
    if _REQUEST_START.match(clause) or _is_imperative(clause):
        return "request"
    opens = _QUESTION_START.match(clause) and not _EXCLAMATION.match(clause) and not _subjectless(clause)
    if asked or opens or _NOUNS_ASKED.match(clause):
        return "question"
    return "statement"


def _subjectless(clause: str) -> bool:
    """Whether the clause opens with an auxiliary verb and no subject after it, a statement
    with its "I" left out ("Had such a lovely time yesterday", "Was at the dentist today", "Did
    great on my exam"), not a question ("Did you go", "Is Lily ok", "was the shop open")."""
    said = clause.split()
    if len(said) < 2 or said[0].lower() not in _AUXILIARIES:
        return False
    after = said[1]
    year = after.isdigit() and len(after) == 4  # "is 2028 a leap year", not "was 5 minutes late"
    return not (after[:1].isupper() or year or after.lower().strip(",") in _ASKED_SUBJECTS)


def _is_imperative(clause: str) -> bool:
    first = clause.split(" ", 1)[0].lower()
    return first in _IMPERATIVE_VERBS


def only_asks(text: str) -> bool:
    """Whether every clause of `text` is a question ("what city am I living in", "whats the cat
    called?"): a question a user asked, which tells nothing ("change of plan, the party is at
    the hall now" opens like a request and tells)."""
    clauses = split_clauses(text)
    return bool(clauses) and all(clause.act == "question" for clause in clauses)


# A word that asks, of a question or of a request for data ("list", "count", "top", "average").
QUESTION_WORD = re.compile(r"\b(?:how|what|what's|whats|which|who|when|list|show|count|give|tell|find|top|number|"
                           r"total|average|avg|percentage|share)\b", re.IGNORECASE)


def asking_sentence(message: str) -> str:
    """The sentence of a message that asks: the last with a question mark, else the last with a
    question word, else the whole message."""
    sentences = [part for part in re.split(r"(?<=[.!?;:])\s+|(?<=[!?;])(?=\S)|(?<=:)(?=[^\d\s])", message)
                 if part.strip()]  # not inside a clock time ("leaving 22:00, landing when")
    asking = [part for part in sentences if "?" in part] or [part for part in sentences if QUESTION_WORD.search(part)]
    return asking[-1] if asking else message
