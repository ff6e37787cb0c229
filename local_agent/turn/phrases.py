"""The few replies the program says itself, in the languages grounding/language.py tells apart:
a greeting back, "you're welcome", thanks for something told, "nice to meet you, X", and the
courtesy a message is ("hola" is a greeting, "merci" thanks).

Definition of a courtesy message: every word of it is a greeting or thanks word of one of these
languages (or a word with no content, memory/index/small_talk.py), and at least one is; it is
thanks when it has a thanks word, else a greeting. "hi", "Bonjour !", "¡Muchas gracias!",
"thx 4 that", "how's it going?"; not "one more", "ok" or "yes", which greet nobody.
"""

from __future__ import annotations

import re
from typing import Literal

from ..memory.distill.words import FUNCTION_WORDS
from ..memory.index.small_talk import SMALL_TALK_WORDS

Courtesy = Literal["greeting", "thanks"]
PHRASES: dict[str, dict[str, str]] = {
    "en": {"greeting": "Hello! How can I help you today?", "thanks": "You're welcome!",
           "told": "Thanks for telling me.", "meet": "Nice to meet you, {name}!"},
    "fr": {"greeting": "Bonjour ! Comment puis-je vous aider ?", "thanks": "Avec plaisir !",
           "told": "Merci de me l'avoir dit.", "meet": "Enchanté, {name} !"},
    "es": {"greeting": "¡Hola! ¿En qué puedo ayudarte?", "thanks": "¡De nada!",
           "told": "Gracias por contármelo.", "meet": "¡Encantado, {name}!"},
    "pt": {"greeting": "Olá! Como posso ajudar?", "thanks": "De nada!",
           "told": "Obrigado por me contar.", "meet": "Prazer em conhecer, {name}!"},
    "de": {"greeting": "Hallo! Wie kann ich helfen?", "thanks": "Gern geschehen!",
           "told": "Danke, dass du mir das erzählst.", "meet": "Freut mich, {name}!"},
    "it": {"greeting": "Ciao! Come posso aiutarti?", "thanks": "Prego!",
           "told": "Grazie per avermelo detto.", "meet": "Piacere, {name}!"},
    "nl": {"greeting": "Hallo! Hoe kan ik helpen?", "thanks": "Graag gedaan!",
           "told": "Bedankt dat je het me vertelt.", "meet": "Leuk je te ontmoeten, {name}!"},
}
_THANKS = frozenset("""thanks thank thx ty cheers merci beaucoup gracias muchas mil danke schön schon vielen dank
    obrigado obrigada muito grazie mille bedankt""".split())
_GREETINGS = frozenset("""bonjour bonsoir salut coucou hola buenos buenas días dias tardes noches hallo guten tag
    morgen abend servus ciao buongiorno buonasera salve olá ola oi bom dia boa tarde hoi goedemorgen
    qué que tal ça va comment allez vous tu come stai como está estás está wie geht's gehts es""".split())
_GREETINGS_EN = frozenset("""hi hello hey heya hiya howdy yo greetings morning afternoon evening sup up
    how how's hows what's whats bye goodbye cya""".split())
_ALSO = frozenset("4 u you so much lot there all everyone guys folks mate".split())
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+")


def phrase(kind: str, language: str | None, **values: str) -> str:
    """The program's `kind` of reply in `language` (English when unknown)."""
    return PHRASES.get(language or "en", PHRASES["en"])[kind].format(**values)


def courtesy(message: str) -> Courtesy | None:
    """Whether `message` is only a greeting or only thanks (see the module's definition)."""
    words = [word.lower() for word in _WORD.findall(message)]
    known = SMALL_TALK_WORDS | FUNCTION_WORDS | _THANKS | _GREETINGS | _ALSO
    if not words or not all(word in known for word in words):
        return None
    if not any(word in _THANKS or word in _GREETINGS or word in _GREETINGS_EN for word in words):
        return None
    return "thanks" if any(word in _THANKS for word in words) else "greeting"
