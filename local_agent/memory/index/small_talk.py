"""Messages that ask nothing a memory could answer: greetings, thanks, "how are you?".

Recall for them finds other greetings ("Hi! I drive a Ford truck"), which lengthen the prompt
(its evaluation is most of a CPU turn's time to first token) and hand a small model a subject
the user never raised. A message is small talk when every word in it is a greeting or
courtesy word or a word with no content of its own.
"""

from __future__ import annotations

from ..distill.words import FUNCTION_WORDS, WORD

SMALL_TALK_WORDS = frozenset(
    """hi hello hey heya hiya howdy yo greetings thanks thank thx ty cheers bye goodbye cya later
    good morning afternoon evening night ok okay k cool great nice sure yes yeah yep no nope alright
    fine well doing what's whats how's hows up sup are is am do does how please sorry oh ah
    hmm haha lol wow today going got not bad nothing awesome perfect""".split()
)


def is_small_talk(message: str) -> bool:
    """True when no word of `message` names anything ("hi!", "thanks so much", "how are you?")."""
    words = [word.lower() for word in WORD.findall(message)]
    return bool(words) and all(word in SMALL_TALK_WORDS or word in FUNCTION_WORDS for word in words)
