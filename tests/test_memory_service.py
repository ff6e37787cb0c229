"""The memory service (memory/service.py): one way to remember, correct, forget, forget all,
import and export, whatever front end asks (tests/test_memory_front_ends.py: each uses it)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from local_agent.config import CHECKOUT_MODELS_DIR
from local_agent.errors import InputError, NotFoundError
from local_agent.memory.index.gguf_embedder import memory_embedder
from local_agent.memory.service import MemoryService, stated_provenance
from local_agent.memory.sessions import Session, SessionStore, Turn
from local_agent.memory.store import MemoryStore
from local_agent.memory.store.datadir import claim_data_dir
from local_agent.memory.store.records import MAX_FACT_CHARS
from local_agent.types import Provenance

MOMENT = dt.datetime(2026, 3, 11, 9, 30)
SAID = "My sister Aiko lives in Kyoto."


@pytest.fixture(scope="module")
def gguf_embedder():  # the product's own embedder, on llama.cpp
    return memory_embedder(CHECKOUT_MODELS_DIR, "cpu")


@pytest.fixture
def own_store(data_dir: Path, gguf_embedder) -> Iterator[MemoryStore]:
    with MemoryStore.open(data_dir, gguf_embedder) as store:
        yield store


@pytest.fixture
def settled() -> list[str]:
    return []


@pytest.fixture
def memory(own_store: MemoryStore, data_dir: Path, settled: list[str]) -> MemoryService:
    """A service over a fresh store, its clock at MOMENT; `settled` records each settle."""
    return MemoryService(own_store, data_dir, clock=lambda: MOMENT, settle=lambda: settled.append("settled"))


# -- the service ------------------------------------------------------------------------------

def test_remember_stores_the_stated_provenance_dated_by_the_clock(memory: MemoryService, settled: list[str]) -> None:
    saved = memory.remember("  I keep\tbees.  ", via="test", session="s1")
    assert saved.action == "added" and saved.previous is None
    assert saved.record.text == "I keep bees." and saved.record.kind == "fact"
    assert saved.record.provenance == stated_provenance("I keep bees.", MOMENT, via="test", session="s1")
    assert saved.record.provenance.to_dict() == {"session": "s1", "role": "user", "source_text": "I keep bees.",
                                                 "date": "2026-03-11T09:30", "via": "test"}
    assert saved.record.decision == {"route": "user"}
    assert settled == ["settled"]  # the chat's memory work is waited for first


@pytest.mark.parametrize("text", ["", "   \n ", "x" * (MAX_FACT_CHARS + 1)], ids=["empty", "blank", "long"])
def test_remember_refuses_what_is_no_fact(memory: MemoryService, text: str) -> None:
    with pytest.raises(InputError):
        memory.remember(text, via="test")
    assert memory.records(None) == []


@pytest.mark.parametrize("control", ["\x00", "\x07", "\x1b", "\x7f", "\x9b"])
def test_a_control_character_is_refused_in_every_write(memory: MemoryService, control: str) -> None:
    """Only tab and newline (and the other whitespace, made one space) may be in a memory."""
    text = f"I keep{control} bees."
    no_distiller = cast(Any, None)  # refused before the distiller is asked
    for write in (lambda: memory.remember(text, via="test"),
                  lambda: memory.remember_said(text, no_distiller, via="test")):
        with pytest.raises(InputError, match="control character") as refused:
            write()
        assert text not in str(refused.value)
    kept = memory.remember("I keep bees.", via="test").record
    with pytest.raises(InputError, match="control character"):
        memory.correct(kept.id, text, via="test")
    assert [record.text for record in memory.records(None)] == ["I keep bees."]
    assert memory.remember("I keep\tbees\nand goats.", via="test").record.text == "I keep bees and goats."


def test_correct_supersedes_and_keeps_the_key(memory: MemoryService) -> None:
    store_record = memory.remember("I live in Lisbon.", via="test").record
    saved = memory.correct(store_record.id[:6], "I live in Porto.", via="test")
    assert saved.action == "superseded" and saved.previous is not None and saved.previous.id == store_record.id
    assert saved.record.supersedes == store_record.id
    assert [r.text for r in memory.records("fact")] == ["I live in Porto."]
    shown = memory.show(saved.record.id)
    assert shown.previous is not None and shown.previous.id == store_record.id and not shown.previous.active
    with pytest.raises(InputError, match="already replaced"):
        memory.correct(store_record.id, "I live in Faro.", via="test")


def test_newest_first_with_a_limit(memory: MemoryService) -> None:
    for text in ("First fact.", "Second fact.", "Third fact."):
        memory.remember(text, via="test")
    assert [r.text for r in memory.newest("fact", limit=2)] == ["Third fact.", "Second fact."]
    assert [r.text for r in memory.records("fact")] == ["First fact.", "Second fact.", "Third fact."]
    with pytest.raises(InputError):
        memory.records("feelings")


def _said_in_a_session(store: MemoryStore, data_dir: Path) -> str:
    """A chat session that holds SAID, its turn memory, and a fact made from it; the fact's id."""
    SessionStore(data_dir).save(Session(name="s1", turns=[Turn("user", SAID), Turn("assistant", "Noted.")]))
    where = Provenance(session="s1", turn_index=0, role="user", source_text=SAID, date="2026-03-10T10:00")
    store.add(SAID, "turn", provenance=where)
    return store.add("The user's sister Aiko lives in Kyoto.", "fact", provenance=where).id


def test_trace_and_forget_with_source(memory: MemoryService, own_store: MemoryStore, data_dir: Path) -> None:
    fact = _said_in_a_session(own_store, data_dir)
    traced = memory.trace(fact)
    assert traced.messages == (("s1", 0),) and [t.text for t in traced.origin.turns] == [SAID]
    forgotten = memory.forget(fact, with_source=True)
    assert forgotten.record.id == fact and [t.text for t in forgotten.turns] == [SAID]
    assert forgotten.sessions_edited == ("s1",)
    assert SessionStore(data_dir).load("s1").turns == []
    assert memory.records(None) == []


def test_forget_without_source_leaves_the_message(memory: MemoryService, own_store: MemoryStore,
                                                  data_dir: Path) -> None:
    fact = _said_in_a_session(own_store, data_dir)
    forgotten = memory.forget(fact)
    assert forgotten.record.id == fact and forgotten.turns == () and forgotten.sessions_edited == ()
    assert [t.content for t in SessionStore(data_dir).load("s1").turns] == [SAID, "Noted."]
    assert [r.text for r in memory.records(None)] == [SAID]
    with pytest.raises(NotFoundError):
        memory.forget(fact)


def test_delete_session_keeps_or_forgets_what_it_taught(memory: MemoryService, own_store: MemoryStore,
                                                        data_dir: Path) -> None:
    fact = _said_in_a_session(own_store, data_dir)
    elsewhere = Provenance(session="s2", role="user", source_text="I like tea.")
    SessionStore(data_dir).save(Session(name="s2", turns=[Turn("user", "I like tea."), Turn("assistant", "Ok.")]))
    kept = own_store.add("The user likes tea.", "fact", provenance=elsewhere).id
    deleted = memory.delete_session("s2")
    assert deleted.forgotten == () and not SessionStore(data_dir).exists("s2")
    assert [r.id for r in memory.records("fact")] == [fact, kept]  # plain delete: what it taught stays

    deleted = memory.delete_session("s1", forget_taught=True)
    assert {r.id for r in deleted.forgotten} >= {fact} and SAID in [r.text for r in deleted.forgotten]
    assert not SessionStore(data_dir).exists("s1")
    assert [r.id for r in memory.records(None)] == [kept]
    assert not [path for path in data_dir.rglob("*") if path.is_file() and b"Aiko" in path.read_bytes()]
    with pytest.raises(NotFoundError):
        memory.delete_session("s1")


def test_forget_all_clears_the_namespaces_too(memory: MemoryService, data_dir: Path, gguf_embedder) -> None:
    memory.remember("I keep bees.", via="test")
    namespace = claim_data_dir(data_dir / "users" / "bob")
    with MemoryStore.open(namespace, gguf_embedder) as other:
        other.add("Bob keeps goats.", "fact")
    cleared = memory.forget_all()
    assert cleared.namespaces == (namespace,)
    assert memory.records(None) == []
    with MemoryStore.open(namespace, gguf_embedder) as other:
        assert other.records(None) == []


def test_export_and_import(memory: MemoryService, tmp_path: Path, gguf_embedder) -> None:
    memory.remember("I keep bees.", via="test")
    memory.correct(memory.records()[0].id, "I keep wasps.", via="test")
    exported = memory.export(tmp_path / "out.json")
    assert exported.records == 2 and json.loads(exported.path.read_text())["records"]
    with MemoryStore.open(tmp_path / "elsewhere", gguf_embedder) as store:
        elsewhere = MemoryService(store, tmp_path / "elsewhere", clock=lambda: MOMENT)
        assert elsewhere.import_file(exported.path).added == 2
        assert elsewhere.import_file(exported.path).added == 0  # what is stored is skipped
        assert [r.text for r in elsewhere.records()] == ["I keep wasps."]
    with pytest.raises(NotFoundError):
        memory.import_file(tmp_path / "missing.json")
    (tmp_path / "notes.json").write_text('{"some": "notes"}')
    with pytest.raises(InputError, match="not a local-agent memory export"):
        memory.import_file(tmp_path / "notes.json")
