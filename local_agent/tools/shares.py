"""Parts of a bill a calculation leaves out (issue 42): a reason to say "I'm not sure" rather
than give a total. "The bill was $84 and we add a 15% tip, how much does each of us pay?" read
as the tip alone answers another question: one person's share is asked, and nobody is counted
to share it. "Twenty percent off a ninety dollar coat and then sales tax, the final price?"
read as the discount alone leaves out a tax whose rate the message never gives."""

from __future__ import annotations

import re

from ..reading.words import alternation, word_list, word_set, words
from .coverage import asked_part, asking_sentence

_CHARGES = word_set("charges")
_WAIVED = word_set("charge_waived")


def _alternation(name: str) -> str:
    return alternation(phrase.replace("_", r"\s+") for phrase in word_list(name))


_SHARE = re.compile(rf"\b(?:{_alternation('share_whom')})\s+(?:\w+\s+)?(?:{_alternation('share_verbs')})\b"
                    rf"|\b(?:{_alternation('share_words')})\b|\bhow\s+much\s+(?:is\s+it\s+|for\s+)?each\W*$",
                    re.IGNORECASE)  # "how much each?", not "3 boxes at $19 each?"
_NEAR = 3  # words either side of a charge where its amount or its waiver is said


def share_left_out(message: str, expression: str) -> str | None:
    """One person's share asked ("how much does each pay", "split it") and a calculation that
    divides nothing: it answers for the whole group."""
    divides = re.sub(r"/\s*100\b", "", expression)  # a percentage's fraction shares nothing out
    if "/" in divides or "÷" in divides or not _SHARE.search(asked_part(message)):
        return None
    return "you asked for each one's share, and it divides by no one"


def charge_left_out(message: str, expression: str) -> str | None:
    """A charge the message names with no amount or rate ("and then pay sales tax") while the
    question asks what is paid: the total cannot hold it. None when every charge named has a
    number beside it, is waived ("tax included", "no tip"), or is what is asked about."""
    said = words(message)
    asking = asking_sentence(message)
    named = [(at, word) for at, word in enumerate(said) if word in _CHARGES and not _asks_for(word, asking)]
    given = {word for at, word in named if _given(said[max(0, at - _NEAR): at + _NEAR + 1])}
    unpriced = [word for _, word in named if word not in given]  # "20% VAT ... price with VAT?" has its rate
    return f"it leaves out the {unpriced[0]}, whose amount you did not give" if unpriced else None


def _given(near: list[str]) -> bool:
    """Whether the words around a charge give its amount ("8% tax") or waive it ("no tip")."""
    return any(word[0].isdigit() for word in near) or bool(_WAIVED & set(near))


def _asks_for(word: str, sentence: str) -> bool:
    """Whether the question asks for the charge itself ("how much is the tip")."""
    return re.search(rf"\b(?:how\s+much|what(?:'s|\s+is|\s+was|\s+will\s+be)?)\s+(?:(?:is|was|will|would|should|do|"
                     rf"does)\s+)?(?:the\s+|my\s+|our\s+|in\s+)?{word}\b", sentence, re.IGNORECASE) is not None
