"""The language of a short text, told by its stopwords: enough to see that an answer to an
English message came back in Portuguese.

Definition: each language's score is the number of the text's words (lower case) in that
language's list of frequent function words (words.toml); the language with the highest score is the
text's language when the score is at least 2 (1 for a text of three words or fewer) and no
other language ties it. Otherwise the language is unknown (None): "ok", "Rex!", "thx".
"""

from __future__ import annotations

from .words import stopwords_by_language, words

STOPWORDS: dict[str, frozenset[str]] = stopwords_by_language()


def language_of(text: str) -> str | None:
    """The language code of `text` ("en", "fr", "es", "pt", "de", "it", "nl"), or None."""
    found = [word for word in words(text) if not word.isdigit()]
    if not found:
        return None
    scores = sorted(((sum(w in stop for w in found), code) for code, stop in STOPWORDS.items()), reverse=True)
    (best, code), (second, _) = scores[0], scores[1]
    needed = 1 if len(found) <= 3 else 2
    return code if best >= needed and best > second else None


def same_language(reply: str, user_language: str | None) -> bool:
    """Whether `reply` is in `user_language` (a reply whose language is unknown passes; an
    unknown user language counts as English)."""
    theirs = language_of(reply)
    return theirs is None or theirs == (user_language or "en")
