"""What a calculation's result measures, and whether that is what the question asks (issue 42):
a reading that uses every number of a question can still answer another question. "How many
30x30 cm tiles do I need?" read as 30 × 30 gives an area, not a count of tiles; "how long till
my loan is paid off if I pay 300 a month at 6% interest?" read as 300 less 6% gives an amount a
month, not a time; "how much interest will I have earned?" read as 2000 plus 3.5% gives the
total, not the interest.

Each number of the message measures what the words right after it say: a unit of the units
table (tools/units.py: length, mass, volume, time, temperature; "sq" or "square" before a
length makes an area), money ("$40", "12 euros"), a rate ("300 a month": over a time; "60 km/h"),
or nothing (a count of things, a percentage); "4 packs of 6 cans" counts packs, and cans a pack
(words.toml `containers`), so that 4 + 6 adds unlike amounts. A result's measure composes over the
expression: × adds the powers, ÷ takes them away, + and - keep a measure when both sides have
it or one side has none (else the reading adds unlike amounts: "$500 + $35 a month"). The
question asks for a time ("how long till", "how many hours"), a unit ("how many millilitres"),
money ("how much will it cost") or a count of things ("how many tiles"); any other question,
and any expression with a number the message does not hold (a conversion's factor), is not
checked. An amount of "pounds" is money or a weight: not checked.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from decimal import Decimal

from ..reading.problems.quantities import singular
from ..reading.words import word_set
from .coverage import asking_sentence
from .question_text import normalize
from .shares import charge_left_out, share_left_out
from .units import UNIT, dimension, ratio, unit_name

Measure = Counter[str]  # each dimension's power: {"money": 1, "time": -1}
MONEY = "money"
_MONEY_WORDS = word_set("measure_money")
_AREA_WORDS = word_set("measure_area")
_MONEY_ASKED = word_set("measure_money_asked")
_COUNT_SKIP = word_set("measure_count_skip")
_CHANGE_ASKED = word_set("measure_change_asked")
_CONTAINERS = word_set("containers")  # "4 packs of 6 cans": packs, and cans a pack
_MISSPELT = frozenset(_CHANGE_ASKED | _MONEY_ASKED)  # words a misspelling is corrected to as well ("intrest")
_PER = frozenset({"per", "a", "an", "each", "every", "/"})
_SPEEDS = {"mph": "length", "kph": "length", "kmh": "length"}  # a length an hour
_CURRENCY = re.compile(r"[$€£¥]\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s?[$€¥]")
_NUMBER = re.compile(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.]*\d)")
_TOKEN = re.compile(r"°\s?[cfk]\b|\d+(?:\.\d+)?|[a-z]+|[%/]")
# A unit said to be an amount of another ("one cup is 250 ml", "it takes an hour to make 7 shirts").
_ONE_UNIT = re.compile(r"\b(?:a|an|one|1|each|every)\s+([a-z]+)\s+(?:(?:is|are|has|equals?|makes?|holds?|"
                       r"contains?|weighs?|covers?)(?:\s+(?:composed|made|made\s+up))?(?:\s+of)?|to\s+[a-z]+)"
                       r"(?:\s+(?:about|around|roughly|nearly|almost))?\s*$")
_UNKNOWN = "?"  # a measure this check does not read ("pounds")
_CONTAINER = "#"  # a count of containers ("#pack"): told apart from other counts only to add like with like
_UNLIKE = "unlike"  # a sum or difference of unlike measures: no measure at all


def _prepared(message: str) -> str:
    """The message as the rules read it, an amount of money written "N dollars"."""
    return normalize(_CURRENCY.sub(lambda m: f"{m[1] or m[2]} dollars ", message), _MISSPELT)  # "intrest" too


def _unit(token: str) -> str | None:
    """The dimension a word names ("cups": volume, "euros": money), or None."""
    if token in _MONEY_WORDS:
        return MONEY
    if token in ("pound", "pounds", "stone", "stones"):  # money or a weight; a weight or a pebble
        return _UNKNOWN
    if token in _SPEEDS:
        return token
    name = unit_name(token) if len(token) > 1 or token in ("m", "g", "l") else None  # "c", "f": letters
    return dimension(name) if name else None


def _measure_of(tokens: list[str]) -> Measure:
    """The measure of an amount from the words right after it ("cm tiles": length; "a month":
    a rate over a time; "%": none)."""
    measure: Measure = Counter()
    at = 0
    if tokens and tokens[0] in ("%", "percent"):
        return measure
    area = bool(tokens) and tokens[0] in _AREA_WORDS
    at += area
    if at < len(tokens) and (unit := _unit(tokens[at])) is not None:
        if unit in _SPEEDS:
            return Counter({_SPEEDS[unit]: 1, "time": -1})
        measure[unit] += 2 if area and unit == "length" else 1
        at += 1
    for word, following in zip(tokens[at:at + 3], tokens[at + 1:at + 4], strict=False):
        if word in _PER and (per := _unit("hour" if following == "h" else following)) not in (None, MONEY):
            measure[per or _UNKNOWN] -= 1
            break
    return measure


def _number_words(message: str) -> list[tuple[re.Match[str], list[str], str]]:
    """Each number of the message with the words right after it, in its own clause ("30x30
    cm": the next one's), and the message as the rules read it."""
    text = _prepared(message)
    found = []
    matches = list(_NUMBER.finditer(text))
    for at, match in enumerate(matches):
        rest = text[match.end():match.end() + 60]
        if re.match(r"\s*[x×*]\s*\d", rest) and at + 1 < len(matches):  # "30x30 cm": as the next one
            rest = text[matches[at + 1].end():matches[at + 1].end() + 60]
        clause = re.split(r"[,;?!]|\.(?!\d)", rest)[0]  # its own clause; "20 M&M's" names no unit
        found.append((match, [] if re.match(r"\s*[a-z]\s?[&'’]", clause) else _TOKEN.findall(clause)[:5], text))
    return found


def message_measures(message: str) -> list[tuple[Decimal, Measure]]:
    """Each number of the message with its measure, in order ("30x30 cm": both lengths)."""
    found: list[tuple[Decimal, Measure]] = []
    for match, tokens, text in _number_words(message):
        measure = _measure_of(tokens)
        if tokens and tokens[0] in _CONTAINERS:  # "4 packs": a count of packs
            measure[_CONTAINER + singular(tokens[0])] += 1
        if (held := re.search(r"\b([a-z]+)\s+of\s+$", text[:match.start()])) and held[1] in _CONTAINERS:
            measure[_CONTAINER + singular(held[1])] -= 1  # "packs of 6 cans": 6 a pack
        if (one := _ONE_UNIT.search(text[max(0, match.start() - 60):match.start()])) and (unit := _unit(one[1])):
            measure[unit] -= 1  # "one cup is 250 ml": 250 ml a cup; "an hour is made of 60 minutes"
        found.append((Decimal(match.group()), measure))
    return found


def result_measure(message: str, expression: str) -> Measure | None:
    """What `expression` over the message's numbers measures, or None when it cannot be told
    (a number the message does not hold, a measure not read); adding unlike measures ($500 + $35 a
month) has the measure `unlike`."""
    try:
        tree = ast.parse(_python(expression), mode="eval").body
    except SyntaxError:
        return None
    pool = message_measures(message)
    measure = _compose(tree, pool)
    return None if measure is None or _UNKNOWN in measure else measure


def mixed_units(message: str, expression: str) -> str | None:
    """Why `expression` cannot be right as it stands: it works two amounts of one kind in
    different units together with no factor between them (5.5 litres ÷ 340 ml), or divides a
    number by itself (30 ÷ 30); None otherwise, or when the reading brought in a factor."""
    try:
        tree = ast.parse(_python(expression), mode="eval").body
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and _by_itself(node):
            return f"it divides {ast.unparse(node.left)} by itself"
    pool = [(Decimal(match.group()), _unit_named(tokens)) for match, tokens, _ in _number_words(message)]
    units = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
            value = Decimal(str(node.value))
            at = next((n for n, (number, _) in enumerate(pool) if number == value), None)
            if at is None and value not in (1, 100):  # a factor the reading brought in (a conversion)
                return None
            units += [] if at is None else [pool.pop(at)[1]]
    named: dict[str, str] = {}
    for unit in filter(None, units):
        if named.setdefault(dimension(unit) or "", unit) != unit:
            return f"it works {named[dimension(unit) or '']} and {unit} together without converting"
    return None


_IN_UNIT = re.compile(rf"\b(?:in|into|to|as)\s+({UNIT})\W*$", re.IGNORECASE)


def unit_not_asked(message: str, expression: str) -> str | None:
    """Why `expression` cannot be the answer: the question asks for a unit ("..., in grams?")
    that no number of the message is in, the numbers are in another unit of that kind (kg), and
    the reading brought in no factor to convert them; None otherwise."""
    asked = _IN_UNIT.search(asking_sentence(_prepared(message)).rstrip())
    target = unit_name(asked[1]) if asked else None
    if asked is None or target is None or dimension(target) is None:
        return None
    said = [Decimal(match.group()) for match, _, _ in _number_words(message)]
    if any(Decimal(n) not in said and Decimal(n) not in (1, 100) for n in _NUMBER.findall(_python(expression))):
        return None  # a factor the reading brought in: a conversion
    units = {unit for _, tokens, _ in _number_words(message) if (unit := _unit_named(tokens))}
    same = {unit for unit in units if ratio(unit, target) == 1}  # "g" for "grams"
    other = sorted(unit for unit in units - same if dimension(unit) == dimension(target))
    return f"you asked for it in {asked[1]}, and it gives {other[0]}" if other and not same else None


def _by_itself(node: ast.BinOp) -> bool:
    """Whether `node` divides a number by the same number."""
    return (isinstance(node.op, ast.Div | ast.FloorDiv)
            and isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant)
            and node.left.value == node.right.value)


def _unit_named(tokens: list[str]) -> str | None:
    """The unit of length, weight, volume or time the words after a number name ("ml"), or None."""
    at = 1 if tokens and tokens[0] in _AREA_WORDS else 0
    token = tokens[at] if at < len(tokens) else ""
    name = unit_name(token) if len(token) > 1 or token in ("m", "g", "l") else None
    return name if name and dimension(name) in _RATE_DIMENSIONS else None


def _python(expression: str) -> str:
    """A reading's expression as Python ("⌊50 ÷ 8⌋ = 6", "80 less 25%", "the remainder of 50 ÷ 8"),
    without the result it gives."""
    text = expression.split("=")[0].replace("×", "*").replace("÷", "/").replace("⌊", "floor(").replace("⌋", ")")
    text = text.replace("⌈", "ceil(").replace("⌉", ")").replace("the remainder of", "")
    text = re.sub(r"^(.+?)\s+(less|plus)\s+(\d+(?:\.\d+)?)%$",
                  lambda m: f"({m[1]}) * (1 {'-' if m[2] == 'less' else '+'} {m[3]} / 100)", text)
    return re.sub(r"(\d+(?:\.\d+)?)%", r"(\1 / 100)", text)


def _compose(node: ast.expr, pool: list[tuple[Decimal, Measure]]) -> Measure | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return _literal(Decimal(str(node.value)), pool)
    if isinstance(node, ast.UnaryOp):
        return _compose(node.operand, pool)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
        return _compose(node.args[0], pool) if node.func.id in ("floor", "ceil", "round", "abs") else None
    if not isinstance(node, ast.BinOp):
        return None
    left = _compose(node.left, pool)
    if isinstance(node.op, ast.Pow):
        power = node.right.value if isinstance(node.right, ast.Constant) else None
        return Counter({k: v * power for k, v in left.items()}) if left is not None and isinstance(power, int) else None
    right = _compose(node.right, pool)
    if left is None or right is None:
        return None
    if isinstance(node.op, ast.Mult):
        return Counter({k: left[k] + right[k] for k in left.keys() | right.keys()})
    if isinstance(node.op, ast.Div | ast.FloorDiv):
        return Counter({k: left[k] - right[k] for k in left.keys() | right.keys()})
    if _UNLIKE in left or _UNLIKE in right:
        return Counter({_UNLIKE: 1})
    if isinstance(node.op, ast.Mod) or _bare(right) or _same(left, right):
        return left
    return right if _bare(left) else Counter({_UNLIKE: 1})  # $500 + $35 a month


def _literal(value: Decimal, pool: list[tuple[Decimal, Measure]]) -> Measure | None:
    """The measure of a number of the expression: the first unused one of the message of that
    value; 1 and 100 are plain numbers (a percentage's); any other is a factor not read."""
    for at, (number, measure) in enumerate(pool):
        if number == value:
            del pool[at]
            return measure
    return Counter() if value in (1, 100) else None


def _bare(measure: Measure) -> bool:
    return not any(measure.values())


def _same(one: Measure, other: Measure) -> bool:
    return all(one[key] == other[key] for key in one.keys() | other.keys())


# Words after a unit that show it is what "how many" counts ("how many ml are in a cup").
_STOP_AFTER = frozenset("""are is was were do does did will would can could should in to of for does there it
i we you they he she left from now at on by with after before until till since ago""".split())


def asked_measure(message: str) -> tuple[Measure, str] | None:
    """What the question asks for, with how to say it ("a time", "a count of tiles"), or None
    when it asks for nothing this check reads."""
    asking = asking_sentence(_prepared(message))
    if re.search(r"\bhow\s+long\s+(?:till|until|before|will|would|does|do|did|to|it|for|has|have)\b"
                 r"|\bhow\s+much\s+time\b", asking):
        return Counter({"time": 1}), "a time"
    if re.search(r"\b(?:the|its|their|an?)\s+area\b", asking):
        return Counter({"length": 2}), "an area"
    if re.search(r"\b(?:the|its|their|his|her|my|our|average)\s+speed\b", asking):
        return Counter({"length": 1, "time": -1}), "a speed"
    if found := re.search(r"\bhow\s+many\s+(.+)", asking):
        return _asked_many(_TOKEN.findall(found[1])[:8])
    if found := re.search(r"\bhow\s+much\b(.*)", asking):
        words = set(_TOKEN.findall(found[1]))
        if words & (_MONEY_ASKED | _MONEY_WORDS):
            return Counter({MONEY: 1}), "an amount of money"
    return None


def _asked_many(tokens: list[str]) -> tuple[Measure, str] | None:
    """What "how many ..." asks for: a unit, money, or a count of the noun it names."""
    at = 0
    while at < len(tokens) and (tokens[at] in _COUNT_SKIP or tokens[at][0].isdigit() or tokens[at] == "x"):
        at += 1
    if at < len(tokens) and tokens[at] in _STOP_AFTER:
        return Counter(), "a count"  # "how many are free", "how many did she send away"
    if at >= len(tokens) or not tokens[at].isalpha():
        return None
    following = tokens[at + 1] if at + 1 < len(tokens) else ""
    unit = _unit(tokens[at + (tokens[at] in _AREA_WORDS)])
    modifier = unit not in (None, MONEY) and following.isalpha() and _unit(following) is None \
        and following not in _PER and following not in _STOP_AFTER
    if unit == _UNKNOWN or (unit is not None and not modifier):
        if unit == _UNKNOWN or tokens[at] in _AREA_WORDS:
            return None
        measure = _measure_of(tokens[at:])
        return measure, _said(measure)
    noun = following if modifier else tokens[at]  # "how many kg bags": bags
    return Counter(), f"a count of {noun}"


def _said(measure: Measure) -> str:
    """A measure in words: "a time", "an area", "money per time", "a plain number"."""
    names = {"time": "a time", "length": "a length", "mass": "a weight", "volume": "a volume", MONEY: "money",
             "temperature": "a temperature"}
    over = [names.get(key, key).split()[-1] for key, power in sorted(measure.items()) if power < 0]
    top = [("an area" if key == "length" and power == 2 else names.get(key, key))
           for key, power in sorted(measure.items()) if power > 0]
    said = " times ".join(top) or ("an amount" if over else "a plain number")
    return f"{said} per {' per '.join(over)}" if over else said


def measure_left_out(message: str, expression: str) -> str | None:
    """What the question asks for that `expression` does not give ("you asked for a count of
    tiles, and it gives an area"), or None: the same measure, or nothing this check reads."""
    asked = asked_measure(message)
    if asked is None:
        return None
    result = result_measure(message, expression)
    if result is None:
        return None
    wanted, said = asked
    if _UNLIKE in result:
        return f"you asked for {said}, and it adds or takes away unlike amounts"
    counted = said.startswith("a count of")  # a count: no unit or money left over
    result = Counter({key: power for key, power in result.items() if not key.startswith(_CONTAINER)})
    fits = not any(power > 0 for power in result.values()) if counted else _same(result, wanted)
    return None if fits else f"you asked for {said}, and it gives {_said(result)}"


_CHANGE_AFTER = re.compile(r"\*\s*\(\s*1\s*[-+]|\b(?:less|plus)\s+\d+(?:\.\d+)?%$")
# A total asked ("after" a time is no total: "how much interest after 3 years"): "with" only with
# the change ("how much do I pay with 8% tax", not "with 25% off, how much do I save?").
_TOTAL_WORDS = re.compile(r"\b(?:total|altogether|including|incl|after(?!\s+\d+\s*(?:years?|months?|weeks?|days?)\b)|"
                          r"final|end\s+up|in\s+all|plus)\b|"
                          rf"\bwith\s+(?:\S+\s+){{0,2}}(?:{'|'.join(sorted(_CHANGE_ASKED))})\b")


def change_as_total(message: str, expression: str) -> str | None:
    """The change a question asks for ("how much interest", "what is the tip", "how much more",
    "how much will I save") when
    `expression` gives the amount with the change in it (2000 × (1 + 3.5 / 100)), or None."""
    asking = asking_sentence(_prepared(message))
    words = "|".join(sorted(_CHANGE_ASKED))
    asked = re.search(rf"\bhow\s+much\s+(more|extra|less|off)\b|\bhow\s+much\s+(?:\w+\s+){{0,3}}?({words})\b|"
                      rf"\bwhat(?:'s|\s+is|\s+was|\s+will\s+be)?\s+(?:the|my|our)\s+({words})\b", asking)
    if asked is None or _TOTAL_WORDS.search(asking) or not _CHANGE_AFTER.search(expression):
        return None
    return asked[1] or asked[2] or asked[3]


_PER_ASKED = re.compile(r"\bper\s+(?:\d+(?:\.\d+)?\s+)?([a-z]+)")
_ASKING_WORD = re.compile(r"\b(?:what|what's|whats|how|which)\b")
_RATE_DIMENSIONS = frozenset({"length", "time", "mass", "volume"})


def rate_left_out(message: str, expression: str) -> str | None:
    """What a question asking for an amount per a unit ("what's my pace per km", "litres per
    100 km") gets from an `expression` that does not divide by that unit's measure (5 km × 27
    minutes), or None."""
    asking = asking_sentence(_prepared(message))
    opening = [found.start() for found in _ASKING_WORD.finditer(asking)]
    asked = _PER_ASKED.search(asking, opening[-1]) if opening else None  # "per" in the question itself
    dimension_ = _unit(asked[1]) if asked and not asked[0].split()[1][0].isdigit() else None
    if asked is None or dimension_ not in _RATE_DIMENSIONS:  # "per 100 km" is not checked
        return None
    result = result_measure(message, expression)
    if result is None:
        return None
    if _UNLIKE in result:
        return f"you asked for an amount per {asked[1]}, and it adds or takes away unlike amounts"
    return None if result[dimension_] < 0 else f"you asked for an amount per {asked[1]}, and it gives {_said(result)}"


_CHANGE_NAMES = {"more": "difference", "extra": "difference", "less": "difference", "save": "saving", "off": "discount"}


def reading_doubt(message: str, expression: str) -> str | None:
    """Why a calculation read from `message` may answer another question: it gives the total
    where a change is asked, or another measure than the one asked; None when neither."""
    if change := change_as_total(message, expression):
        change = _CHANGE_NAMES.get(change, change)
        return f"you asked for the {change}, and it gives the amount after it"
    return (measure_left_out(message, expression) or rate_left_out(message, expression)
            or mixed_units(message, expression) or unit_not_asked(message, expression)
            or share_left_out(message, expression) or charge_left_out(message, expression))
