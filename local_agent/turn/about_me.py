"""Questions about the assistant itself, which the program answers: a 135M model asked its name
gives one ("I'm Karen"), or the user's, and asked whether it is a person says it is.

Definition (the patterns are English; its name is also asked in six other languages, answered
in each, `_NAME_ELSEWHERE`): a question asks
- its `name`: "what's your name?", "what should I call you?", "do you have a name?", "who am I
  talking to?";
- its `nature`: "who are you?", "what are you exactly?" (the whole question), "are you a real
  person / human / a bot / an AI / a boy or a girl?";
- its `maker`: "who made you?", "what model are you?", "what are you running on?";
- its `feelings`: "do you have feelings?", "can you feel?", "do you ever get tired/lonely?".
The answer is the program's: an AI assistant on the user's own computer, with no name of its own
and no feelings, that remembers what the user tells it.
"""

from __future__ import annotations

import re
from typing import Literal

Topic = Literal["name", "nature", "maker", "feelings"]
_YOU = r"(?:you|u|ya)"
_WHAT_IS = r"(?:what|wat|wot|whta)(?:'s|\s+is|s)?"
# What the assistant may be asked to be: "are you a bot / a real person / human?"
_BEING = (r"(?:person|human(?:\s+being)?|people|robot|bot|ai|a\.i\.|machine|computer|program|chatbot|boy|girl"
          r"|man|woman|guy|alive|sentient|conscious)")
_TOPICS: tuple[tuple[Topic, re.Pattern[str]], ...] = (
    ("name", re.compile(
        rf"\b{_WHAT_IS}\s+(?:your|ur|yr|ya)\s+name\b(?!\s+(?:for|of)\b)"
        rf"|\bwhat (?:should|do|can|shall|may) I call {_YOU}\b|\bwhat (?:are|r) {_YOU} called\b"
        rf"|\bwhat do (?:people|they|others) call {_YOU}\b"
        rf"|\b(?:do|have) {_YOU} (?:\w+ ){{0,2}}?(?:have|got) a name\b|\b{_YOU} got a name\b"
        rf"|\bwho am I (?:talking|speaking|chatting) (?:to|with)\b",
        re.IGNORECASE)),
    ("maker", re.compile(
        rf"\bwho (?:made|built|created|programmed|trained|designed|developed|wrote|owns) {_YOU}\b"
        rf"|\bwhat (?:model|llm|ai|language model) (?:are|r) {_YOU}\b|\bwhat (?:are|r) {_YOU} (?:running|based) on\b",
        re.IGNORECASE)),
    ("feelings", re.compile(
        rf"\b(?:do|can) {_YOU} (?:ever )?(?:have |get |really )?(?:feel|feelings|emotions|dream)\b"
        rf"|\bdo {_YOU} (?:ever )?get (?:tired|lonely|bored|sad|angry)\b",
        re.IGNORECASE)),
    ("nature", re.compile(
        rf"^(?:\W*(?:so|and|but|ok|okay|hey|well|wait|um|hmm|sorry)\b)*\W*(?:who|what)\s+(?:are|r)\s+{_YOU}"
        rf"(?:\s+(?:anyway|exactly|really|actually|then))?\W*$"
        rf"|\b(?:are|r)\s+{_YOU}\s+(?:really\s+|actually\s+|even\s+|just\s+)?(?:an?\s+)?"
        rf"(?:real\s+|actual\s+|live\s+)?{_BEING}\b"
        rf"|^\W*{_YOU}\s+(?:really\s+|actually\s+)?(?:an?\s+)?(?:real\s+)?{_BEING}(?:\s+or\b.*)?\W*$"
        rf"|\b(?:am I|is this)\s+(?:talking|speaking|chatting)\s+(?:to|with)\s+(?:an?\s+)?(?:real\s+)?{_BEING}\b"
        rf"|^\W*(?:is this|this is)\s+(?:an?\s+)?{_BEING}\W*$|\b(?:are|r)\s+{_YOU}\s+(?:even\s+|actually\s+)?real\W*$",
        re.IGNORECASE)),
)
ANSWERS: dict[Topic, str] = {
    "name": "I don't have a name of my own: I'm an AI assistant that runs on your computer and remembers what "
            "you tell me. Call me whatever you like.",
    "nature": "I'm an AI assistant, not a person: a small language model running on your own computer, and I "
              "remember what you tell me.",
    "maker": "I'm local-agent: an AI assistant that runs a small open language model on your own computer. "
             "Nothing you tell me leaves this machine.",
    "feelings": "I'm an AI assistant, so I don't have feelings the way you do, but I'm here to listen.",
}


# Its name asked in the other languages grounding/language.py tells apart, with the answer in each.
_NAME_ELSEWHERE: dict[str, tuple[re.Pattern[str], str]] = {
    code: (re.compile(pattern, re.IGNORECASE), answer) for code, pattern, answer in (
        ("es", r"\bc[oó]mo te llamas\b|\bcu[aá]l es tu nombre\b|\bc[oó]mo se llama usted\b",
         "No tengo nombre propio: soy un asistente de IA que funciona en tu ordenador y recuerda lo que me cuentas."),
        ("fr", (r"\bcomment (?:tu t'appelles|t'appelles[- ]tu|vous appelez[- ]vous|vous vous appelez)\b"
                r"|\bquel est (?:ton|votre) nom\b"),
         ("Je n'ai pas de nom : je suis un assistant d'IA qui fonctionne sur votre ordinateur et se souvient de "
          "ce que vous me dites.")),
        ("de", r"\bwie hei(?:ß|ss)t du\b|\bwie hei(?:ß|ss)en sie\b|\bwie ist dein name\b",
         ("Ich habe keinen eigenen Namen: Ich bin ein KI-Assistent, der auf deinem Computer läuft und sich merkt, "
          "was du mir erzählst.")),
        ("it", r"\bcome ti chiami\b|\bqual è il tuo nome\b",
         "Non ho un nome: sono un assistente IA che funziona sul tuo computer e ricorda quello che mi dici."),
        ("pt", r"\bcomo (?:você se chama|te chamas|se chama)\b|\bqual (?:é )?o seu nome\b",
         ("Não tenho nome próprio: sou um assistente de IA que funciona no seu computador e lembra o que você "
          "me conta.")),
        ("nl", r"\bhoe heet (?:je|jij|u)\b|\bwat is je naam\b",
         "Ik heb geen eigen naam: ik ben een AI-assistent die op je computer draait en onthoudt wat je me vertelt."),
    )
}


def about_me(message: str) -> Topic | None:
    """What `message` asks about the assistant itself, or None (see the module's definition)."""
    for sentence in re.split(r"(?<=[.!?])\s+", message.strip()):
        for topic, pattern in _TOPICS:
            if pattern.search(sentence):
                return topic
    return None


def about_me_reply(message: str) -> str | None:
    """The program's answer to a question about the assistant itself, or None; its name asked
    in Spanish, French, German, Italian, Portuguese or Dutch is answered in that language."""
    for pattern, answer in _NAME_ELSEWHERE.values():
        if pattern.search(message):
            return answer
    topic = about_me(message)
    return ANSWERS[topic] if topic else None
