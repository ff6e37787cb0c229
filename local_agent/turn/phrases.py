"""The few replies the program says itself, in the languages grounding/language.py tells apart:
a greeting back, "you're welcome", thanks for something told, "nice to meet you, X", a goodbye,
and the courtesy a message is ("hola" is a greeting, "merci" thanks, "bonne nuit" a goodbye).

Definition of a courtesy message: every word of it is a greeting or thanks word of one of these
languages (or a word with no content, memory/index/small_talk.py), and at least one is; it is
thanks when it has a thanks word, else a greeting. "hi", "Bonjour !", "¡Muchas gracias!",
"thx 4 that", "how's it going?"; not "one more", "ok" or "yes", which greet nobody.

Definition of a farewell: the message, not a question, ends with a goodbye: in the run of its
last sentences or clauses whose every word is a courtesy word, a word with no content or a
leave-taking word ("ok gtg ttyl", "night night", "catch you later", "Bye for now.", "buenas
noches", "tschüss", "Good night, and thank you."), one holds one of `_GOODBYES` ("bye", "cya",
"good night", "see you", "talk to you tomorrow", "off to bed"; "later" only after see, talk,
catch or speak, or alone). It is a good night when it speaks of night, sleep or bed. Earlier
sentences may say anything ("Thanks, I feel a bit better. Bye for now."): the goodbye is the
reply, after "you're welcome" when the message thanks.
"""

from __future__ import annotations

import re
from typing import Literal

from ..grounding.language import language_of
from ..memory.distill.words import FUNCTION_WORDS
from ..memory.index.small_talk import SMALL_TALK_WORDS

Courtesy = Literal["greeting", "thanks"]
Farewell = Literal["farewell", "goodnight"]
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
_THANKS = frozenset("""thanks thank thx ty cheers merci beaucoup gracias muchas mil danke schön schon vielen dank
    obrigado obrigada muito grazie mille bedankt""".split())
_GREETINGS = frozenset("""bonjour bonsoir salut coucou hola buenos buenas días dias tardes noches hallo guten tag
    morgen abend servus ciao buongiorno buonasera salve olá ola oi bom dia boa tarde hoi goedemorgen
    qué que tal ça va comment allez vous tu come stai como está estás está wie geht's gehts es""".split())
_GREETINGS_EN = frozenset("""hi hello hey heya hiya howdy yo greetings morning afternoon evening sup up
    how how's hows what's whats bye goodbye cya""".split())
_ALSO = frozenset("4 u you so much lot there all everyone guys folks mate".split())
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+")
# Leave-taking: the words a goodbye may hold besides courtesy words, and each language's
# goodbyes, which also tell the language of one too short for language_of ("buenas noches").
_LEAVING_VOCABULARY = frozenset("""
    bye byebye goodbye cya ttyl gtg g2g laters later night goodnight nite gn farewell see ya you soon tomorrow
    talk catch speak take care sweet dreams sleep bed off heading head going gotta got go must have need to now
    for then peace out again aight ight welp signing logging
    adiós adios hasta luego pronto mañana buenas noches chao chau que descansa descanses
    au à revoir bientôt bonne nuit dors bien tschüss tschüs wiedersehen gute nacht bis bald später schlaf
    arrivederci buonanotte a presto dormi bene tchau até logo amanhã boa noite durma bem
    doei ziens tot welterusten slaap lekker""".split())
_COURTESY_WORDS = SMALL_TALK_WORDS | FUNCTION_WORDS | _THANKS | _GREETINGS | _ALSO
_LEAVING_WORDS = _COURTESY_WORDS | _LEAVING_VOCABULARY  # what a goodbye's clauses may hold
_GOODBYES: dict[str, re.Pattern[str]] = {code: re.compile(rf"\b(?:{pattern})\b", re.IGNORECASE) for code, pattern in {
    "es": r"adi[oó]s|hasta (?:luego|pronto|mañana)|chao|chau|buenas noches",
    "fr": r"au revoir|[aà] bient[oô]t|bonne nuit",
    "de": r"tsch[uü]ss?|auf wiedersehen|gute nacht|bis (?:bald|später|morgen)",
    "it": r"arrivederci|buonanotte|a presto",
    "pt": r"tchau|at[eé] (?:logo|amanh[aã])|boa noite",
    "nl": r"doei|tot ziens|welterusten",
    "en": r"bye|byebye|goodbye|cya|ttyl|gtg|g2g|laters|good ?night|night|nite|gn|farewell|see (?:ya|you)|take care"
          r"|sweet dreams|(?:talk|speak) (?:to you )?(?:soon|tomorrow)"
          r"|(?:see|talk|catch|speak)(?:\s+\w+){0,3}\s+later|^later"
          r"|(?:off|going|heading|head) to (?:bed|sleep)|(?:gotta|got to|must|have to|need to) go|peace out",
}.items()}
_NIGHT = re.compile(r"\b(?:good ?night|night|nite|gn|sweet dreams|bed|sleep|noches|nuit|nacht|buonanotte|noite|"
                    r"welterusten)\b", re.IGNORECASE)
_CLAUSES = re.compile(r"[.!,;]+\s*|\s+(?:and|but|so)\s+", re.IGNORECASE)


def phrase(kind: str, language: str | None, **values: str) -> str:
    """The program's `kind` of reply in `language` (English when unknown)."""
    return PHRASES.get(language or "en", PHRASES["en"])[kind].format(**values)


def courtesy(message: str) -> Courtesy | None:
    """Whether `message` is only a greeting or only thanks (see the module's definition)."""
    words = [word.lower() for word in _WORD.findall(message)]
    if not words or not all(word in _COURTESY_WORDS for word in words):
        return None
    if not any(word in _THANKS or word in _GREETINGS or word in _GREETINGS_EN for word in words):
        return None
    return "thanks" if any(word in _THANKS for word in words) else "greeting"


def farewell(message: str) -> Farewell | None:
    """Whether `message` ends with a goodbye, and what kind (see the module's definition)."""
    if "?" in message:
        return None
    goodbye = next((clause for clause in _ending(message) if _goodbye_language(clause)), None)
    if goodbye is None:
        return None
    return "goodnight" if _NIGHT.search(goodbye) else "farewell"


def _ending(message: str) -> list[str]:
    """The message's last clauses whose every word is a courtesy or leave-taking word."""
    ending: list[str] = []
    for clause in reversed([clause for clause in _CLAUSES.split(message) if _WORD.search(clause)]):
        if not all(word.lower() in _LEAVING_WORDS for word in _WORD.findall(clause)):
            break
        ending.append(clause.strip())
    return ending[::-1]


def farewell_reply(message: str, kind: Farewell) -> str:
    """The goodbye said back, in the language of the message's leave-taking words (else the
    message's), after "you're welcome" when the message thanks."""
    words = [word.lower() for word in _WORD.findall(message)]
    language = next(filter(None, map(_goodbye_language, _ending(message))), None)
    language = language if language != "en" else language_of(message)
    goodbye = phrase(kind, language)
    return f"{phrase('thanks', language)} {goodbye}" if any(word in _THANKS for word in words) else goodbye


def _goodbye_language(text: str) -> str | None:
    """The language of the first goodbye in `text` (`_GOODBYES`), or None when it has none."""
    return next((code for code, pattern in _GOODBYES.items() if pattern.search(text)), None)


# Words that greet back in a reply (not "how", "up" or "bye", which only help a greeting along).
_GREETING_BACK = _GREETINGS | _GREETINGS_EN - {"how", "how's", "hows", "what's", "whats", "up", "bye", "goodbye", "cya"}
_WELCOME = re.compile(r"\b(?:welcome|pleasure|anytime|any time|no problem|no worries|glad|happy to|de nada|avec plaisir"
                      r"|gern|prego|graag|de rien|por nada|disponha)\b", re.IGNORECASE)


def answers_courtesy(reply: str, kind: Courtesy) -> bool:
    """Whether `reply` greets back (a greeting word of any language here) or takes thanks
    ("you're welcome", "my pleasure", "no problem", "de nada")."""
    if kind == "thanks":
        return bool(_WELCOME.search(reply))
    return bool({word.lower() for word in _WORD.findall(reply)} & _GREETING_BACK)
