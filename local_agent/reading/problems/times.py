"""Durations and clock times, read exactly: sums of durations, a clock time and a duration, and
the time between two clock times.

- A duration is one or more parts in falling units: "2 hours 20 minutes", "3h 40m",
  "1 hour and 5 minutes", "90 minutes", "half an hour".
- A clock time is "7:45 pm", "19:45", "9 am", "at 9" / "at 9 o'clock", or "at nine forty-five
  in the morning".
- Sums: two or more durations and a question for the total ("altogether", "in total", "in
  all", "combined"): "3 hours 40 minutes on Monday and 2 hours 35 minutes on Tuesday, how long
  is that altogether?" is 6 hours 15 minutes. A question for one of them ("how long did I work
  on Tuesday?") is no sum.
- A clock time and one duration, asked when or at what time: forward when the question asks
  for an end ("when does it end / arrive / finish", read after the question word: "starts
  7:50pm ..., when dose it end") and the clock time is not one, back when it asks for a start
  ("when should I leave") and the clock time is an end ("be there at 9:00"). A direction said
  with the duration itself settles it: "be there 2 hours early / before / ahead" goes back,
  "2 hours later / after" forward, whatever the question's verb ("when should I arrive").
- A pace: a distance run in a time and a question for the pace ("5k run in 27:30. pace per km?":
  27:30 ÷ 5 = 5:30 per km); any other number in the message is some other problem.
- Two clock times and a question for how long: the time from the first to the second (past
  midnight when the second is earlier).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..values import mixed_numbers, words_to_digits

_PART = re.compile(r"(?<![\w.:])(?P<n>\d+(?:\.\d+)?|an?|one)\s*(?P<unit>hours?|hrs?|minutes?|mins?|seconds?|secs?)\b|"
                   r"(?<![\w.:])(?P<cn>\d+(?:\.\d+)?)(?P<cunit>h|m|min|s)\b|\b(?P<half>half\s+an?\s+hour)\b",
                   re.IGNORECASE)
_SECONDS = {"h": 3600, "hour": 3600, "hr": 3600, "m": 60, "min": 60, "minute": 60, "s": 1, "sec": 1, "second": 1}
# "in the morning" is am, "in the afternoon/evening", "at night" pm: "at 9 45 in the morning" (as
# "nine forty-five in the morning" is written in digits), "at 7 in the evening".
_PART_OF_DAY = r"(?:\s+(?:in\s+the\s+|at\s+)(?P<{name}>morning|afternoon|evening|night))"
_CLOCK = re.compile(r"\b(?P<h>\d{1,2}):(?P<m>\d{2})(?:\s*(?P<ap>[ap])(?:m\b|\.m\.))?|"
                    r"\b(?P<h2>\d{1,2})\s*(?P<ap2>[ap])(?:m\b|\.m\.)|"
                    r"\bat\s+(?P<h4>\d{1,2})\s+(?P<m4>[0-5]\d)(?:" + _PART_OF_DAY.format(name="day4")
                    + r"|(?=\s*(?:[,.;!?]|and\b|$)))|"
                    r"\bat\s+(?P<h3>\d{1,2})(?:\s*o'?clock)?" + _PART_OF_DAY.format(name="day3") + "?"
                    r"(?=\s*(?:[,.;!?]|and\b|$))", re.IGNORECASE)
_PM_PARTS = frozenset({"afternoon", "evening", "night"})
_TOTAL = re.compile(r"\b(?:altogether|all\s+together|in\s+total|total|in\s+all|combined|together|overall|sum)\b",
                    re.IGNORECASE)
_ASKS_TIME = re.compile(r"\b(?:when|what\s+time)\b", re.IGNORECASE)
_ASKS_LENGTH = re.compile(r"\bhow\s+(?:long|much\s+time|many\s+(?:hours|minutes))\b", re.IGNORECASE)
_COMPACT = re.compile(r"\b(\d{1,2})h([0-5]\d)\b", re.IGNORECASE)
_END = re.compile(r"\b(?:ends?|ending|finish(?:es|ed)?|over|done|arrives?|arrival|lands?|get\s+(?:there|back|home|in)|"
                  r"be\s+(?:there|back|home|ready)|due|ready|out)\b", re.IGNORECASE)
_START = re.compile(r"\b(?:starts?|begins?|leaves?|leave|depart(?:s|ure)?|set\s+off|take\s+off|opens?|kick\s+off|"
                    r"put\s+(?:it\s+)?in|go|get\s+up|wake\s+up)\b", re.IGNORECASE)
# A pace: a distance run in a time ("5k run in 27:30", "10 km in 52:10", "a half marathon ...
# in 1:55:00" is no distance written) and a question for the pace ("pace per km?", "what's my pace").
_RUN = re.compile(r"(?<![\w.])(?P<d>\d+(?:\.\d+)?)\s*(?P<unit>k|km|kms|kilomet(?:er|re)s?|mi|miles?)\b"
                  r"[^.?!\d]{0,30}?\bin\s+(?P<t>(?:\d{1,2}:)?\d{1,3}:[0-5]\d)\b", re.IGNORECASE)
_ASKS_PACE = re.compile(r"\bpace\b|\b(?:how\s+long|time|minutes)\s+(?:per|a|each|for\s+each)\s+(?:k|km|mile)\b",
                        re.IGNORECASE)
# A direction said right after a duration: "2 hours early", "45 minutes before", "an hour later".
_DIRECTION = re.compile(r"\s*(?:(?P<back>early|earlier|before(?:hand)?|ahead(?:\s+of\s+time)?|in\s+advance|prior)|"
                        r"(?P<on>later|after(?:wards)?))\b", re.IGNORECASE)
_SENTENCE = re.compile(r"[^.?!]*[.?!]?")
DAY = 24 * 3600


@dataclass(frozen=True)
class Clock:
    seconds: int  # from midnight
    text: str  # as written
    style: str  # "12" (am/pm), "24" (19:45) or "bare" (at 9)
    start: int  # where it is in the text


@dataclass(frozen=True)
class Duration:
    seconds: float
    text: str
    start: int


@dataclass(frozen=True)
class TimeAnswer:
    """An exact answer about times: the answer as said, the reading, and its value in seconds."""

    answer: str
    reading: str
    seconds: float


def durations(text: str) -> list[Duration]:
    """The durations in `text`, each of one or more parts in falling units."""
    found: list[Duration] = []
    last_end, last_unit = -1, 0
    for match in _PART.finditer(text):
        seconds, unit = _part_seconds(match)
        joined = found and re.fullmatch(r"\s*(?:,|and)?\s*", text[last_end:match.start()], re.IGNORECASE)
        if joined and unit < last_unit:
            previous = found.pop()
            found.append(Duration(previous.seconds + seconds, text[previous.start:match.end()], previous.start))
        else:
            found.append(Duration(seconds, match.group(), match.start()))
        last_end, last_unit = match.end(), unit
    return found


def _part_seconds(match: re.Match[str]) -> tuple[float, int]:
    """A duration part's length in seconds, and the size of its unit."""
    if match["half"]:
        return 1800.0, 60
    count = match["n"] or match["cn"]
    word = (match["unit"] or match["cunit"]).lower().rstrip("s") or "s"
    unit = _SECONDS.get(word, _SECONDS.get(word[:3], 1))
    amount = 1.0 if count.lower() in ("a", "an", "one") else float(count)
    return amount * unit, unit


def clocks(text: str) -> list[Clock]:
    found = []
    for match in _CLOCK.finditer(text):
        hour = int(match["h"] or match["h2"] or match["h3"] or match["h4"])
        minute = int(match["m"] or match["m4"] or 0)
        part = (match["day3"] or match["day4"] or "").lower()
        half = (match["ap"] or match["ap2"] or "").lower() or ("p" if part in _PM_PARTS else "a" if part else "")
        if hour > 23 or minute > 59 or (half and not 1 <= hour <= 12):
            continue
        if half:
            hour = hour % 12 + (12 if half == "p" else 0)
        style = "12" if half else "24" if match["h"] or match["h4"] else "bare"
        found.append(Clock((hour * 60 + minute) * 60, match.group().strip(), style, match.start()))
    return found


def duration_text(seconds: float) -> str:
    """"6 hours 15 minutes", "45 minutes", "1 hour", "2 minutes 30 seconds"."""
    whole = round(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{value} {name}{'' if value == 1 else 's'}"
             for value, name in ((hours, "hour"), (minutes, "minute"), (secs, "second")) if value]
    return " ".join(parts) or "0 minutes"


def clock_text(seconds: int, style: str) -> str:
    """A time of day as the question wrote its own ("10:05 pm", "22:05"), a day later or
    earlier said so."""
    day, within = divmod(seconds, DAY)
    hour, minute = divmod(within // 60, 60)
    if style == "12":
        said = f"{hour % 12 or 12}:{minute:02d} {'am' if hour < 12 else 'pm'}"
    else:
        said = f"{hour:02d}:{minute:02d}" if style == "24" else f"{hour}:{minute:02d}"
    return said + (" the next day" if day > 0 else " the day before" if day < 0 else "")


def _question(text: str) -> str:
    """The sentence that asks: the last one with a question mark or a question word."""
    sentences = [s for s in _SENTENCE.findall(text) if s.strip()]
    asked = [s for s in sentences if "?" in s or _ASKS_TIME.search(s) or _ASKS_LENGTH.search(s)]
    return (asked or sentences or [""])[-1]


def _sum(text: str, found: list[Duration], question: str) -> TimeAnswer | None:
    if len(found) < 2 or not _TOTAL.search(question):
        return None
    total = sum(d.seconds for d in found)
    minutes = f" ({total / 60:g} minutes)" if total >= 3600 and total % 60 == 0 else ""
    return TimeAnswer(f"{duration_text(total)}{minutes}", " + ".join(d.text for d in found), total)


def _shifted(text: str, clock: Clock, duration: Duration, question: str) -> TimeAnswer | None:
    """A clock time moved by a duration, forward to an end or back to a start."""
    if (asked := _ASKS_TIME.search(question)) is None:
        return None
    question = question[asked.start():]  # "movie starts 7:50pm ..., when dose it end": the end is asked
    before = text[max(0, clock.start - 30):clock.start]
    before = re.split(r"[.?!,;]|\band\b", before)[-1]
    asks_end, asks_start = _END.search(question) is not None, _START.search(question) is not None
    clock_ends = _END.search(before) is not None
    direction = _DIRECTION.match(text, duration.start + len(duration.text))
    if direction is not None:  # "be there 2 hours early": the duration says which way
        sign, said = (-1, "-") if direction["back"] else (1, "+")
    elif asks_end and not asks_start and not clock_ends:
        sign, said = 1, "+"
    elif asks_start and not asks_end and clock_ends:
        sign, said = -1, "-"
    else:
        return None
    moved = clock.seconds + sign * round(duration.seconds)
    return TimeAnswer(clock_text(moved, clock.style), f"{clock.text} {said} {duration.text}", moved)


def _between(first: Clock, second: Clock, question: str) -> TimeAnswer | None:
    if not _ASKS_LENGTH.search(question):
        return None
    length = (second.seconds - first.seconds) % DAY
    return TimeAnswer(duration_text(length), f"from {first.text} to {second.text}", length)


def read_times(message: str) -> TimeAnswer | None:
    """The exact answer of a question about durations and clock times, or None when the
    message is not one of the module's forms."""
    text = _halves(mixed_numbers(words_to_digits(message)))  # a lone "one" stays a word: "the second one"
    text = _COMPACT.sub(r"\1h \2m", text)  # "1h35" is 1 hour 35 minutes
    if (pace := _pace(text)) is not None:
        return pace
    question = _question(text)
    if not (_ASKS_TIME.search(question) or _ASKS_LENGTH.search(question) or _TOTAL.search(question)):
        return None
    found, times = durations(text), clocks(text)
    if re.search(r"\d", _without(text, found, times)):
        return None  # a number neither a duration nor a clock time: some other problem
    if not times:
        return _sum(text, found, question)
    if len(times) == 1 and len(found) == 1:
        return _shifted(text, times[0], found[0], question)
    if len(times) == 2 and not found:
        return _between(times[0], times[1], question)
    return None


_AND_A_HALF = re.compile(r"\b(an?|one|\d+)\s+(hours?|hrs?|minutes?|mins?)\s+and\s+a\s+half\b", re.IGNORECASE)


def _halves(text: str) -> str:
    """"an hour and a half" as 1.5 hours ("2 and a half hours" is 2.5 already: mixed_numbers)."""
    def half_more(match: re.Match[str]) -> str:
        count = 1.0 if match[1].lower() in ("a", "an", "one") else float(match[1])
        unit = match[2] if match[2].lower().endswith("s") else match[2] + "s"
        return f"{count + 0.5:g} {unit}"
    return _AND_A_HALF.sub(half_more, text)


def _pace(text: str) -> TimeAnswer | None:
    """A distance run in a time, asked for the pace: the time per unit of distance, as minutes
    and seconds ("5k run in 27:30. pace per km?": 5:30 per km)."""
    runs = list(_RUN.finditer(text))
    if len(runs) != 1 or not _ASKS_PACE.search(text[runs[0].end():]) or float(runs[0]["d"]) == 0:
        return None
    run = runs[0]
    if len(re.findall(r"\d+(?:\.\d+)?", _RUN.sub(" ", text))) > 0:
        return None  # a number besides the distance and the time: some other problem
    parts = [int(part) for part in run["t"].split(":")]
    seconds = sum(part * 60 ** at for at, part in enumerate(reversed(parts)))
    per = seconds / float(run["d"])
    unit = "mile" if run["unit"].lower().startswith("mi") else "km"
    minutes, rest = divmod(round(per), 60)
    return TimeAnswer(f"{minutes}:{rest:02d} per {unit}", f"{run['t']} ÷ {run['d']} {unit}", per)


def _without(text: str, found: list[Duration], times: list[Clock]) -> str:
    """`text` with its durations and clock times cut out."""
    spans = sorted([(d.start, d.start + len(d.text)) for d in found]
                   + [(c.start, c.start + len(c.text)) for c in times])
    kept, at = [], 0
    for start, end in spans:
        kept.append(text[at:start])
        at = max(at, end)
    return "".join(kept) + text[at:]
