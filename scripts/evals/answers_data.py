"""The answer-accuracy dev set built from LoCoMo: dated histories to import, and a seeded sample
of questions with gold answers, evidence ids and the keywords a correct answer must contain.

Each LoCoMo conversation becomes one import file in our JSON Lines format (`chat_import`):
speaker_a is the user, speaker_b the assistant, one import session per LoCoMo session, every
message dated with its session's `session_N_date_time`. A message's content starts with its
speaker's name ("Caroline: I went to a support group yesterday"): LoCoMo's questions name both
people ("What did Melanie paint?"), so the names must be in the text for recall to match them
and for the model to tell who did what; a plain "Name: " prefix is how LoCoMo transcripts are
usually rendered and leaves the message's own words intact after it. Each history's `today` is
the day after its last session, so the whole history lies in the past.

The sample is stratified by category and balanced: 300 questions split as evenly as the
categories allow (open-domain has fewer than its share, the others make up the rest), because
accuracy is reported per category and a proportional sample would leave open-domain with
about 18 questions. Categories: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop
(5, adversarial, has no gold answer and is left out).
"""

from __future__ import annotations

import json
import random
import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from local_agent.errors import InputError

from .locomo import normalize_evidence

SAMPLE_SIZE = 300
SEED = 13
CATEGORIES = (1, 2, 3, 4)
_SESSION_DATE = re.compile(r"\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*",
                           re.IGNORECASE)
_STOPWORDS = frozenset("""
a an the and or but nor of to in on at for with by from as into onto about over under after before
is are was were be been being am do does did done has have had having will would shall should can could
it its it's this that these those there here he she they them his her hers their theirs him i me my mine
we us our ours you your yours who whom whose which what when where why how than then too very just also
so such some any each both all either neither own same other since because while if
""".split())
_NUMBER_WORDS = {word: str(n) for n, word in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty".split())}

_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH_SHORT = {month[:3]: month for month in _MONTHS if month != "may"} | {"sept": "september"}
_ISO_DATE = re.compile(r"\b(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b")
_YEAR = re.compile(r"(19|20)\d\d")


@dataclass(frozen=True)
class AnswerQuestion:
    sample_id: str
    question: str
    answer: str
    category: int
    evidence: tuple[str, ...]  # dia ids such as "D1:3", all naming turns of the history
    keywords: tuple[str, ...]


@dataclass(frozen=True)
class History:
    """One LoCoMo conversation as import records (dicts in the JSON Lines format), in order."""

    sample_id: str
    user: str
    assistant: str
    records: tuple[dict[str, str], ...]
    dia_ids: tuple[str, ...]  # the LoCoMo turn each record came from
    today: datetime

    def jsonl(self) -> str:
        return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in self.records)

    def evidence(self, ids: tuple[str, ...] | list[str]) -> list[str]:
        """The evidence turns as dated lines ("(8 May 2023) Caroline: ..."), for pasting into a
        question to measure the model's ceiling."""
        index = dict(zip(self.dia_ids, self.records, strict=True))
        return [f"({_spoken(index[ident]['date'])}) {index[ident]['content']}" for ident in ids if ident in index]


@dataclass(frozen=True)
class AnswerSet:
    histories: tuple[History, ...]
    questions: tuple[AnswerQuestion, ...]


def build_answer_set(path: Path, *, size: int = SAMPLE_SIZE, seed: int = SEED) -> AnswerSet:
    """The histories of every conversation in a LoCoMo file and the seeded sample of questions."""
    items = _load(Path(path))
    histories, candidates = [], []
    for number, item in enumerate(items, 1):
        try:
            history = _history(item)
            candidates += _questions(item, history)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{path}: conversation {number} is not in LoCoMo's shape ({exc!r})") from None
        histories.append(history)
    return AnswerSet(tuple(histories), tuple(sample_questions(candidates, size, seed)))


def parse_session_date(text: str) -> datetime:
    """LoCoMo's "1:56 pm on 8 May, 2023"; ValueError if it is not that."""
    match = _SESSION_DATE.fullmatch(text)
    if match is None:
        raise ValueError(f"not a LoCoMo session date: {text!r}")
    hour, minute, half, day, month, year = match.groups()
    try:  # the right shape with an impossible value: 13 pm, 31 February
        return datetime.strptime(f"{day} {month[:3]} {year} {hour}:{minute} {half.upper()}", "%d %b %Y %I:%M %p")
    except ValueError:
        raise ValueError(f"not a LoCoMo session date: {text!r}") from None


def sample_questions(questions: list[AnswerQuestion], size: int, seed: int) -> list[AnswerQuestion]:
    """`size` questions, as evenly split over the categories as their counts allow, each
    category's share drawn with a seeded generator; returned in the file's order."""
    by_category: dict[int, list[AnswerQuestion]] = {}
    for question in questions:
        by_category.setdefault(question.category, []).append(question)
    shares = _balanced_shares({category: len(items) for category, items in by_category.items()}, size)
    rng = random.Random(seed)
    chosen = {id(question) for category in sorted(by_category)
              for question in rng.sample(by_category[category], shares[category])}
    return [question for question in questions if id(question) in chosen]


def gold_keywords(answer: str) -> list[str]:
    """The gold answer's words a correct answer must all contain: lowercased, punctuation and
    possessives stripped, number words as digits, stopwords left out, each once."""
    return list(dict.fromkeys(word for word in _words(answer) if word not in _STOPWORDS))


def is_correct(answer_text: str, keywords: list[str] | tuple[str, ...]) -> bool:
    """Every keyword is a word of the answer (a plural matches its singular; words the gold
    answer runs together, "watchingmovies", match them apart). A year is not required of an
    answer that names the gold date's month and no year at all ("May 7" for "7 May 2023")."""
    if not keywords:
        return False
    words = _words(answer_text)
    said = {_stem(word) for word in words}
    said |= {_stem("".join(words[i:i + n])) for n in (2, 3) for i in range(len(words) - n + 1)}
    named_month = any(keyword in _MONTHS and keyword in said for keyword in keywords)
    no_year = not any(_YEAR.fullmatch(word) for word in words)
    return all(_stem(keyword) in said or (named_month and no_year and _YEAR.fullmatch(keyword) is not None)
               for keyword in keywords)


# -- building ----------------------------------------------------------------------------------


def _load(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{path}: not a JSON file ({exc})") from None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise InputError(f"{path}: expected a list of LoCoMo conversations")
    return data


def _history(item: dict[str, Any]) -> History:
    conversation = item["conversation"]
    user, assistant = str(conversation["speaker_a"]), str(conversation["speaker_b"])
    sample_id = str(item.get("sample_id", "conversation"))
    prefix = re.sub(r"[^A-Za-z0-9_.-]+", "-", sample_id).strip("-._")[:50] or "conversation"
    records, dia_ids, last = [], [], None
    number = 1
    while f"session_{number}" in conversation:
        date = parse_session_date(str(conversation[f"session_{number}_date_time"]))
        last = max(last or date, date)
        for turn in conversation[f"session_{number}"]:
            role = "user" if turn["speaker"] == user else "assistant"
            records.append({"session": f"{prefix}-s{number}", "role": role, "date": date.isoformat(timespec="minutes"),
                            "content": f"{turn['speaker']}: {_turn_text(turn)}"})
            ids = normalize_evidence([turn["dia_id"]])
            dia_ids.append(ids[0] if ids else str(turn["dia_id"]))
        number += 1
    if last is None:
        raise ValueError("no sessions")
    today = datetime(last.year, last.month, last.day) + timedelta(days=1)
    return History(sample_id, user, assistant, tuple(records), tuple(dia_ids), today)


def _turn_text(turn: dict[str, Any]) -> str:
    text = str(turn["text"]).strip()
    caption = str(turn.get("blip_caption") or "").strip()
    if not caption:
        return text
    shown = caption if caption.lower().startswith(("a photo", "an image", "a picture")) else f"a photo of {caption}"
    return f"{text} [shares {shown}]"


def _questions(item: dict[str, Any], history: History) -> list[AnswerQuestion]:
    known = set(history.dia_ids)
    questions = []
    for qa in item.get("qa", []):
        category, answer = int(qa["category"]), qa.get("answer")
        evidence = tuple(ident for ident in normalize_evidence(qa.get("evidence", [])) if ident in known)
        if category not in CATEGORIES or answer is None or not evidence:
            continue
        keywords = tuple(gold_keywords(str(answer)))
        if keywords:
            questions.append(AnswerQuestion(history.sample_id, str(qa["question"]), str(answer), category, evidence,
                                            keywords))
    return questions


def _balanced_shares(counts: dict[int, int], size: int) -> dict[int, int]:
    """Split `size` as evenly as possible; a category with too few gives its rest to the others
    (the first categories get one more when it does not divide)."""
    shares = dict.fromkeys(counts, 0)
    left = min(size, sum(counts.values()))
    while left:
        open_ = [category for category in sorted(counts) if shares[category] < counts[category]]
        step = max(1, left // len(open_))
        for category in open_:
            grant = min(step, counts[category] - shares[category], left)
            shares[category] += grant
            left -= grant
    return shares


# -- scoring -----------------------------------------------------------------------------------


def _words(text: str) -> list[str]:
    """Lowercased words: ISO dates spoken ("2023-05-07" -> "7 may 2023"), month abbreviations
    whole, possessives and ordinal suffixes off, number words as digits, hyphenated words joined."""
    text = _ISO_DATE.sub(lambda m: f" {int(m[3])} {_MONTHS[int(m[2]) - 1]} {m[1]} ", text)
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    plain = re.sub("['\u2019]s\\b", "", plain)  # possessives, straight or typographic
    plain = re.sub("['\u2019]", "", plain)
    plain = re.sub(r"\b(\d+)(?:st|nd|rd|th)\b", r"\1", plain)
    plain = re.sub(r"(?<=[a-z])-(?=[a-z])", "", plain)
    return [_NUMBER_WORDS.get(word, _MONTH_SHORT.get(word, word)) for word in re.findall(r"[a-z0-9]+", plain)]


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _spoken(iso: str) -> str:
    moment = datetime.fromisoformat(iso)
    return f"{moment.day} {moment:%B %Y}"
