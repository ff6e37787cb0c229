"""Answers about the user's own past: which questions are such, and what their answer may draw on.

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

Such an answer may assert a proper name or a number only when the memories shown, the dialogue
(with its summary and the system message's date) or the question hold it (`support.unsupported`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..grounding.language import language_of
from ..grounding.names import known_words, proper_names
from ..memory.distill.clauses import split_clauses

DONT_REMEMBER = "I don't remember that."
_SELF = re.compile(r"\b(?:my|mine|our|ours|myself|I|I'm|I've|I'd|me|we|we've|us)\b", re.IGNORECASE)
# "me" as whom a request is made to says nothing of the user's past: "Tell me a story about ..."
_ADDRESSEE = re.compile(r"\b(?:tell|give|show|help|let|teach|send|write|get|find|make|bring|read)\s+(?:me|us)\b",
                        re.IGNORECASE)
_ADVICE = re.compile(
    r"^(?:\w+\s+){0,3}?(?:how|where|what|which|when)?\s*(?:\w+\s+){0,2}?"
    r"(?:should|can|could|would|shall|might|must)\s+(?:I|we)\b"
    r"|^how\s+(?:do|does|did)\s+(?:I|we)\b|^(?:should|can|could|shall|may)\s+(?:I|we)\b"
    r"|^(?:what|which)\s+(?:\w+\s+){0,2}?(?:is|are)\s+(?:good|best|better)\b",
    re.IGNORECASE,
)
_ASSISTANT_PAST = re.compile(
    r"\b(?:did you (?:say|tell|mention|recommend|suggest|call|name)|you (?:told|said|mentioned|recommended|suggested|"
    r"promised)|have you told|what was (?:it|that) you)\b",
    re.IGNORECASE,
)
_REMIND = re.compile(r"\b(?:remind me|tell me (?:again|what|where|when|who|how)|do you remember"
                     r"|do you know (?:my|what|where|when|who))\b", re.IGNORECASE)


_GUESS = re.compile(r"\b(?:would|might|could)\b(?!\s+you\b)"
                    r"|\b(?:likely|probably|possibly|perhaps|maybe|guess|suppose|do you think|in your opinion)\b"
                    # what is to come, or what to do: "how much will I have", "if I save", "any tips"
                    r"|\b(?:will I|will we|if I|if we|am I going to|are we going to)\b"
                    r"|\b(?:tips?|advice|ideas?|suggestions?|recommendations?)\b", re.IGNORECASE)
_LEADS = re.compile(r"^(?:(?:but|and|so|anyway|though|ok|okay|well|also|oh|sorry)\b\W*)+", re.IGNORECASE)
_ASKS = re.compile(r"^(?:what|what's|how|where|when|who|whom|whose|which|why|do|does|did|is|are|was|were|can|could|"
                   r"should|would|will|have|has|had|am|remind|tell)\b", re.IGNORECASE)


def _question_part(text: str) -> str:
    """The question itself in a clause that opens with something else ("My laptop is loud, but
    anyway, what's a good way to ...?" -> "what's a good way to ...")."""
    for piece in reversed(text.split(",")):
        question = _LEADS.sub("", piece.strip())
        if _ASKS.match(question):
            return question
    return text


def asks_about_past(message: str, memories: Sequence[str] = ()) -> bool:
    """Whether `message` asks about the conversation's own past (see the module's definition);
    only an English question (or one of unknown language) is read, and not one that asks for a
    guess ("Would Tim enjoy ...?", "What might John's degree be in?"): its answer may draw on
    what the model knows."""
    if language_of(message) not in (None, "en") or _GUESS.search(message):
        return False
    clauses = [c for c in split_clauses(message) if c.act == "question" or _REMIND.search(c.text)
               or (c.act == "request" and _question_part(c.text) != c.text)]  # "I was wondering, where did I ..."
    if not clauses:
        return False
    for clause in clauses:
        text = _question_part(clause.text)
        if _ASSISTANT_PAST.search(text) or _REMIND.search(text):
            return True
        if _SELF.search(_ADDRESSEE.sub("", text)) and not _ADVICE.match(text):
            return True
    known = known_words(memories)
    return any(all(word.lower() in known for word in name.split())
               for clause in clauses for name in proper_names(clause.text + ".", memories))
