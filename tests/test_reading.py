"""The reading room (local_agent/reading/): every form it recognizes, from one corpus of
messages and their expected readings (tests/data/reading_corpus.jsonl, one message a line:
`form` the form the row is about and `match` whether the message is one or a look-alike that
must not be; `intents` every intent read, as `Reading.labels()` writes them; `name` the name
introduced; `numbers` the numbers' keys; `dates` each date span as [words, kind, start, end]; `rounding`
the rounding instruction as [places, words]).
A form is added by adding its general pattern and corpus rows, one of each kind at least."""

import datetime as dt
import json
import sys
from pathlib import Path

import pytest

from local_agent.config import Settings
from local_agent.memory.distill.distiller import Distiller
from local_agent.memory.sessions import Session, SessionStore
from local_agent.memory.store import MemoryStore
from local_agent.reading import read
from local_agent.reading.clauses import split_clauses
from local_agent.reading.language import language_of
from local_agent.reading.read import FORMS
from local_agent.reading.words import MONTHS, NUMBER_WORDS, WEEKDAYS, compounds, words
from local_agent.turn.agent import Agent, MemoryParts
from tests.fakes import ScriptedBackend
from tests.reliability import HashEmbedder

NOW = dt.datetime(2026, 3, 11, 12, 0)  # a Wednesday
CORPUS = [json.loads(line) for line in
          (Path(__file__).parent / "data" / "reading_corpus.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("row", CORPUS, ids=[f"{row['form']}-{row['match']}-{n}" for n, row in enumerate(CORPUS)])
def test_the_reading_of_each_corpus_message(row):
    reading = read(row["message"], NOW)
    dates = [[span.text, span.kind, span.start.isoformat(), span.end.isoformat()] for span in reading.dates]
    assert reading.labels() == row["intents"]
    assert reading.introduced_name == row.get("name")
    assert [value.key for value in reading.numbers] == row.get("numbers", [])
    assert dates == row.get("dates", [])
    assert (reading.rounding and [reading.rounding.places, reading.rounding.text]) == row.get("rounding")
    found = {"numbers": bool(reading.numbers), "dates": bool(reading.dates),
             "rounding": reading.rounding is not None}.get(row["form"],
                                                                                 row["form"] in reading.labels())
    assert found is row["match"]


def test_every_form_has_a_message_and_a_look_alike_in_the_corpus():
    rows = {(row["form"], row["match"]) for row in CORPUS}
    assert [form for form in FORMS if (form, True) not in rows or (form, False) not in rows] == []
    assert {row["form"] for row in CORPUS} <= set(FORMS)


def test_each_intent_has_the_span_it_came_from():
    reading = read("Hi, I'm Sam. Who made you? Bye!", NOW)
    spans = {intent.kind: reading.text[slice(*intent.span)] for intent in reading.intents}
    assert spans["introduction"] == "Sam" and spans["about-assistant"] == "Who made you"
    correction = read("No, my name is Alexa.", NOW).intent("correction")
    assert correction is not None and correction.span == (0, 2)


def test_one_word_pattern_and_the_word_lists_from_package_data():
    assert words("I’m Jean-Luc, and I don't like 5km runs") == ["i'm", "jean", "luc", "and", "i", "don't", "like",
                                                             "5km", "runs"]
    assert [word for word, _, _ in compounds("Jean-Luc is well-known")] == ["Jean-Luc", "is", "well-known"]
    assert MONTHS[0] == "january" and len(MONTHS) == 12 and WEEKDAYS[6] == "sunday" and NUMBER_WORDS[11] == "twelve"


def test_a_turn_reads_its_message_once(tmp_path, monkeypatch):
    """The turn (and the memory work after it) splits the message into clauses and tells its
    language once; other texts (the reply, memories) are read on their own."""
    message = "Hi, I'm Dana. I keep bees in Lisbon and my dog is called Rex."
    calls = {"split_clauses": 0, "language_of": 0}

    def counting(name, original):
        def counted(text, *args, **kwargs):
            calls[name] += text == message
            return original(text, *args, **kwargs)
        return counted

    for name, original in (("split_clauses", split_clauses), ("language_of", language_of)):
        for module in [m for key, m in sys.modules.items() if key.startswith("local_agent")]:
            if getattr(module, name, None) is original:
                monkeypatch.setattr(module, name, counting(name, original))
    store = MemoryStore.open(tmp_path / "mem", HashEmbedder())
    sessions = SessionStore(tmp_path / "sessions")
    agent = Agent(ScriptedBackend(["Nice to meet you, Dana!"]), sessions, Session(name="s1"),
                  Settings(max_tokens=64, today="2026-03-11"), memory=MemoryParts(store, Distiller(None)))
    result = agent.respond(message)
    assert result.memory_work().error is None and result.memory_work().saved
    agent.close()
    assert calls == {"split_clauses": 1, "language_of": 1}


def test_no_word_pattern_or_reading_import_outside_the_room():
    """Word patterns live in reading/words.py only, and memory/index reads with the reading
    room's words, not with the distiller's (an import up the graph)."""
    package = Path(__file__).parents[1] / "local_agent"
    for path in package.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        if "reading" not in path.relative_to(package).parts:
            assert not any(line.startswith(("WORD = re.", "_WORD = re.", "_WORDS = re."))
                           for line in text.splitlines()), path
        if path.parent.name == "index":
            assert "distill" not in "".join(line for line in text.splitlines() if line.startswith("from ")), path
