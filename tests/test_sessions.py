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
