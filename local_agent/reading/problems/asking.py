"""Whether a message asks for an amount, and whether it states its own quantities: the shapes
of a calculation.

- asking for an amount: the question asks how many, how much, how long, how old ..., when
  something ends or arrives, what time, a total, what is left, an average, a percentage, or to
  convert; not what was said or a name ("What did I say about 2 cats?", "what should I name my
  3 kittens?").
- `asks_about_its_quantities`: a word problem: at least two quantities of its own (a named
  day is none) and a question for an amount ("we scored 18 and 27, how many in all?").
- `calculation_shaped`: a question for an amount that states at least one number or clock time
  of its own ("Eva is 3 years older than her brother. How old is Eva?", "A train leaves at 9,
  when does it arrive?"); a question with no number ("How many legs does a spider have?") is
  none: the model may answer it from what it knows.
- `calculation_request`: the same asked in any form a person types: with no question mark
  ("3 cups of flour how many ml is that", "movie starts 7:50pm, when dose it end"), in a few
  words after the numbers ("price was 80 now 60, % decrease", `terse_asks` in words.toml), or a
  calculation written out ("1/3 + 1/4 as decimal"). A question word after a verb of knowing is
  none ("I know how much 3 apples cost"), nor is a statement ("I ran 5k in 27:30 today!").
"""

from __future__ import annotations

import itertools
import re
from typing import Literal

from ..clauses import asking_sentence
from ..date_phrases import PHRASES
from ..values import extract
from ..words import alternation, word_set
from ..words import words as words_of
from .quantities import Reading, read, singular

_ASKING = frozenset({"how", "what", "what's", "whats", "calculate", "find", "compute", "work"})
# The question asks for an amount: "how many/much/long/...", or a word that names one.
_HOW = frozenset({"many", "much", "long", "far", "old", "often", "big", "tall", "heavy", "fast"})
_AMOUNT = word_set("amount_words")
_OWN = word_set("own_words")
_ADVICE = word_set("advice_words")
# "when does it end", "when will we arrive", "what time do we land": a time to work out.
_WHEN = frozenset({"end", "ends", "finish", "finishes", "finished", "arrive", "arrives", "land", "lands", "get",
                   "start", "starts", "begin", "begins", "leave", "leaves", "done", "over", "ready", "back", "reach"})
_NAMED_DAYS = frozenset({"iso", "slashed", "ordinal_of", "day_month", "month_day", "month_year", "year"})
# A question about what was said, or a name asked for, is no calculation: "What did I say
# about 2 cats and 3 dogs?", "I have 2 kids and 3 dogs, what should I name my cat?"
_NOT_AN_AMOUNT = frozenset({"say", "said", "tell", "told", "mention", "mentioned", "remember", "recall", "name",
                            "call", "called", "recommend", "suggest", "think", "who", "why", "where"})
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b|\b\d{1,2}\s*[ap]\.?m\b", re.IGNORECASE)
_CONVERT = re.compile(r"\bconvert\b", re.IGNORECASE)
_IN_WHAT = re.compile(r"\bwhat(?:'s|s|\s+is)\s+(?:that|it|this)\s+in\s+[a-z]", re.IGNORECASE)
# "what does 404 mean", "what do 3 dots mean": a meaning asked, not an average
_MEANING = re.compile(r"\b(?:does|do|did)\b.*\bmean\b", re.IGNORECASE)
_PERCENT = re.compile(r"%|\bper\s*cent|\bpercent", re.IGNORECASE)
_TERSE_ASKS = word_set("terse_asks")
_KNOWING = word_set("knowing_verbs")
_COMMANDS = word_set("calculation_commands")
_TELLING = word_set("telling_subjects")
_QUESTION_WORDS = frozenset({"how", "what", "what's", "whats", "when"})
_OPENING_QUESTION = re.compile(r"(?:^|[,.;:!?]\s*)(?:how|what|what's|whats|when)\b", re.IGNORECASE)
# What follows a question word in a question, within a few words: a verb that asks or the
# pronoun after it ("how many ml is that", "when dose it end": a typo of "does" still has "it").
_QUESTION_FOLLOWS = frozenset({"is", "are", "was", "were", "do", "does", "did", "will", "would", "should", "can",
                               "could", "it", "that", "this", "there", "i", "we", "you", "they"})
# The last part of a message, after its last full stop, comma, colon, arrow or question mark.
_LAST_PART = re.compile(r"(?:^|[.,;:!?]\s|->|=>|→)\s*([^.,;:!?]*?)[\s?!.]*$")
# A calculation written out: numbers joined by an operator ("1/3 + 1/4", "17*23", "12 x 4").
_WRITTEN = re.compile(r"\d\s*[+*×÷^]\s*\(?\d|\d\s+[-/x]\s+\(?\d|\d\s*/\s*\d+\s*[-+]\s*\d")
_WRITTEN_WORDS = 4  # at most this many words beside a written calculation ("as decimal, 3 dp")


def without_named_days(text: str) -> str:
    """`text` with each named day ("7 July, 2023", "in 2022", "2024-03-01") made "a day"."""
    return PHRASES.sub(lambda m: "a day" if m.lastgroup in _NAMED_DAYS else m.group(), text)


def _asks_for_an_amount(text: str, reading: Reading, *, times: bool = False) -> bool:
    """Whether the question asks for an amount; with `times`, also for a time to work out
    ("when does it end?"), a conversion or a percentage."""
    words = list(reading.question_words)  # lower case, a name as NAME
    found = set(words)
    # "Convert" opening a sentence reads as a NAME; "98.6, what's that in Celsius?" converts too
    converts = times and (_CONVERT.search(text) is not None or _IN_WHAT.search(text) is not None)
    asking = _ASKING | {"when"} if times else _ASKING
    if _NOT_AN_AMOUNT & found or _MEANING.search(text) or not ("?" in text or asking & found or converts):
        return False
    how = any(word == "how" and after in _HOW for word, after in itertools.pairwise(words))
    # "what time will I get there?" asks for a time whatever its verb; "when" only with one that ends or arrives
    # ("when did I get them?" asks the user's past, not a time to work out)
    when = "what time" in " ".join(words) or ("when" in found and bool(_WHEN & found) and "did" not in found)
    return bool(how or _AMOUNT & found) or (times and (when or converts or _PERCENT.search(text) is not None))


def asks_about_its_quantities(text: str) -> bool:
    """Whether `text` states at least two quantities (a named day is none) and asks (a
    question mark or a question word) for an amount."""
    reading = read(without_named_days(text))
    return len(reading.quantities) >= 2 and _asks_for_an_amount(text, reading)


# A question for a count, an amount or a day, whatever else it says ("nights away if I fly out dec
# 28 and back jan 4?", "what date is 3 weeks after that?"); not "what happened on 4 July 1776?".
_COUNT_OR_DAY = re.compile(r"\bhow\s+(?:many|much|long|old|far)\b|\b(?:nights|days|weeks|months|years)\s+"
                           r"(?:away|left|until|till|since|between|old)\b|\bwhat\s+(?:date|day|time|temperature|temp|price|amount|size|"
                           r"weight|speed|distance|number|percentage)\b", re.IGNORECASE)


def asks_count_or_day(text: str) -> bool:
    """Whether `text` asks for a count, an amount or a day (`_COUNT_OR_DAY`)."""
    return _COUNT_OR_DAY.search(text) is not None


_WORDS_ASKED = word_set("words_asked")
# A verb that asks for a text, opening the message after "please" or "can you" ("could you list ...").
_TEXT_VERB = re.compile(r"^\W*(?:(?:please|pls|plz)\s+)?(?:(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+)?)?"
                        rf"(?:{alternation(word_set('text_verbs'))})\b", re.IGNORECASE)
_CHAT = word_set("chat_markers")
_COUNTS = word_set("counts_asked")
_TELLING_VERBS = word_set("telling_verbs", "past_verbs")
_TELLING_WHOM = word_set("telling_subjects", "relations")  # "wife aino, architect. 2 kids: eetu 9"
_INVERTING = word_set("inverting_verbs")
_NOT_PAST = word_set("not_past")


# Asked in words: "what do kittens eat at 10 weeks", "wat 2 things is jess into" (a number of
# answers), "when did those 2 students sign up" (a past event, not a time to work out).
_WORDS_FORMS = re.compile(r"\bwhat\s+(?:do|does|did|can|could|should|would|will)\s+\w+(?:\s+\w+)?\s+"
                          rf"(?!{alternation(word_set('value_verbs'))})[a-z]{{3,}}\b"
                          r"|\b(?:what|which)\s+\d+\s+[a-z]|\bwhen\s+(?:did|was|were)\b", re.IGNORECASE)


def asks_for_words(text: str) -> bool:
    """Whether `text` asks for an answer in words, not an amount: who, why or where, what
    happened or what a thing means, advice, what someone does, a number of answers, or a text
    to write ("write a haiku about 3 cats", "what should I cook for 4 people?"); never when it
    asks for a count, an amount or a day ("how much should I tip on $80?")."""
    if asks_count_or_day(text) or calculation_shaped(text):
        return False
    return (bool(_WORDS_ASKED & set(words_of(text))) or _TEXT_VERB.search(text) is not None
            or _MEANING.search(text) is not None or _WORDS_FORMS.search(text) is not None)


def calendar_day(text: str) -> bool:
    """Whether `text`, the words that name a day, name it by its number ("4 July", "feb 2026");
    a month alone ("in late November") or "tomorrow" is no quantity of the message's own."""
    return re.search(r"\d", text) is not None


# A question opening with a verb: "is 2028 a leap year", "does feb 2028 have 29 days"; not ", can
# you believe it" inside a message that tells. Or a question word ending it: "..., landing when".
_INVERTED = re.compile(rf"^\W*(?:{alternation(word_set('inverting_verbs'))})\s+\w"
                       r"|\b(?:when|how\s+(?:long|much|many|far|old)|what\s+time)\W*$", re.IGNORECASE)


def asks_in_words(text: str) -> bool:
    """Whether `text` asks with its words, a question mark aside: a question word (`asked_in_words`),
    a verb opening it ("is 2028 a leep year") or a question word ending it ("landing when")."""
    return asked_in_words(text, mark=False) or _INVERTED.search(text) is not None


def counts_asked(text: str) -> bool:
    """Whether a few words ask for a count or an amount with no question word ("march 2027
    number of days", "osaka users in software, count"; `counts_asked` in words.toml), or command
    a calculation ("split the bill between us, it came to $96")."""
    return asks_count_or_day(text) or bool((_COUNTS | _COMMANDS) & set(words_of(text)))


def chat_marked(text: str) -> bool:
    """Whether `text` exclaims or holds a word of chat ("lol", "maybe", "ago"): chat, even with a
    question mark ("Maybe a rating of 1800?")."""
    return "!" in text or bool(_CHAT & set(words_of(text)))


def chatting(text: str) -> bool:
    """Whether `text`, asking nothing, is chat rather than a value asked in a few words: an
    exclamation, a word of chat ("lol 3 more days till the weekend", "just finished a 5k!!"), or
    someone or a verb that tells, with no calculation commanded ("my 2 kids are driving me
    crazy", "it was 28 degrees at the beach", "ran 18k three days ago"; not "split the bill
    between us, it came to $96")."""
    if chat_marked(text):
        return True
    found = words_of(text)
    said = set(found)
    # a verb opening the message asks ("is 2028 a leap year"); a past form opening it tells ("ran 18k")
    opening = found[0] if found else ""
    opens_told = opening not in _INVERTING and (opening in _TELLING_VERBS or (
        len(opening) > 4 and opening.endswith("ed") and opening not in _NOT_PAST))
    tells = _TELLING_WHOM & said or _TELLING_VERBS & set(found[1:]) or opens_told
    return bool(tells) and not _COMMANDS & said


def value_asked(text: str, own: int) -> bool:
    """Whether `text`, holding `own` quantities of its own (numbers, clock times, dated days),
    asks for a value of them, not for words: a question ("is 30 c hot in fahrenheit?", "feb 2026
    how many days", "is 2028 a leep year"), or a few words on two quantities, asked with a
    question mark, or asking for a count ("6 ft 2 in to cm", "5 cups to grams?", "march 2027
    number of days"); not "who won the world cup in 1998", "write a haiku about 3 cats", chat
    ("lol 3 more days till the weekend", "ran 18k three days ago"), nor an answer to the
    assistant's question ("in June", "about 12 I think")."""
    asking = asking_sentence(text)
    if not own or asks_for_words(asking):
        return False
    if not extract(asking, ("number", "date", "time")) and not (asks_count_or_day(asking) or calculation_shaped(text)):
        return False  # "My son is 3. Do you know any good train books?": the question asks of none of them
    if asks_in_words(asking):
        return True
    if "?" in asking:  # "5 cups to grams?"; not "Maybe a rating of 1800?"
        return not chat_marked(text)
    return not chatting(text) and (own >= 2 or counts_asked(asking))


def calculation_shaped(text: str) -> bool:
    """Whether `text` asks for an amount and states a number or a clock time of its own."""
    reading = read(without_named_days(text))
    states = bool(reading.quantities) or _CLOCK.search(text) is not None
    return states and _asks_for_an_amount(text, reading, times=True)


def calculation_request(text: str) -> bool:
    """Whether `text` asks for an amount worked out from numbers of its own, in any form a
    person types (the module's `calculation_request`)."""
    reading = read(without_named_days(text))
    states = bool(reading.quantities) or _CLOCK.search(text) is not None
    if not states:
        return False
    if written_calculation(text):
        return True
    if terse_ask(text) or scaled_ask(reading) or commanded(text, reading):
        return True
    return asked_in_words(text) and _asks_for_an_amount(text, reading, times=True)


def commanded(text: str, reading: Reading) -> bool:
    """A calculation given as a command on two quantities or more, said by no one ("bill 64.50
    plus 18 percent tip split four ways"); not "I split the 40 dollar bill with 2 friends"."""
    said = set(words_of(text))
    return len(reading.quantities) >= 2 and bool(_COMMANDS & said) and not _TELLING & said


def written_calculation(text: str) -> bool:
    """A calculation written out with at most a few words beside it ("1/3 + 1/4 as decimal")."""
    found = _WRITTEN.search(text)
    return found is not None and sum(not word.isdigit() for word in words_of(_WRITTEN.sub(" ", text))) <= _WRITTEN_WORDS


def terse_ask(text: str) -> bool:
    """The message's last part opens with a word that asks for an amount, or "%", holds no
    number and is asked ("..., % increase", "... pace per km?"; not "..., total chaos")."""
    last = _LAST_PART.search(text)
    part = last[1].strip() if last else ""
    if not part or re.search(r"\d", part) or len(part.split()) > 4 or not ("?" in text or part.startswith("%")):
        return False
    opening = part.lstrip("%").split()
    return part.startswith("%") or bool(opening and opening[0].lower() in _TERSE_ASKS)


def scaled_ask(reading: Reading) -> bool:
    """A short question that asks one thing the message counts for a new count of another
    ("3 cups flour for 12 muffins. flour for 30 muffins?"): its one number counts what an
    earlier number counts, and it names what another earlier number counts."""
    asked = [quantity for quantity in reading.quantities if quantity.in_question]
    earlier = [quantity for quantity in reading.quantities if not quantity.in_question]
    words = {singular(word) for word in reading.question_words}
    if len(asked) != 1 or not asked[0].unit or "?" not in words or len(words) > _WRITTEN_WORDS + 3:
        return False
    counted = [quantity for quantity in earlier if quantity.unit[:1] == asked[0].unit[:1]]
    others = {word for quantity in earlier if quantity not in counted for word in quantity.unit}
    return bool(counted) and bool(others & (words - set(asked[0].unit)))


def asked_in_words(text: str, *, mark: bool = True) -> bool:
    """A question mark, a question word opening the message or a clause ("how many kg in 5
    tons, need it exact"), or one that follows no verb of knowing and is followed by a
    question's verb or pronoun ("3 cups of flour how many ml is that", "when dose it end"; not
    "I know how much it costs", "it brings home how much love's in families"); with `mark`
    false, a question mark alone is none."""
    if ("?" in text and mark) or _OPENING_QUESTION.search(text):
        return True
    found = words_of(text)
    return any(word in _QUESTION_WORDS and (at == 0 or found[at - 1] not in _KNOWING)
               and _QUESTION_FOLLOWS & set(found[at + 1:at + 5]) for at, word in enumerate(found))


def amount_without_numbers(text: str) -> Literal["own", "general"] | None:
    """A question for an amount ("how many/much/long/far/old ...") that states no number or
    clock time of its own: `own` when it asks of the user's own things ("how much will I pay
    for the apples?", "how long will our drive take?"), which no number here can work out;
    `general` for what is known or usual ("how tall is the Eiffel Tower?", "how long should I
    boil an egg?"), which a small model can only guess; None for anything else."""
    reading = read(without_named_days(text))
    if reading.quantities or _CLOCK.search(text) or not asked_in_words(text):
        return None
    words = list(reading.question_words)
    how = any(word == "how" and after in _HOW for word, after in itertools.pairwise(words))
    if _NOT_AN_AMOUNT & set(words) or not how:
        return None
    said = set(words_of(text))
    return "own" if _OWN & said and not _ADVICE & said else "general"
