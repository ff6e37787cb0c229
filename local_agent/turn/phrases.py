"""The few replies the program says itself, in the languages reading/language.py tells apart:
a greeting back, "you're welcome", thanks for something told, "nice to meet you, X", a goodbye.
Which messages are a courtesy or a goodbye is read in reading/courtesy.py.
"""

from __future__ import annotations

import re

from ..reading.courtesy import Courtesy, Goodbye
from ..reading.words import GREETINGS, GREETINGS_EN, words

PHRASES: dict[str, dict[str, str]] = {
    "en": {"greeting": "Hello! How can I help you today?", "thanks": "You're welcome!",
           "told": "Thanks for telling me.", "meet": "Nice to meet you, {name}!",
           "farewell": "Bye for now, talk soon!", "goodnight": "Good night, sleep well!"},
    "fr": {"greeting": "Bonjour ! Comment puis-je vous aider ?", "thanks": "Avec plaisir !",
           "told": "Merci de me l'avoir dit.", "meet": "Enchanté, {name} !",
           "farewell": "Au revoir, à bientôt !", "goodnight": "Bonne nuit, dors bien !"},
    "es": {"greeting": "¡Hola! ¿En qué puedo ayudarte?", "thanks": "¡De nada!",
           "told": "Gracias por contármelo.", "meet": "¡Encantado, {name}!",
           "farewell": "¡Adiós, hasta pronto!", "goodnight": "¡Buenas noches, que descanses!"},
    "pt": {"greeting": "Olá! Como posso ajudar?", "thanks": "De nada!",
           "told": "Obrigado por me contar.", "meet": "Prazer em conhecer, {name}!",
           "farewell": "Tchau, até logo!", "goodnight": "Boa noite, durma bem!"},
    "de": {"greeting": "Hallo! Wie kann ich helfen?", "thanks": "Gern geschehen!",
           "told": "Danke, dass du mir das erzählst.", "meet": "Freut mich, {name}!",
           "farewell": "Tschüss, bis bald!", "goodnight": "Gute Nacht, schlaf gut!"},
    "it": {"greeting": "Ciao! Come posso aiutarti?", "thanks": "Prego!",
           "told": "Grazie per avermelo detto.", "meet": "Piacere, {name}!",
           "farewell": "Ciao, a presto!", "goodnight": "Buonanotte, dormi bene!"},
    "nl": {"greeting": "Hallo! Hoe kan ik helpen?", "thanks": "Graag gedaan!",
           "told": "Bedankt dat je het me vertelt.", "meet": "Leuk je te ontmoeten, {name}!",
           "farewell": "Doei, tot snel!", "goodnight": "Welterusten, slaap lekker!"},
}
def phrase(kind: str, language: str | None, **values: str) -> str:
    """The program's `kind` of reply in `language` (English when unknown)."""
    return PHRASES.get(language or "en", PHRASES["en"])[kind].format(**values)


def farewell_reply(goodbye: Goodbye, language: str | None) -> str:
    """The goodbye said back, in the language of its leave-taking words (else the message's
    `language`), after "you're welcome" when the message thanks."""
    language = goodbye.language or language
    said = phrase(goodbye.kind, language)
    return f"{phrase('thanks', language)} {said}" if goodbye.thanks else said


# Words that greet back in a reply (not "how", "up" or "bye", which only help a greeting along).
_GREETING_BACK = GREETINGS | GREETINGS_EN - {"how", "how's", "hows", "what's", "whats", "up", "bye", "goodbye", "cya"}
_WELCOME = re.compile(r"\b(?:welcome|pleasure|anytime|any time|no problem|no worries|glad|happy to|de nada|avec plaisir"
                      r"|gern|prego|graag|de rien|por nada|disponha)\b", re.IGNORECASE)


def answers_courtesy(reply: str, kind: Courtesy) -> bool:
    """Whether `reply` greets back (a greeting word of any language here) or takes thanks
    ("you're welcome", "my pleasure", "no problem", "de nada")."""
    if kind == "thanks":
        return bool(_WELCOME.search(reply))
    return bool(set(words(reply)) & _GREETING_BACK)
