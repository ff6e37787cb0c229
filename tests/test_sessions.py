import json
import os
import stat

import pytest

from local_agent.errors import InputError, NotFoundError, StoreCorruptError
from local_agent.memory.sessions import Session, SessionStore, Turn


def test_round_trip_and_private_files(tmp_path):
    store = SessionStore(tmp_path)
    session = Session(name="work")
    session.turns += [Turn("user", "hi"), Turn("assistant", "hello")]
    session.summary = "- greeted"
    store.save(session)
    loaded = store.load("work")
    assert [t.content for t in loaded.turns] == ["hi", "hello"]
    assert loaded.summary == "- greeted"
    assert stat.S_IMODE(os.stat(store.path("work")).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.folder).st_mode) == 0o700
    assert [s.name for s in store.list()] == ["work"]


def test_names_validated_and_missing_session(tmp_path):
    store = SessionStore(tmp_path)
    with pytest.raises(InputError):
        store.load_or_create("../escape")
    with pytest.raises(NotFoundError):
        store.load("nope")


def test_damaged_session_file_named(tmp_path):
    store = SessionStore(tmp_path)
    store.save(Session(name="s"))
    store.path("s").write_text("{not json")
    with pytest.raises(StoreCorruptError, match=r"s\.json"):
        store.load("s")


def test_a_title_is_kept_by_saves_that_read_the_file_before_it(tmp_path):
    store = SessionStore(tmp_path)
    open_chat = store.load_or_create("s")
    open_chat.turns.append(Turn("user", "hi"))
    store.save(open_chat)  # a chat holds the session open
    assert store.set_title("s", "  Trip\tplans ").title == "Trip plans"
    open_chat.turns.append(Turn("assistant", "hello"))
    store.save(open_chat)  # it read the file before the title: the title stays
    assert store.load("s").title == "Trip plans" and len(store.load("s").turns) == 2
    assert store.set_title("s", "").title == "" and "title" not in json.loads(store.path("s").read_text())
    with pytest.raises(InputError):
        store.set_title("s", "x" * 121)
    with pytest.raises(NotFoundError):
        store.set_title("nope", "x")


def test_delete_one_session(tmp_path):
    store = SessionStore(tmp_path)
    store.save(Session(name="a", turns=[Turn("user", "hi")]))
    store.save(Session(name="b", turns=[Turn("user", "hey")]))
    store.delete("a")
    assert [s.name for s in store.list()] == ["b"]
    with pytest.raises(NotFoundError):
        store.delete("a")
