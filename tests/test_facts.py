"""The save policy, on the real store with the real embedder: a repeated fact is refreshed,
not copied; a fact with the same key and new content supersedes the old one."""

from __future__ import annotations

import pytest

from local_agent.memory.distill.saving import save_fact
from local_agent.memory.store import MemoryStore
from local_agent.types import FactCandidate, Provenance

PROVENANCE = Provenance(session="s1", turn_index=0, role="user")


def save(store: MemoryStore, text: str, key=None, route="rule", **decision):
    return save_fact(store, FactCandidate(text, route, key), provenance=PROVENANCE, decision=decision)


def test_new_fact_is_added_with_route_and_key(store: MemoryStore) -> None:
    outcome = save(store, "The user lives in Lisbon.", ("user", "home city"))
    assert outcome.action == "added" and outcome.previous is None
    record = store.get(outcome.record.id)
    assert record.kind == "fact" and record.key == ("user", "home city")
    assert record.decision["route"] == "rule" and record.provenance.session == "s1"


def test_repeated_fact_is_refreshed_not_copied(store: MemoryStore) -> None:
    first = save(store, "The user has two cats.")
    again = save(store, "The user has two cats.", route="model", raw_json='{"memories": []}')
    assert again.action == "refreshed"
    assert again.record.id == first.record.id
    assert len(store.records("fact")) == 1
    assert store.get(first.record.id).provenance.seen == 2


def test_same_key_new_content_supersedes(store: MemoryStore) -> None:
    old = save(store, "The user lives in Lisbon.", ("user", "home city"))
    new = save(store, "The user lives in Berlin now.", ("user", "home city"))
    assert new.action == "superseded"
    assert new.previous is not None and new.previous.id == old.record.id
    assert [r.text for r in store.records("fact")] == ["The user lives in Berlin now."]
    found = store.find_by_key(("user", "home city"))
    assert found is not None and found.id == new.record.id
    assert store.get(old.record.id).superseded_by == new.record.id


def test_unrelated_facts_without_key_are_both_added(store: MemoryStore) -> None:
    save(store, "The user likes jazz.")
    outcome = save(store, "The user works night shifts at a hospital.")
    assert outcome.action == "added"
    assert len(store.records("fact")) == 2


def test_rule_name_is_recorded_in_decision(store: MemoryStore) -> None:
    candidate = FactCandidate("The user's name is Alex.", "rule", ("user", "name"), rule="name")
    outcome = save_fact(store, candidate, provenance=PROVENANCE, decision={"valid_json": None})
    assert outcome.record.decision == {"valid_json": None, "route": "rule", "rule": "name"}


def test_threshold_must_be_a_similarity(store: MemoryStore) -> None:
    with pytest.raises(ValueError, match="duplicate_threshold"):
        save_fact(store, FactCandidate("The user likes tea.", "rule"), provenance=Provenance(), decision={},
                  duplicate_threshold=0.0)


def test_correction_markers() -> None:
    from local_agent.reading.corrections import is_correction

    for said in ["No, my name is Alexa", "Actually I moved to Porto", "that's wrong, I'm vegetarian now",
                 "Nope, I live in Porto", "Sorry, I meant Tuesday"]:
        assert is_correction(said), said
    for said in ["My name is Alexa", "I know nothing about it", "Is that actually true?"]:
        assert not is_correction(said), said


def test_a_correction_supersedes_the_fact_on_the_same_attribute_under_another_key(store: MemoryStore) -> None:
    old = save(store, "The user's name is Alex.", ("user", "name"))
    kept = save(store, "The user lives in Lisbon.", ("user", "home city"))
    fixed = save_fact(store, FactCandidate("The user's name is Alexa.", "rule", ("user", "first name")),
                      provenance=PROVENANCE, decision={}, correction=True)
    assert fixed.action == "superseded" and fixed.previous is not None and fixed.previous.id == old.record.id
    assert store.get(kept.record.id).active and not store.get(old.record.id).active
    plain = save(store, "The user's name is Alexandra.", ("user", "full name"))  # no marker: added beside
    assert plain.action == "added"


def test_an_older_statement_never_replaces_a_newer_fact(store: MemoryStore) -> None:
    newer = save_fact(store, FactCandidate("The user lives in Porto.", "rule", ("user", "home city")),
                      provenance=Provenance(session="b", role="user", date="2024-05-02"), decision={})
    older = save_fact(store, FactCandidate("The user lives in Lisbon.", "rule", ("user", "home city")),
                      provenance=Provenance(session="a", role="user", date="2023-01-10"), decision={})
    assert older.record.id == newer.record.id
    assert [r.text for r in store.records("fact")] == ["The user lives in Porto."]
