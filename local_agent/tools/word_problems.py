"""Two everyday word problems whose arithmetic the wording fixes, read by rule:

- a quantity at a unit price, asked for the total: "I bought 7 tickets at 3.56 dollars each.
  How much did I pay in total?" is 7 * 3.56;
- an amount shared by a number of people, asked for each one's part: "Dinner cost 374 dollars
  and we are 4 people. How much does each of us pay?" is 374 / 4.

A rule answers only a question that holds exactly these two numbers; anything else (more
numbers, other wording) is left to the model, which writes the expression itself."""

from __future__ import annotations

import re

_NUMBER = r"(\d+(?:\.\d+)?)"
_MONEY = rf"(?:[$€£]\s?)?{_NUMBER}(?:\s?(?:dollars?|euros?|pounds?|bucks|usd|eur|gbp|[$€£]))?"
_ALL_NUMBERS = re.compile(r"\d+(?:\.\d+)?")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_QUESTION = re.compile(r"\?\s*$")

_UNIT_PRICE = re.compile(
    rf"\b{_NUMBER}\s+(?:[a-z-]+\s+){{1,3}}(?:at|for)\s+{_MONEY}\s+(?:each|apiece|a piece|per\s+(?:piece|item|unit))\b",
    re.I)
_TOTAL = re.compile(r"\b(?:in total|total|altogether|all together|how much did (?:i|we) (?:pay|spend)|"
                    r"what did (?:i|we) (?:pay|spend))\b", re.I)

_SHARED = re.compile(
    rf"\b(?:cost|costs|came to|comes to|was|is|paid|spent)\s+{_MONEY}\b.*?"
    rf"\b(?:we are|we're|there are|there were|we were|split (?:between|among)|shared (?:between|among)|"
    rf"between|among)\s+{_NUMBER}\s+(?:people|persons|friends|of us|guests)\b", re.I | re.S)
_SPLIT = re.compile(rf"\b(?:split|share|divide)\s+{_MONEY}\s+(?:between|among|by)\s+{_NUMBER}\s+"
                    r"(?:people|persons|friends|of us|guests|ways)\b", re.I)
_EACH = re.compile(r"\b(?:each|per (?:person|head))\b", re.I)


def word_problem(message: str) -> str | None:
    """The calculator expression of a message that is one of the two word problems."""
    text = _THOUSANDS.sub("", message.strip())
    if not _QUESTION.search(text) or len(_ALL_NUMBERS.findall(text)) != 2:
        return None
    if (match := _UNIT_PRICE.search(text)) and _TOTAL.search(text):
        return f"{match[1]} * {match[2]}"
    if (match := _SHARED.search(text) or _SPLIT.search(text)) and _EACH.search(text[match.end():]):
        return f"{match[1]} / {match[2]}"
    return None
