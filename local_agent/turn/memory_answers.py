"""Answers about the user's own past: whether a question is one (reading/past.py reads the
question; the memories shown decide when it only names someone), and what its answer may draw on.

Such an answer may assert a proper name or a number only when the memories shown, the dialogue
(with its summary and the system message's date) or the question hold it (`support.unsupported`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..reading.names import known_words, proper_names
from ..reading.past import PastQuestion
from ..reading.words import words

DONT_REMEMBER = "I don't remember that."


def asks_about_past(past: PastQuestion | None, memories: Sequence[str] = ()) -> bool:
    """Whether the question read as `past` asks about the conversation's own past: certainly,
    or by naming someone or something that the memories shown name too ("What did Melanie
    paint?")."""
    if past is None:
        return False
    if past.certain:
        return True
    if not past.named:  # no name read on its own: a word the memories hold as a name ("how old is yaw", "yaw's")
        named = {word.lower() for text in memories for name in proper_names(text) for word in name.split()}
        return any(word.removesuffix("'s") in named for clause in past.clauses for word in words(clause))
    known = known_words(memories)
    return any(all(word.lower() in known for word in name.split())
               for clause in past.clauses for name in proper_names(clause + ".", memories))
