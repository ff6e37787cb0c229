"""Proper names in a text: "Lena", "Porto", "The Great Barrier Reef", "Mr Sato", "Tuesday".

Definition: a name is a run of capitalized words (joined by nothing, or by "of", "de", "van",
"von", "da", "del", "la", "le" between two capitalized words), none of them "I", that is not
a sentence opener. A capitalized word at the start of a sentence (or of a line, or after an
opening quote or a colon) is an opener, not a name, when it is a common word: a function word,
a word from the list of everyday openers below, a word ending in -ly, -ing or -ed, or a word
written in lower case anywhere in the same text or its sources, or a word exclaimed alone
("Yay!", "Dang!"). A run that starts with such an
opener keeps its other words ("Today Lena ..." -> "Lena"). An all-capital word of two letters or
more (an acronym such as "CFA") is a name too. A possessive "'s" is not part of the name.

A word is one of reading/words.py, words joined by a hyphen read as one ("Jean-Luc").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from .language import STOPWORDS
from .words import compounds

_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*|[\"\u201C(\-\u2022*\u00A1\u00BF]\s*)$")
_JOINERS = frozenset({"of", "de", "van", "von", "da", "del", "la", "le", "du", "di", "al"})
# Words that open a sentence in answers and are not names (pronouns, determiners, courtesy,
# discourse words and common verbs in the imperative; greetings and thanks in French, Spanish,
# German, Italian, Portuguese and Dutch too). Checked in lower case.
OPENERS = frozenset("""
a an the this that these those there here it its it's i i'm i've i'd i'll you you're you've your yours
he she they we we're our us him her his their them my me mine one some any all every each no not none
yes yeah yep sure ok okay oh ah hi hello hey hmm well so and but or if when where what which who whom
whose why how while as at in on of for from with by to into about after before during since until
because although though however also then now today tomorrow yesterday tonight later soon just still
maybe perhaps thanks thank please sorry great good nice cool wow congratulations welcome glad happy
got get go see hope wish want need feel love like tell ask come bye yay hooray oops whoops aw aww
alright cheers dang darn gosh huh hmm haha lol yup nope nah ugh phew voila yes yeah fine okay ok sure
merci bonjour salut enchanté enchantée avec désolé hola gracias encantado encantada lo siento buenos
danke hallo gern freut ciao grazie prego piacere buongiorno olá obrigado obrigada prazer bom leuk graag hoi
bedankt dank
enjoy remember try let let's note keep take make have do did does is are was were be been being can
could would should will shall may might must here's there's that's what's it'll sounds looks seems
unfortunately absolutely certainly definitely indeed actually besides otherwise instead overall
first second third next last finally other another both either neither most many much more few
based according given regarding speaking being having good-bye goodbye bye dear best
""".split())
_SUFFIXES = ("ly", "ing", "ed")
_OTHER_STOPWORDS = frozenset().union(*STOPWORDS.values())  # "En qué ...", "Je suis ..."
_ARTICLES = frozenset({"the", "a", "an"})  # "called The Great Barrier Reef" names "Great Barrier Reef"
_POSSESSIVE = re.compile(r"['\u2019]s$", re.IGNORECASE)


def bare(word: str) -> str:
    return _POSSESSIVE.sub("", word).strip("'\u2019-")


# Capitalized or all-capital words that name nothing in particular.
NOT_NAMES = frozenset({"ok", "okay", "tv", "ai", "am", "pm", "diy", "faq", "asap", "lol", "omg", "btw", "hi"})


def capitalized(word: str) -> bool:
    return (word[:1].isupper() and word != "I" and not word.startswith(("I'", "I\u2019"))
            and bare(word).lower() not in NOT_NAMES)


def _acronym(word: str) -> bool:
    return len(word) >= 2 and word.isupper() and word.isalpha()


def _lower_words(texts: Iterable[str]) -> set[str]:
    return {w for text in texts for w, _, _ in compounds(text) if w[:1].islower()}


def _exclaimed(text: str, end: int) -> bool:
    """Whether the word ending at `end` is a one-word exclamation ("Yay!", "Dang!")."""
    return text[end:end + 1] == "!"


def _opener(word: str, lower_seen: set[str]) -> bool:
    low = bare(word).lower().replace("\u2019", "'")
    if low in OPENERS or re.split(r"'", low)[0] in OPENERS or low in _OTHER_STOPWORDS:  # "They've", "Where'd"
        return True
    return (low in lower_seen or low.endswith(_SUFFIXES)) and not _acronym(bare(word))


def proper_names(text: str, context: Iterable[str] = ()) -> list[str]:
    """The proper names in `text`, in order, each once; `context` (the sources the text is
    checked against) also shows which capitalized openers are everyday words there."""
    return names_of(text, list(compounds(text)), context)


def names_of(text: str, tokens: Sequence[tuple[str, int, int]], context: Iterable[str] = ()) -> list[str]:
    """`proper_names` of a text already read into its `compounds` (`tokens`)."""
    lower_seen = {w.lower() for w, _, _ in tokens if w[:1].islower()} | {w.lower() for w in _lower_words(context)}
    names: list[str] = []
    run: list[str] = []
    last_end = 0

    def close() -> None:
        while run and run[-1].lower() in _JOINERS:
            run.pop()
        while run and run[0].lower() in _ARTICLES:
            run.pop(0)
        if run:
            name = " ".join(bare(w) for w in run)
            if name and name not in names:
                names.append(name)
        run.clear()

    loud = _shouted(tokens)
    for index, (word, start, end) in enumerate(tokens):
        between = text[last_end:start]
        last_end = end
        starts = bool(_SENTENCE_START.search(text[:start]))
        if run and between.strip():  # punctuation between words ends a run
            close()
        named = capitalized(word) and index not in loud and not (
            starts and (_opener(word, lower_seen) or _exclaimed(text, end)))
        if named or (run and word.lower() in _JOINERS and between == " "):
            run.append(word)
        else:
            close()
    close()
    return names


def _shouted(tokens: Sequence[tuple[str, int, int]]) -> set[int]:
    """The places of the words written in capitals beside another such word: "I GOT THE JOB"
    is shouted, and names nobody ("UI" alone may be a name's letters)."""
    upper = [word.isupper() for word, _, _ in tokens]
    return {index for index, is_upper in enumerate(upper) if is_upper and (
        (index > 0 and upper[index - 1]) or (index + 1 < len(upper) and upper[index + 1]))}


def known_words(sources: Iterable[str]) -> set[str]:
    """Every word of `sources`, in lower case and without a possessive "'s"."""
    return {bare(w).lower() for text in sources for w, _, _ in compounds(text)}
