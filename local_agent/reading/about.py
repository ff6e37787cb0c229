"""Questions about the assistant itself: its name, what it is, who made it, its feelings.

Definition (the patterns are English; its name is also asked in six other languages,
`_NAME_ELSEWHERE`): a question asks
- its `name`: "what's your name?", "what should I call you?", "do you have a name?", "who am I
  talking to?";
- its `nature`: "who are you?", "what are you exactly?" (the whole question), "are you a real
  person / human / a bot / an AI / a boy or a girl?";
- its `maker`: "who made you?", "what model are you?", "what are you running on?";
- its `feelings`: "do you have feelings?", "can you feel?", "do you ever get tired/lonely?".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
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
# Its name asked in the other languages reading/language.py tells apart.
_NAME_ELSEWHERE: dict[str, re.Pattern[str]] = {code: re.compile(pattern, re.IGNORECASE) for code, pattern in (
    ("es", r"\bc[oó]mo te llamas\b|\bcu[aá]l es tu nombre\b|\bc[oó]mo se llama usted\b"),
    ("fr", (r"\bcomment (?:tu t'appelles|t'appelles[- ]tu|vous appelez[- ]vous|vous vous appelez)\b"
            r"|\bquel est (?:ton|votre) nom\b")),
    ("de", r"\bwie hei(?:ß|ss)t du\b|\bwie hei(?:ß|ss)en sie\b|\bwie ist dein name\b"),
    ("it", r"\bcome ti chiami\b|\bqual è il tuo nome\b"),
    ("pt", r"\bcomo (?:você se chama|te chamas|se chama)\b|\bqual (?:é )?o seu nome\b"),
    ("nl", r"\bhoe heet (?:je|jij|u)\b|\bwat is je naam\b"),
)}


@dataclass(frozen=True)
class AboutAssistant:
    """What a message asks about the assistant, in which language when not English (its name
    asked in another language), and the span of the asking words."""

    topic: Topic
    language: str | None
    span: tuple[int, int]


def about_me(message: str) -> Topic | None:
    """What `message` asks about the assistant itself, or None (see the module's definition)."""
    found = _about_english(message)
    return found.topic if found else None


def asked_about_assistant(message: str) -> AboutAssistant | None:
    """What `message` asks about the assistant: its name in another language first, else an
    English question (see the module's definition); None when it asks nothing of it."""
    for code, pattern in _NAME_ELSEWHERE.items():
        match = pattern.search(message)
        if match:
            return AboutAssistant("name", code, match.span())
    return _about_english(message)


def _about_english(message: str) -> AboutAssistant | None:
    offset = len(message) - len(message.lstrip())
    for sentence in re.split(r"(?<=[.!?])\s+", message.strip()):
        start = message.find(sentence, offset)
        for topic, pattern in _TOPICS:
            match = pattern.search(sentence)
            if match:
                return AboutAssistant(topic, None, (start + match.start(), start + match.end()))
        offset = start + len(sentence)
    return None


