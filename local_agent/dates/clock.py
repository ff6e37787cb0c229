"""The agent's today: the real clock, or a fixed moment set with `--today` (LOCAL_AGENT_TODAY,
`today` in config.toml, a batch line's `date`), written `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`.

Everything that reads today (the system prompt, the dates memories are stored with, digests,
reading dates in a question) asks this module, so one setting moves them all.
"""

from __future__ import annotations

import datetime as dt
import re

from ..errors import ConfigError

_FORMAT = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?")


def parse_today(text: str, source: str = "--today") -> dt.datetime:
    """`text` as a moment; a ConfigError names `source` when it is no such date."""
    value = text.strip()
    if not _FORMAT.fullmatch(value):
        raise ConfigError(f"{source}: {text!r} is not a date (write YYYY-MM-DD or YYYY-MM-DDTHH:MM)")
    try:
        return dt.datetime.fromisoformat(value.replace(" ", "T"))
    except ValueError:
        raise ConfigError(f"{source}: {text!r} is not a real date (write YYYY-MM-DD or YYYY-MM-DDTHH:MM)") from None


def now(fixed: str = "") -> dt.datetime:
    """The moment the agent lives in: `fixed` when set (at noon for a bare day), else the clock."""
    if not fixed.strip():
        return dt.datetime.now().replace(second=0, microsecond=0)
    moment = parse_today(fixed)
    if len(fixed.strip()) == 10:
        return moment.replace(hour=12)
    return moment


def stamp(moment: dt.datetime) -> str:
    """How a stored memory is dated: `YYYY-MM-DDTHH:MM`."""
    return moment.strftime("%Y-%m-%dT%H:%M")


def spoken_date(stamp: str, *, weekday: bool = False) -> str:
    """An ISO date or moment in words ("2024-05-20T09:30" -> "20 May 2024", with `weekday`
    "Monday, 20 May 2024"): the default model reads dates right from words and a day off from
    the ISO form. Other text as it is."""
    try:
        day = dt.date.fromisoformat(stamp[:10])
    except ValueError:
        return stamp
    words = f"{day.day} {day:%B %Y}"
    return f"{day:%A}, {words}" if weekday else words
