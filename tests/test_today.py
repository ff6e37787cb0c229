"""--today: one setting for the agent's today, a batch line's own date, the dates memories keep."""

import datetime as dt

import pytest

from local_agent.config import Settings, load_settings
from local_agent.conversations.batch import parse_lines
from local_agent.dates.clock import now, parse_today
from local_agent.errors import ConfigError
from local_agent.memory.index.render import prompt_text
from local_agent.memory.passages import passages
from local_agent.memory.sessions import Session, SessionStore
from local_agent.memory.store import MemoryStore
from local_agent.turn.agent import Agent, MemoryParts
from tests.cli_helpers import error_line, run_main
from tests.fakes import ScriptedBackend
from tests.reliability import HashEmbedder


def test_today_forms_and_errors():
    assert parse_today("2024-05-02") == dt.datetime(2024, 5, 2)
    assert parse_today("2024-05-02T09:30") == dt.datetime(2024, 5, 2, 9, 30)
    assert now("2024-05-02") == dt.datetime(2024, 5, 2, 12)
    for bad in ["2024-13-01", "yesterday", "2024-5-2", "2024-05-02T25:00", "02/05/2024"]:
        with pytest.raises(ConfigError, match="--today"):
            parse_today(bad)


def test_today_from_flag_env_and_config(tmp_path, monkeypatch):
    monkeypatch.setenv("LOCAL_AGENT_CONFIG", str(tmp_path / "none.toml"))
    assert load_settings({}, {"LOCAL_AGENT_TODAY": "2024-05-02"}).today == "2024-05-02"
    assert load_settings({"today": "2024-06-01T08:00"}, {"LOCAL_AGENT_TODAY": "2024-05-02"}).today == "2024-06-01T08:00"
    with pytest.raises(ConfigError, match="LOCAL_AGENT_TODAY"):
        load_settings({}, {"LOCAL_AGENT_TODAY": "soon"})


def test_malformed_today_flag_is_one_error_line(tmp_path, capsys, monkeypatch):
    args = ["memory", "list", "--data-dir", str(tmp_path), "--today", "2024-02-30"]
    code, _, err = run_main(args, capsys, monkeypatch)
    assert code != 0 and "--today" in error_line(err) and "2024-02-30" in error_line(err)


def test_batch_line_date_is_checked():
    good, bad, wrong_type = parse_lines([b'{"input": "hi", "date": "2024-05-02T10:00"}',
                                         b'{"input": "hi", "date": "May 2nd"}', b'{"input": "hi", "date": 3}'],
                                        plain_text=False)
    assert good.error is None and good.today == "2024-05-02T10:00"
    assert bad.error is not None and "line 2: date" in bad.error
    assert wrong_type.error is not None and "'date' must be a string" in wrong_type.error


def test_turns_carry_the_set_today_and_both_sides(tmp_path):
    store = MemoryStore.open(tmp_path / "mem", HashEmbedder())
    backend = ScriptedBackend(["Try Dune by Frank Herbert. It is a classic. You will like it. Also read Hyperion."])
    settings = Settings(max_tokens=64, today="2024-05-02T09:30")
    agent = Agent(backend, SessionStore(tmp_path), Session(name="s1"), settings, memory=MemoryParts(store=store))
    try:
        result = agent.respond("Recommend me a book", today="2024-04-01")
        result.memory_work()
        assert "Today is Monday, 1 April 2024" in backend.prompts[-1][0].content
        turns = store.records(kind="turn")
        assert [t.provenance.role for t in turns] == ["user", "assistant", "assistant"]
        assert {t.provenance.date for t in turns} == {"2024-04-01T12:00"}
        assert prompt_text(turns[2]) == "- 1 April 2024, me: Also read Hyperion."
        assert agent.today() == "2024-05-02"  # the line's date was for that turn only
    finally:
        agent.close()
        store.close()


def test_passages_split_long_answers():
    text = "One. Two! Three? Four. " + "X" * 400 + ". Six."
    assert passages(text) == ["One. Two! Three?", "Four.", "X" * 400 + ".", "Six."]
    assert passages("") == []
