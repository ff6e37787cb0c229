"""Rules that read an arithmetic question into a calculator expression, for the forms people
use: a written calculation ("what's 17 times 23", "sqrt 1764", "2 to the 10th power"),
percentages (of, tips, discounts, increases, one after another, "what percent is A of B"),
"add A, B and C", averages, splitting a bill (with or without a tip), a count at a price each,
"subtract A from B" and "divide A by B", a percentage change ("went from 50 to 65"); and
through quantity_rules, time units, rates over a span and multiples ("double 475").

The message is read as question_text.normalize leaves it (number words in digits,
misspellings of the rules' words corrected), so "whats the sqaure root of two hundred
twenty-five" reads like "what is the square root of 225". A rule answers only a question or
request (a question mark, or words such as what, how much, calculate), or a message that is
nothing but a calculation ("17*23"); numbers outside the calculation it reads (irrelevant
context) are left out. These are the readings that are exact; a word problem ("I paid 36 euros
for 4 tickets. How much was each?") is read whole by reading/problems, which answers or says
it is unsure (the router's `problem` route). What neither reads is left to the model."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal

from ..reading.problems.asking import terse_ask, written_calculation
from ..reading.words import letter_words, word_set
from . import price_rules, quantity_rules
from .question_text import asks, decimal_text, normalize

N = r"(\d+(?:\.\d+)?)"
_COMPANY = word_set("company_nouns")
_OPENERS = (r"what|whats|what's|how|calculate|compute|evaluate|solve|work\s+out|tell\s+me|can\s+you|could\s+you|"
            r"add|sum|average|mean|split|divide|multiply|sqrt|square|cube|find|increase|decrease|reduce|take|"
            r"subtract|deduct|double|triple|halve|cut|convert|round|remainder")
_SPOKEN = [  # spoken operators, longest first
    (rf"\bsquare\s+root\s+of\s+{N}|\bsqrt\s*(?:of\s+)?\(?{N}\)?|√\s*{N}", lambda m: f"sqrt({m[1] or m[2] or m[3]})"),
    (rf"\bcube\s+root\s+of\s+{N}", lambda m: f"{m[1]} ** (1/3)"),
    (rf"\bto\s+the\s+{N}(?:st|nd|rd|th)?\s+power\b", lambda m: f"** {m[1]}"),
    (r"\bto\s+the\s+power\s+of\b|\braised\s+to(?:\s+the\s+power\s+of)?\b|\^", lambda m: "**"),
    (r"\bsquared\b", lambda m: "** 2"), (r"\bcubed\b", lambda m: "** 3"),
    (r"\bmultiplied\s+by\b|\btimes\b|(?<=\d)\s*[x×]\s*(?=\d)", lambda m: "*"),
    (r"\bdivided\s+by\b|(?<=\d)\s+over\s+(?=\d)|÷", lambda m: "/"),
    (r"\bplus\b", lambda m: "+"), (r"\bminus\b|(?<=\d)\s+less\s+(?=\d)|−", lambda m: "-"),
    (rf"{N}\s*(?:%|percent\b|per\s*cent\b)(\s+of\b)?", lambda m: f"({m[1]}/100)" + (" *" if m[2] else "")),
    (r"(?<=\))\s+of\b", lambda m: " *"),  # a quarter of 260: (1/4) of 260
    (rf"(?<=\d)\s+of\s+(?={N})", lambda m: " * "),  # 1/3 of 90
]
# A percentage alone is no calculation ("how do I get 10% better at chess", "tips to save 20%"),
# unless it is asked as another form ("20% as a decimal", "what is 5% in decimal").
_LONE_PERCENT = re.compile(r"\(\d+(?:\.\d+)?/100\)")
_AS_DECIMAL = re.compile(r"\b(?:as|in|to|into)\s+(?:a\s+)?(?:decimal|fraction)s?\b")
_SPAN = re.compile(r"(?:sqrt\()?(?:-\s*(?=[\d(]))?[\d(][\d\s.+\-*/()]*[\d)]")  # "-5 + 3": its sign kept
_OPERATION = re.compile(r"[\d)]\s*(?:\*\*|[-+*/])\s*-?\s*[\d(s]|^sqrt\(")  # 10**-400 too
_PEOPLE = re.compile(r"(?:split|shared?|divided?)\s+(?:it\s+|that\s+|this\s+)?(?:evenly\s+|equally\s+)?"
                     r"(?:between|among|by|in)\s+"
                     rf"(?:the\s+)?{N}|{N}\s+(?:people|persons|friends|ways|of\s+us|guests|colleagues)\b|"
                     rf"(?:there\s+(?:is|are|'s)|we\s+are|we're)\s+{N}\b")
_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b")
_PRICE_QUESTION = re.compile(r"\b(?:how\s+much|how\s+many|what\s+(?:did|do|does|will|would|is|was)|what's|whats|"
                             r"pay|cost|spend|prices?)\b")
_RATE = re.compile(r"(?<=\d)\s+(?:a|an|per|each)\s+(day|week|month|year|hour|night|person|piece|item)\b")
_EACH = re.compile(r"\b(?:each|everybody|everyone|per\s+(?:person|head)|apiece|owe|split|share)\b")
_CHIPPED_IN = re.compile(rf"{N}\s+(?:[a-z]+\s+)?(?:each|apiece|a\s+head|per\s+(?:person|head))\b")
# A request that is nothing but a named calculation: "the mean of ten, twenty, thirty".
_NAMED_REQUEST = re.compile(r"^(?:the\s+)?(?:average|mean|avg|sum|total|product)\s+of\b")
_ONE_ASKED = re.compile(r"\b(?:per|each|one|1)\s+[a-z]+\s*\??\s*$|\b(?:each|apiece)\s*\??\s*$")
_TOTAL = re.compile(r"\b(?:in\s+total|total|altogether|all\s+together|in\s+all|including|with\s+(?:the\s+)?tip)\b")


def arithmetic(message: str) -> str | None:
    """The calculator expression of an arithmetic question, or None."""
    text = _DATE.sub(" a date ", normalize(message)).rstrip(" .!=")  # 2024-02-29 is no subtraction
    text = re.sub(r"\s+(?:equals?|equal\s+to|is\s+equal\s+to)\s*\??$", "", text)
    text = re.sub(r"(?<![\w.])\d+(?:\.\d+)?e[+-]?\d{1,4}\b", _plain_number, text)  # 1e5 is 100000, not 5
    # a bare calculation is read by _written; "..., % decrease" asks in a few words, "1/3 + 1/4 as
    # decimal" is a calculation written out with a few words beside it (reading/problems)
    asking = (asks(text, _OPENERS, terse_words=0) or terse_ask(text) or written_calculation(text)
              or _NAMED_REQUEST.match(text) is not None)
    if (terse := quantity_rules.terse_conversion(text)) is not None:
        return terse  # "minutes in 3.5 hours", "2 km in miles": nothing but a conversion
    if not asking and not _KNOWN.search(text) and (asked := quantity_rules.asked_conversion(text)) is not None:
        return asked  # "3 cups of flour how many ml is that": the conversion's own words ask
    if not re.search(r"\d", text):
        return quantity_rules.unit_conversion(text) if asking else None  # "how many hours in a week"
    for rule in RULES:
        if asking and (expression := rule(text)) is not None:
            return expression
    return _written(text, asking)


# A question word after a verb of knowing asks nothing ("I know how many ml are in a cup").
_KNOWN = re.compile(rf"\b(?:{'|'.join(sorted(word_set('knowing_verbs')))})\s+(?:how|what|when)\b")


def _plain_number(match: re.Match[str]) -> str:
    """A number in scientific notation written out ("2.5e3" -> 2500), or as a power of ten when
    that would take more digits than the calculator reads."""
    mantissa, exponent = match.group().split("e")
    if abs(int(exponent)) > 20:
        return f"({mantissa} * 10 ** {int(exponent)})"
    return decimal_text(Decimal(match.group()))


def numbers(text: str) -> list[str]:
    return re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\d.]*\d)", text)


def _list_after(keyword: str, text: str) -> list[str]:
    """The numbers listed right after `keyword` ("of 4, 8 and 15")."""
    match = re.search(rf"\b(?:{keyword})\b(?:\s+up\b)?(?:\s+(?:of|the|numbers|these|values)\b)*\s*:?\s*"
                      rf"((?:{N}(?:\s*,\s*|\s*,?\s+and\s+|\s+|\s*\+\s*)?)+)", text)
    return numbers(match[1]) if match else []


_PERCENT = re.compile(rf"{N}\s*(?:%|percent\b|per\s*cent\b)")
# The question asks for the amount before a percentage change ("$40 after a 20% discount, what was the
# original price?", "price before tax?"): the amount given is the changed one.
_ASKS_BEFORE = re.compile(r"\b(?:original(?:ly)?|before|regular|full\s+price|used\s+to|previous(?:ly)?|initial(?:ly)?|"
                          r"at\s+first|(?:the|my|our|its|their)\s+old|"
                          r"pre-?(?:tax|discount|sale)|without\s+(?:the\s+)?(?:tax|discount|tip))\b")
_OFF = r"off|discount|discounted|sale|cheaper|reduced?|decreased?|less|down|drop(?:s|ped)?|fell|falls?|lower(?:ed)?|cut"
_ON = r"increased?|raised?|more|plus|added|markup|tax|vat|interest|up|rose|rises?|grew|grows?|higher|tip|gratuity"


def _chained_percents(text: str) -> str | None:
    """One amount with two or more percentages taken in turn ("$80, 25% off, then 8% sales tax
    on the discounted price"): each one off or on top, by the words right after it; else no
    reading (a percentage with no direction word is not guessed)."""
    percents = list(_PERCENT.finditer(text))
    if len(percents) < 2:
        return None
    rest = _PERCENT.sub(" ", text)
    if len(amounts := numbers(rest)) != 1:
        return None
    factors = []
    for percent in percents:  # a sign right before it ("minus 15%"), else the first direction word after it
        before = _SIGN_BEFORE.search(text[max(0, percent.start() - 12):percent.start()])
        after = re.split(r"[\d,;]", text[percent.end():percent.end() + 30])[0]  # its own clause: not the next's "plus"
        word = before or re.search(rf"\b(?:(?P<off>{_OFF})|{_ON})\b", after)
        if word is None:
            return None
        factors.append(f"(1 {'-' if word['off'] else '+'} {percent[1]} / 100)")
    return " * ".join([amounts[0], *factors])


_SIGN_BEFORE = re.compile(r"[\d%]\s*(?:(?P<off>minus|less|-)|plus|\+)\s*$")  # "1200 minus 15%", not "off all plus 5%"


def _percent_forms(text: str) -> str | None:
    percent = _PERCENT.search(text)
    if percent is None or len(_PERCENT.findall(text)) > 1:
        return None
    share, rest = percent[1], text[:percent.start()] + " " + text[percent.end():]
    people = _PEOPLE.search(rest)
    count = next((group for group in people.groups() if group), None) if people else None
    amounts = [n for n in numbers(rest) if n != count]
    if not amounts:
        return None
    amount = amounts[-1] if re.search(rf"{N}\s*(?:%|percent)\s+of\s", text) else amounts[0]
    if re.search(r"\btip\b|\bgratuity\b|\bservice\b", text):
        if count:
            return f"{amount} * (1 + {share} / 100) / {_with_me(rest, count)}"
        return f"{amount} * (1 + {share} / 100)" if _TOTAL.search(text) else f"{share} / 100 * {amount}"
    before = _ASKS_BEFORE.search(re.split(r"[.!;,]\s+", text.rstrip(" ?.!"))[-1])  # the amount before the change
    if re.search(r"\b(?:off|discount|discounted|sale|cheaper|reduced?|decreased?|less|down|drop(?:s|ped)?|fell|"
                 r"falls?|lower(?:ed)?|cut)\b", text):
        return f"{amount} / (1 - {share} / 100)" if before else f"{amount} * (1 - {share} / 100)"
    if re.search(r"\b(?:increased?|raised?|more|plus|added|markup|tax|vat|interest|up|rose|rises?|grew|grows?|"
                 r"higher|including|incl)\b", text) and \
            not re.search(r"\bof\b", text[percent.end():percent.end() + 4]):
        return f"{amount} / (1 + {share} / 100)" if before else f"{amount} * (1 + {share} / 100)"
    return None  # "P% of N" is written arithmetic


def _what_percent(text: str) -> str | None:
    match = re.search(rf"what\s+(?:percent(?:age)?|%)\s+(?:of\s+{N}\s+is\s+{N}|is\s+{N}\s+of\s+{N})", text)
    if match is None:
        return None
    whole, part = (match[1], match[2]) if match[1] else (match[4], match[3])
    return f"{part} / {whole} * 100"


# One amount changed into another: "from 50 to 65", "1450 -> 1595", "was 80 now 60".
_CHANGE = re.compile(rf"\bfrom\s+{N}\s+to\s+{N}\b|(?<![\d.]){N}\s*(?:->|=>|→)\s*{N}(?![\d.])|"
                     rf"\bwas\s+{N}\s*,?\s+(?:and\s+)?(?:is\s+|it's\s+)?now\s+(?:it's\s+|it\s+is\s+|is\s+)?{N}\b")


def _percent_change(text: str) -> str | None:
    """The change from one amount to another in percent ("went from 50 to 65: by what percent?",
    "rent went 1450 -> 1595, % increase?", "price was 80 now 60, % decrease"), a fall as a
    positive decrease when the question asks for one."""
    change = _CHANGE.search(text)
    if change and re.match(r"\s*(?:%|per\s*cent\b|percent\b)", text[change.end():]):
        return None  # "was 80, now 20% off": a percentage, not the new amount
    asked = change and any(m[1] is None for m in re.finditer(r"(\d\s*)?(?:\bpercent(?:age)?\b|%)", text[change.end():]))
    if change is None or not asked:  # "10% of 50" after it asks for no change in percent
        return None
    old, new = (value for value in change.groups() if value is not None)
    if float(old) == 0:
        return None
    if re.search(rf"\b(?:{_OFF})\b", text[change.end():]):  # "what's the percentage decrease?": the fall
        return f"({old} - {new}) / {old} * 100"
    return f"({new} - {old}) / {old} * 100"


# Interest compounded n times a year: the times a year of each word.
_COMPOUNDING = {"yearly": 1, "annually": 1, "semi-annually": 2, "semiannually": 2, "quarterly": 4, "monthly": 12,
                "weekly": 52, "daily": 365}
_COMPOUNDED = re.compile(rf"\bcompounded\s+(?P<every>{'|'.join(_COMPOUNDING)})\b|\bcompound\s+interest\b")
_YEARS = re.compile(rf"\b(?:after|for|in|over)\s+{N}\s+(?P<unit>years?|months?)\b")


def _compound_interest(text: str) -> str | None:
    """An amount at a yearly rate compounded yearly, monthly ... ("compound interest": yearly),
    after a number of years or months: amount * (1 + rate / n) ** (n * years). Only when the
    amount, the rate and the span are the message's only numbers."""
    compounded, percents, span = _COMPOUNDED.search(text), _PERCENT.findall(text), _YEARS.search(text)
    if compounded is None or len(percents) != 1 or span is None:
        return None
    rest = _YEARS.sub(" ", _PERCENT.sub(" ", text))
    if len(amounts := numbers(rest)) != 1:
        return None
    every = _COMPOUNDING[compounded["every"]] if compounded["every"] else 1
    years = span[1] if span["unit"].startswith("year") else f"{span[1]} / 12"
    return f"{amounts[0]} * (1 + {percents[0]} / 100 / {every}) ** ({every} * {years})"


_SIMPLE = re.compile(r"\bsimple\s+interest\b")
_INTEREST_ASKED = re.compile(r"\bhow\s+much\s+interest\b|\b(?:the|in)\s+interest\b|\binterest\s+(?:earned|paid|made)\b")


def _simple_interest(text: str) -> str | None:
    """An amount at a yearly rate of simple interest over years or months: the interest
    (amount * rate / 100 * years) when the question asks for it, else the amount with it. Only
    when the amount, the rate and the span are the message's only numbers."""
    percents, span = _PERCENT.findall(text), _YEARS.search(text)
    if _SIMPLE.search(text) is None or len(percents) != 1 or span is None:
        return None
    if len(amounts := numbers(_YEARS.sub(" ", _PERCENT.sub(" ", text)))) != 1:
        return None
    years = span[1] if span["unit"].startswith("year") else f"{span[1]} / 12"
    interest = f"{amounts[0]} * {percents[0]} / 100 * {years}"
    return interest if _INTEREST_ASKED.search(text) else f"{amounts[0]} + {interest}"


# A share of an amount with words between ("(3/4) of my 80 dollar budget", "25% of the 12
# cookies", "3/8 of a pizza cut into 8 slices"), and a question for the share or for what is
# left of the amount.
_SHARE = re.compile(r"(?:\(?(?P<fraction>\d+/\d+)\)?|(?P<percent>\d+(?:\.\d+)?)\s*(?:%|percent\b|per\s*cent\b))"
                    r"\s+of\s+(?:my|the|a|an|his|her|our|their|your|this|that|its)\s+(?:[a-z]+\s+)?"
                    r"(?:(?:cut|divided|split|sliced)\s+into\s+)?(?P<amount>\d+(?:\.\d+)?)\b")
_LEFT = re.compile(r"\b(?:left|remain(?:s|ing)?|rest|still\s+have)\b")


def _share_of(text: str) -> str | None:
    """A share of an amount written with words between them, or what is left of the amount
    ("I spent three quarters of my eighty dollar budget. How much is left?": 80 * (1 - 3/4)),
    when those are the message's only numbers."""
    share = _SHARE.search(text)
    if share is None or len(numbers(_SHARE.sub(" ", text))) > 0:
        return None
    fraction = share["fraction"] or f"{share['percent']} / 100"
    amount = share["amount"]
    return f"{amount} * (1 - {fraction})" if _LEFT.search(text[share.end():]) else f"{amount} * {fraction}"


_VERB_FORMS: tuple[quantity_rules.Form, ...] = (
    (re.compile(rf"\b(?:subtract|deduct|take(?:\s+away)?)\s+{N}\s+(?:away\s+)?from\s+{N}"),
     lambda m: f"{m[2]} - {m[1]}"),
    (re.compile(rf"\bdivide\s+{N}\s+by\s+{N}"), lambda m: f"{m[1]} / {m[2]}"),
    (re.compile(rf"\bmultiply\s+{N}\s+(?:by|with|and)\s+{N}"), lambda m: f"{m[1]} * {m[2]}"),
)


def _verb_forms(text: str) -> str | None:
    """"subtract 389 from 1200", "take 45 away from 300", "divide 144 by 12", "multiply 125 by 8"."""
    return quantity_rules.first_form(text, _VERB_FORMS)


def _named_operations(text: str) -> str | None:
    """Remainders, factorials, rounding, a fraction as a percentage and the difference of two numbers."""
    if match := re.search(rf"\bremainder\s+(?:when|of|after)\s+{N}\s+(?:is\s+)?divided\s+by\s+{N}|"
                          rf"{N}\s+(?:mod|modulo)\s+{N}", text):
        return f"{match[1] or match[3]} % {match[2] or match[4]}"
    if match := re.search(r"\bfactorial\s+(?:of\s+)?(\d+)\b|(\d+)\s*factorial\b", text):  # not "5!": "one!"
        return f"factorial({match[1] or match[2]})"
    if match := re.search(rf"\bround\s+{N}\s+to\s+(?:(\d+)\s+decimals?(?:\s+places?)?|the\s+nearest\s+"
                          r"(?:whole\s+number|integer|one|unit))", text):
        return f"round({match[1]}, {match[2]})" if match[2] else f"round({match[1]})"
    if match := re.search(rf"{N}\s*(?:/|out\s+of)\s*{N}\s+(?:as\s+an?\s+|in\s+)?(?:percent(?:age)?|%)", text):
        return f"{match[1]} / {match[2]} * 100"
    values = numbers(text)
    if re.search(r"\bdifference\b", text) and len(values) == 2:  # of two numbers, never of three
        return f"abs({values[0]} - {values[1]})"
    return None


def _average(text: str) -> str | None:
    """"the average of 12, 15 and 21", "avg of 3.5, 4 and 6", or a list asked about after it
    ("I scored 78, 85 and 92 on my tests, what's my average?") when it holds every number but a
    year, the list's count or an age (`_beside_the_list`)."""
    values = _list_after("average|mean|avg", text)
    if len(values) < 2 and re.search(r"\b(?:average|mean|avg)\b", text):
        listed = re.search(rf"{N}(?:\s*,\s*{N})*\s*,?\s+and\s+{N}", text)
        values = numbers(listed.group()) if listed else []
        rest = text[:listed.start()] + " " + text[listed.end():] if listed else text
        values = values if all(_beside_the_list(number, rest, len(values)) for number in numbers(rest)) else []
    return f"({' + '.join(values)}) / {len(values)}" if len(values) >= 2 else None


def _beside_the_list(number: str, text: str, listed: int) -> bool:
    """Whether a number outside the listed ones is none of the amounts averaged: a year ("in
    2025"), the count of the list ("my 3 kids scored 7, 9 and 8"), or the speaker's age ("I'm 42")."""
    return (bool(re.fullmatch(r"(?:19|20)\d\d", number)) or number == str(listed)
            or bool(re.search(rf"\b(?:i'm|i\s+am|im|aged)\s+{re.escape(number)}\b", text)))


def _sum(text: str) -> str | None:
    values = _list_after("add|sum|total|add\\s+up|added", text)
    return " + ".join(values) if len(values) >= 2 else None





def _split(text: str) -> str | None:
    people = _PEOPLE.search(text)
    if people is None or not _EACH.search(text) or re.search(r"\bhow\s+many\b", text):
        return None  # "130 students, each bus seats 40, how many buses?" is a word problem
    base = next(group for group in people.groups() if group)
    count = _with_me(text, base)
    if chipped := _CHIPPED_IN.search(text):  # "8 friends chip in 15 dollars each": each gives it, nothing is split
        pooled = _TOTAL.search(text) or re.search(r"\bhow\s+much\s+(?:money\s+)?(?:do|did|will)\s+(?:we|they)\s+have\b",
                                                   text)
        return f"{chipped[1]} * {count}" if pooled and len(numbers(text)) == 2 else None
    amounts = [n for n in numbers(text[:people.start()] + " " + text[people.end():]) if n != base]
    return f"{amounts[0]} / {count}" if len(amounts) == 1 else None


def _with_me(text: str, count: str) -> str:
    """The count of people sharing, with the speaker when they are said beside it: "between me
    and 4 friends", "3 friends and me" are one more than the number written."""
    people = "|".join(sorted(_COMPANY))
    if re.search(rf"\b(?:me|myself|us|i)\s+(?:and|&|\+)\s+(?:my\s+)?{count}\b", text) or re.search(
            rf"\b{count}\s+(?:other\s+)?(?:{people})\s+(?:and|&|\+|plus)\s+(?:me|myself|i)\b", text):
        return f"({count} + 1)"
    return count


def _each_price(text: str) -> str | None:
    """A count at a price each ("6 apples at 0.5 each", "3 boxes with 12 each"): the count
    times the price, an exact reading. (A price "for" a count is a word problem: "36 euros for
    4 tickets" read by phrase was 4 / 36.)"""
    values = numbers(text)
    if len(values) != 2 or not _PRICE_QUESTION.search(text) or _PEOPLE.search(text):
        return None
    if match := re.search(rf"{N}\s+(?:[a-z-]+\s+){{1,3}}(?:at|for|of)\s+{N}\s*(?:[a-z]+\s+)?"
                          r"(?:each|apiece|a\s+piece|per\s+\w+)\b", text):
        if _ONE_ASKED.search(text[match.end():]):
            return None  # "5 apples for 2 dollars each, how much per apple?" asks the price of one
        return f"{match[1]} * {match[2]}"
    if match := re.search(rf"{N}\s+(?:[a-z-]+\s+){{1,3}}(?:with|of|holding|containing)\s+{N}\s+(?:[a-z-]+\s+)?each\b",
                          text):
        return f"{match[1]} * {match[2]}"
    return None


def _written(text: str, asks: bool) -> str | None:
    """A calculation written out in the message ("what is 56 divided by 8"): the longest span
    of numbers and operators, when the message asks or is nothing but the calculation."""
    for pattern, replace in _SPOKEN:
        text = re.sub(pattern, replace, text)
    # "15 + 27, then * 2": what came before "then" is computed first
    text = re.sub(r"([\d(][\d\s.+\-*/()]*[\d)])\s*,?\s*(?:and\s+)?then\s+(?=[*/+\-])", r"(\1) ", text)
    rates = {match[1] for match in _RATE.finditer(text)}
    text = _RATE.sub(" ", text)  # 1250 a month * 12
    if rates and set(re.findall(r"\b(day|week|month|year|hour|night)s?\b", text)) - rates:
        return None  # "35 a month plus 10 setup, what does a year cost?": the span asked is another

    text = " ".join(text.split())
    spans = [match.group().strip() for match in _SPAN.finditer(text)]
    spans = [span for span in spans if _OPERATION.search(span) and span.count("(") == span.count(")")
             and (not _LONE_PERCENT.fullmatch(span) or _AS_DECIMAL.search(text))]
    if not spans:
        return None
    span = max(spans, key=len)
    around = letter_words(text.replace(span, " ", 1))
    labelled = text.rpartition(":")[2].strip() == span  # "quick math: 999 + 1"
    return span if asks or labelled or len(around) <= 2 else None  # a short message around a calculation asks



# The rules that read a calculation exactly (a typed expression, units, a percentage of a
# stated amount, a count at a price each). What is left of an amount, things together and a
# price for a count are word
# problems, read whole by reading/problems (the router's `problem` route): a phrase rule read
# "I paid 36 euros for 4 tickets" as 4 / 36.
RULES: tuple[Callable[[str], str | None], ...] = (_what_percent, _percent_change, _compound_interest,
                                                  _simple_interest, _share_of, _chained_percents, _percent_forms,
                                                  _verb_forms, _named_operations,
                                                  *quantity_rules.RULES, *price_rules.RULES, _average, _sum, _split,
                                                  _each_price)
