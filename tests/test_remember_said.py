"""`MemoryService.remember_said`: a statement remembered the way a chat remembers a message
(the distiller's gate and rules, the save policy's refresh and correction rules), with the
stated provenance; MCP's `remember` is built on it. The distiller here has no model (rules,
and the user's words in the third person), on the product's own embedder."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from local_agent.config import CHECKOUT_MODELS_DIR
from local_agent.errors import InputError
from local_agent.memory.distill.distiller import Distiller
from local_agent.memory.index.gguf_embedder import memory_embedder
from local_agent.memory.service import MemoryService, stated_provenance
from local_agent.memory.store import MemoryStore
from local_agent.memory.store.records import MAX_FACT_CHARS

MOMENT = dt.datetime(2026, 3, 11, 9, 30)


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
    return MemoryService(own_store, data_dir, clock=lambda: MOMENT, settle=lambda: settled.append("settled"))


@pytest.fixture
def distiller(gguf_embedder) -> Distiller:
    return Distiller(None, gguf_embedder)


def test_a_statement_becomes_a_fact_with_the_stated_provenance(memory: MemoryService, distiller: Distiller,
                                                               settled: list[str]) -> None:
    result = memory.remember_said("  I live in\tLisbon. ", distiller, via="mcp")
    assert result.gate == "durable statement" and result.refused == ()
    (saved,) = result.saved
    assert saved.action == "added" and saved.record.text == "The user lives in Lisbon."
    assert saved.record.key == ("user", "home city")
    assert saved.record.provenance == stated_provenance("I live in Lisbon.", MOMENT, via="mcp")
    assert saved.record.decision["route"] == "rule" and saved.record.decision["valid_json"] is None
    assert settled == ["settled"]  # the chat's memory work is waited for first


@pytest.mark.parametrize(("text", "gate"), [
    ("What time is it in Lisbon?", "a question"),
    ("Please write me a poem.", "a request to the assistant"),
    ("I'm so glad you liked it!", "only passing remarks"),
    ("The user prefers tabs over spaces.", "no first-person statement"),
])
def test_what_the_gate_refuses_is_not_stored_and_says_why(memory: MemoryService, distiller: Distiller,
                                                          text: str, gate: str) -> None:
    result = memory.remember_said(text, distiller, via="mcp")
    assert (result.saved, result.refused, result.gate) == ((), (), gate)
    assert memory.records(None) == []


def test_a_fact_said_again_is_refreshed_not_copied(memory: MemoryService, distiller: Distiller) -> None:
    first = memory.remember_said("I play the cello.", distiller, via="mcp").saved[0]
    again = memory.remember_said("I play the cello.", distiller, via="mcp").saved[0]
    assert again.action == "refreshed" and again.record.id == first.record.id
    assert [r.text for r in memory.records("fact")] == ["The user plays the cello."]


def test_a_correction_supersedes_the_fact_it_corrects(memory: MemoryService, distiller: Distiller) -> None:
    lisbon = memory.remember_said("I live in Lisbon.", distiller, via="mcp").saved[0].record
    (porto,) = memory.remember_said("Actually, I live in Porto now.", distiller, via="mcp").saved
    assert porto.action == "superseded" and porto.previous is not None and porto.previous.id == lisbon.id
    assert [r.text for r in memory.records("fact")] == ["The user lives in Porto now."]
    assert memory.show(porto.record.id).previous == memory.show(lisbon.id).record  # kept, out of recall
    assert all(hit.record.id != lisbon.id for hit in memory.search("where does the user live"))


def test_a_new_name_replaces_the_old_one_even_after_a_correction(memory: MemoryService, distiller: Distiller) -> None:
    memory.remember_said("No, my name is Alexa.", distiller, via="mcp")
    (saved,) = memory.remember_said("My name is Ana.", distiller, via="mcp").saved
    assert saved.action == "superseded" and saved.previous is not None
    assert saved.previous.text == "The user's name is Alexa."


def test_one_statement_can_give_several_facts(memory: MemoryService, distiller: Distiller) -> None:
    result = memory.remember_said("My sister Aiko lives in Kyoto and I work night shifts.", distiller, via="mcp")
    assert sorted(item.record.text for item in result.saved) == ["The user works night shifts.",
                                                                 "The user's sister Aiko lives in Kyoto."]
    assert {item.record.provenance.source_text for item in result.saved} == {
        "My sister Aiko lives in Kyoto and I work night shifts."}


@pytest.mark.parametrize("text", ["", "   ", "x" * (MAX_FACT_CHARS + 1)])
def test_empty_or_overlong_text_is_refused_before_anything_runs(memory: MemoryService, distiller: Distiller,
                                                               settled: list[str], text: str) -> None:
    with pytest.raises(InputError):
        memory.remember_said(text, distiller, via="mcp")
    assert settled == [] and memory.records(None) == []
