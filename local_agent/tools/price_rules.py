"""Rules for prices, read into a calculator expression where the reading is exact:

- the price of one ("price per item: 12 pens for $7.80?", "12 pens for 7.80, how much is
  each?"): the price over the count; not "12 pens for 7.80 each" (a price each);
- the price of an amount in another unit of one measure ("1 kg of coffee is $28, how much for
  350 grams?"): the price times the amount, converted, over the first amount (units.py);
- groups at a price each, compared or summed ("How much more do 5 boxes at $14 each cost than
  3 boxes at $19 each?": 5 * 14 - 3 * 19; "4 sandwiches at 6.50 each and 3 drinks at 2.25 each,
  what's the total?": 4 * 6.50 + 3 * 2.25).

They read text as question_text.normalize leaves it (currency signs dropped, number words in
digits), and arithmetic_rules runs them only on a question or a request; a number of the
message the reading leaves out is said (turn/tool_turn.py `numbers_left_out`)."""

from __future__ import annotations

import re

from . import units

N = r"(\d+(?:\.\d+)?)"
_MONEY = r"(?:\s+(?:dollars?|euros?|pounds?|bucks|usd|eur|gbp))?"
_EACH_AFTER = re.compile(r"^\s*(?:[a-z]+\s+)?(?:each|apiece|a\s+piece|per\s+\w+)\b")
# "12 pens for 7.80": a count of things and the price of them all.
_MONEY_WORDS = frozenset({"dollar", "dollars", "euro", "euros", "pound", "pounds", "buck", "bucks", "usd", "eur", "gbp",
                          "cent", "cents", "quid"})
_FOR = re.compile(rf"(?<![\d.])(?P<count>\d+)\s+(?P<things>[a-z]+(?:\s+[a-z]+)?)\s+"
                  rf"(?:for|cost|costs|at|was|were|is|are)\s+(?:a\s+total\s+of\s+)?(?P<price>\d+(?:\.\d+)?){_MONEY}")
_ONE_ASKED = (r"\b(?:per|each|a|one|1)\s+(?:item|piece|unit|one|{thing})\b|\bapiece\b|\bunit\s+price\b|"
              r"\bhow\s+much\s+(?:is|was|does|did|do|are|were)\s+(?:each|one|1)\b|\b(?:price|cost)\s+(?:of\s+)?"
              r"(?:per|each|one|1)\b")
_AMOUNT_PRICE = re.compile(rf"(?<![\d.])(?P<q1>\d+(?:\.\d+)?)\s*(?P<u1>{units.UNIT})\s+(?:of\s+(?:[a-z]+\s+){{1,3}})?"
                           rf"(?:is|are|costs?|for|=|at|was)\s+(?P<price>\d+(?:\.\d+)?){_MONEY}")
_AMOUNT_ASKED = re.compile(rf"\bhow\s+much\s+(?:\w+\s+){{0,3}}?(?P<q2>\d+(?:\.\d+)?)\s*(?P<u2>{units.UNIT})")
_GROUP = re.compile(rf"(?<![\d.])(?P<count>\d+)\s+(?:[a-z-]+\s+){{0,3}}?(?:at|for)\s+(?P<price>\d+(?:\.\d+)?)"
                    rf"{_MONEY}\s+(?:each|apiece|a\s+piece)\b")
_MORE = re.compile(r"\bhow\s+much\s+more\b")
_TOTAL = re.compile(r"\b(?:total|altogether|in\s+all|all\s+together|how\s+much\s+(?:do|did|does|will|would)\s+"
                    r"(?:i|we|you|they|he|she)\s+(?:pay|spend|owe))\b")


def _numbers(text: str) -> list[str]:
    return re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\d.]*\d)", text)


def price_of_one(text: str) -> str | None:
    """"12 pens for 7.80, price per item?", "if 5 notebooks cost 12.50, how much does one cost?",
    "a pack of 6 yogurts is 4.20, what is that per yogurt?": the price over the count."""
    found = _FOR.search(text)
    if found is None or _EACH_AFTER.search(text[found.end():]):
        return None
    thing = re.escape(found["things"].split()[-1].rstrip("s"))
    asked = re.search(_ONE_ASKED.format(thing=rf"{thing}s?"), text[found.end():] + " . " + text[:found.start()])
    if asked is None or float(found["count"]) == 0 or _MONEY_WORDS & set(found["things"].split()):
        return None  # "36 euros for 4 tickets" is a price for a count, the other way round
    if len(_numbers(text)) != 2 + bool(re.search(r"\d", asked.group())):  # "how much does 1 cost": no number of its own
        return None
    return f"{found['price']} / {found['count']}"


def price_of_amount(text: str) -> str | None:
    """"1 kg of coffee beans is 28, how much for 350 grams": 28 * (350 g in kg) / 1."""
    priced, asked = _AMOUNT_PRICE.search(text), _AMOUNT_ASKED.search(text)
    if priced is None or asked is None or asked.start() < priced.end() or len(_numbers(text)) != 3:
        return None
    source, target = units.unit_name(asked["u2"]), units.unit_name(priced["u1"])
    if source is None or target is None or float(priced["q1"]) == 0:
        return None
    converted = asked["q2"] if source == target else units.conversion(asked["q2"], source, target)
    if converted is None:
        return None
    return f"{priced['price']} * ({converted}) / {priced['q1']}"


def priced_groups(text: str) -> str | None:
    """Groups at a price each: "how much more do 5 at 14 each cost than 3 at 19 each" (the
    first less the second), or their total."""
    groups = list(_GROUP.finditer(text))
    if len(groups) < 2:
        return None
    products = [f"{group['count']} * {group['price']}" for group in groups]
    if _MORE.search(text) and len(groups) == 2 and re.search(r"\bthan\b", text[groups[0].end():groups[1].start()]):
        return f"{products[0]} - {products[1]}"
    if _TOTAL.search(text) and not _MORE.search(text):
        return " + ".join(products)
    return None


RULES = (price_of_one, price_of_amount, priced_groups)
