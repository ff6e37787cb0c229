"""Questions about the user's own past: which questions memory, not general knowledge, answers.

A question about the past of the conversation is one that memory, not general knowledge,
answers. Definition: the message, in English, has a question (or a "remind me"/"tell me"
request), and the question itself (what follows the last comma, when something else opens the
clause: "My laptop is loud, but anyway, what's a good way to ...?") satisfies one of:
- it speaks of the user ("my", "mine", "our"; "I" or "we" as the subject, except in asking for
  advice: "how do I", "should I", "can I", "what should we"), or
- it asks what the assistant said before ("did you say", "you told me", "you recommended"), or
- it names someone or something that the memories shown name too ("What did Melanie paint?");
and it does not ask for a guess ("would", "might", "likely", "do you think": "Would Tim enjoy
reading C. S. Lewis?"), for what is to come ("how much will I have", "if I save") or for advice
("any tips to calm my nerves?"), whose answers may draw on what the model knows.

The last condition needs the memories shown: the reading keeps the question clauses for it
(`PastQuestion.clauses`). A question for the user's own name ("what's my name?", "who am I?",
"whats my name lol") is one whatever its language or form (`ASKS_OWN_NAME`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from .clauses import Clause
from .names import proper_names
from .words import word_set

# "What's my name?", "who am I?", "do you remember my name?": the program answers from the
# introductions the dialogue and the memories shown hold.
ASKS_OWN_NAME = re.compile(r"\b(?:what(?:'s| is|s)?|whats)\s+my\s+name\b|\bwho am i\b"
                           r"|\bdo you (?:know|remember) (?:my name|who i am)\b|\bwhat do you call me\b", re.IGNORECASE)
_SELF = re.compile(r"\b(?:my|mine|our|ours|myself|I|I'm|I've|I'd|me|we|we've|us)\b", re.IGNORECASE)
# "me" as whom a request is made to says nothing of the user's past: "Tell me a story about ..."
_ADDRESSEE = re.compile(r"\b(?:tell|give|show|help|let|teach|send|write|get|find|make|bring|read)\s+(?:me|us)\b",
                        re.IGNORECASE)
_DID = re.compile(r"\b(?:did|has|have|had)\s+(?!you\b)\w+\s+(?:\w+\s+)?(?:tell|give|show|teach|send|write|get|find|"
                  r"make|bring|read|lend|buy)\s+(?:me|us)\b", re.IGNORECASE)
_ADVICE = re.compile(
    r"^(?:\w+\s+){0,3}?(?:how|where|what|which|when)?\s*(?:\w+\s+){0,2}?"
    r"(?:should|can|could|would|shall|might|must)\s+(?:I|we)\b"
    r"|^how\s+(?:do|does)\s+(?:I|we)\b|^(?:should|can|could|shall|may)\s+(?:I|we)\b"
    r"|^(?:what|which)\s+(?:\w+\s+){0,2}?(?:is|are)\s+(?:good|best|better)\b",
    re.IGNORECASE,
)
_ASSISTANT_PAST = re.compile(
    r"\b(?:did you (?:say|tell|mention|recommend|suggest|call|name)|you (?:told|said|mentioned|recommended|suggested|"
    r"promised)|have you told|what was (?:it|that) you)\b",
    re.IGNORECASE,
)
# "tell me how many days until 4 July" asks for a count, not to be reminded ("tell me how many kids I have")
_REMIND = re.compile(r"\b(?:remind me|tell me (?:again|what|where|when|who|"
                     r"how(?!\s+(?:many|much|long|far)\b(?![^.?!]*\b(?:i|my|me|we|our|us)\b)))|do you remember"
                     r"|do you know (?:my|what|where|when|who))\b", re.IGNORECASE)


_GUESS = re.compile(r"\b(?:would|might|could)\b(?!\s+you\b)"
                    r"|\b(?:likely|probably|possibly|perhaps|maybe|guess|suppose|do you think|in your opinion)\b"
                    # what is to come, or what to do: "how much will I have", "if I save", "any tips"
                    r"|\b(?:will I|will we|if I|if we|am I going to|are we going to)\b"
                    r"|\b(?:tips?|advice|ideas?|suggestions?|recommendations?)\b", re.IGNORECASE)
# "how do I earn my living again?", "how do I get to work these days?": the user's own way, not advice
_AGAIN = re.compile(r"\bmy\b.*\bagain\b|\b(?:these\s+days|nowadays|at\s+the\s+moment)\b", re.IGNORECASE)
_LEADS = re.compile(r"^(?:(?:but|and|so|anyway|though|ok|okay|well|also|oh|sorry)\b\W*)+", re.IGNORECASE)
_ASKS = re.compile(r"^(?:what|what's|how|where|when|who|whom|whose|which|why|do|does|did|is|are|was|were|can|could|"
                   r"should|would|will|have|has|had|am|remind|tell)\b", re.IGNORECASE)


@cache
def _terse_ask() -> re.Pattern[str]:
    """A note that asks a value of someone or something by naming both, or a value of the
    user's alone: "wife's name", "my dog's breed?", "dentist's name?", "names of both my dogs",
    "current job title?" (words.toml `relations`, `pets`, and the words that ask a value:
    `asks_name`, `asks_number`, `asks_job`, `terse_values`). Not "the Eiffel Tower's height"
    (no value words.toml lists) nor "job ideas?" (a request: past_question's `_GUESS`)."""
    who = "|".join(sorted(word_set("relations", "pets"), key=len, reverse=True))
    what = "|".join(sorted(word_set("asks_name", "asks_number", "asks_job", "terse_values"), key=len, reverse=True))
    return re.compile(rf"^\W*(?:(?:my|our|the)\s+)?[a-z]+(?:'s|s')\s+(?:{what})\b(?:\s+(?:and|&)\s+\w+)?\W*$"
                      rf"|^\W*(?:the\s+)?(?:{what})s?\s+of\s+(?:(?:both|all|each)\s+(?:of\s+)?)?(?:my|our)\s+"
                      rf"(?:\w+\s+)?(?:{who})s?\W*$"  # "names of both my dogs"
                      rf"|^\W*(?:my|our|current|present)\s+(?:{what})(?:\s+title)?\s*\?\W*$", re.IGNORECASE)


def _question_part(text: str) -> str:
    """The question itself in a clause that opens with something else ("My laptop is loud, but
    anyway, what's a good way to ...?" -> "what's a good way to ...")."""
    for piece in reversed(text.split(",")):
        question = _LEADS.sub("", piece.strip())
        if _ASKS.match(question):
            return question
    return text



@dataclass(frozen=True)
class PastQuestion:
    """A question (or "remind me" request) that may ask about the user's past: `certain` when
    it speaks of the user or asks what the assistant said; else memory decides, by the names
    in its `clauses` (`named`: the names they hold read on their own; read beside the memories,
    a name may turn out an everyday word, never the other way)."""

    certain: bool
    clauses: tuple[str, ...]
    named: tuple[str, ...]


def past_question(message: str, clauses: Sequence[Clause], language: str | None) -> PastQuestion | None:
    """The question about the past in `message` (see the module's definition), or None: only
    an English question (or one of unknown language) is read, and not one that asks for a guess
    ("Would Tim enjoy ...?", "What might John's degree be in?")."""
    if language not in (None, "en") or _GUESS.search(message):
        return None
    reminding = {c.text for c in clauses if _REMIND.search(_onwards(message, c.text))}
    asked = [c for c in clauses if c.act == "question" or c.text in reminding
             or (c.act == "request" and _question_part(c.text) != c.text)]  # "I was wondering, where did I ..."
    if not asked and _terse_ask().match(message):  # "wife's name", "dog's breed?": a question about theirs
        return PastQuestion(True, (message,), ())
    if not asked:
        return None
    return PastQuestion(any(_about_past(_question_part(clause.text)) or clause.text in reminding for clause in asked),
                        tuple(clause.text for clause in asked),
                        tuple(name for clause in asked for name in proper_names(clause.text + ".")))


def _onwards(message: str, clause: str) -> str:
    """The message from `clause` on: "tell me how many kids" reminds when "I have" follows."""
    at = message.find(clause)
    return message[at:] if at >= 0 else clause


def _about_past(text: str) -> bool:
    if _ASSISTANT_PAST.search(text) or _REMIND.search(text) or _terse_ask().match(text + "?"):
        return True
    # "how do I earn my living again?" asks to be reminded, not for advice
    # "what did grandma teach me": said of the past, "me" is the user whom it happened to
    asked = text if _DID.search(text) else _ADDRESSEE.sub("", text)
    return bool(_SELF.search(asked)) and (not _ADVICE.match(text) or bool(_AGAIN.search(text)))


def asks_what_assistant_said(text: str) -> bool:
    """Whether `text` asks what the assistant said before ("what did you recommend?")."""
    return bool(_ASSISTANT_PAST.search(text))
