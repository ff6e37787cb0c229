"""Recall's second stage (memory/index/rerank.py): its features, the packaged weights, the turn
neighbours the state keeps for it, and what it changes in what recall finds."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from local_agent.errors import ModelError
from local_agent.memory.index.recall import hybrid_recall
from local_agent.memory.index.rerank import (
    FEATURES,
    RankerModel,
    packaged_ranker,
    query_words,
    session_best,
    speaker_named,
)
from local_agent.memory.index.saved import label_hash
from local_agent.memory.index.state import MemoryState
from local_agent.memory.index.traits import ASKS, ONLY_ASKS, TURN, USER, TraitColumns, Traits, asks, only_asks
from local_agent.memory.store import MemoryStore
from local_agent.types import MemoryDraft, MemoryRecord, Provenance

REPO = Path(__file__).resolve().parent.parent


def turn(text: str, session: str = "s1", *, speaker: str | None = None, role: str | None = None) -> MemoryRecord:
    return MemoryRecord(id=f"r{abs(hash((text, session))) % 10**8}", kind="turn", text=text,
                        provenance=Provenance(session=session, speaker=speaker, role=role))


def test_asking_and_only_asking() -> None:
    assert asks("Nice! What breed is it?") and not asks("It is a corgi.")
    assert only_asks("Hey! How are you? What breed is it?")
    assert not only_asks("I got a puppy. What breed do you like?")


def test_the_speaker_is_named_by_name_or_as_i_and_you() -> None:
    mel = turn("I paint.", speaker="Melanie Smith")
    user, assistant = turn("I paint.", role="user"), turn("Try oils.", role="assistant")
    fact = MemoryRecord(id="f1", kind="fact", text="The user paints.")
    traits = TraitColumns.of([mel, user, assistant, fact])

    def named(question: str) -> list[bool]:
        return speaker_named(traits, query_words(question)).tolist()

    assert named("What does Melanie paint?") == [True, False, False, False]
    assert named("what do I paint?") == [False, True, False, False]  # a named speaker is only named by name
    assert named("what did you suggest?") == [False, False, True, False]
    assert named("what did the user say?") == [False, True, False, False]  # an unnamed speaker by its role


def test_session_best_is_the_best_other_candidate_of_the_session() -> None:
    records = [turn("a", "s1"), turn("b", "s1"), turn("c", "s2"), turn("d", "s1")]
    best = session_best(TraitColumns.of(records).session, np.asarray([0.5, 0.2, 0.9, 0.4], dtype=np.float32))
    assert best.tolist() == pytest.approx([0.4, 0.5, 0.0, 0.5])


def test_saved_traits_stand_for_the_records_until_a_row_changes() -> None:
    records = [turn("How are you?", speaker="Ana"), turn("I am doing fine, thanks.", role="user")]
    traits = Traits(TraitColumns.of(records))
    records[0] = turn("I moved to Porto last year.", "s2", speaker="Bo")  # (the saved columns say otherwise)
    assert traits.of(records, np.arange(2)).flags.tolist() == [ASKS | ONLY_ASKS | TURN, TURN | USER]
    traits.refresh(0)
    changed = traits.of(records, np.asarray([1, 0]))
    assert changed.flags.tolist() == [TURN | USER, TURN]
    assert changed.words.tolist() == [5, 6] and changed.speaker[1] == label_hash("bo")
    records.append(turn("Do you cook?", speaker="Cy"))  # added since the snapshot: read once
    assert traits.of(records, np.asarray([2])).flags.tolist() == [ASKS | ONLY_ASKS | TURN]
    records[2] = turn("I cook every day.", speaker="Cy")
    assert traits.of(records, np.asarray([2])).flags.tolist() == [ASKS | ONLY_ASKS | TURN]  # as it was read
    traits.refresh(2)
    assert traits.of(records, np.asarray([2])).flags.tolist() == [TURN]
    assert Traits(TraitColumns.of([])).of(records, np.asarray([1, 0])).words.tolist() == [5, 6]  # nothing saved


def test_the_state_links_each_turn_to_its_neighbours_in_its_session() -> None:
    records = [turn("a", "s1"), turn("b", "s2"), turn("c", "s1"), MemoryRecord(id="f", kind="fact", text="x"),
               turn("d", "s1"), turn("e", "s2")]
    state = MemoryState.build(records[:3], np.eye(6, 8, dtype=np.float32)[:3], 3, 8)
    state.add(records[3:], np.eye(6, 8, dtype=np.float32)[3:])  # a later write links to earlier rows
    assert state.before.tolist() == [-1, -1, 0, -1, 2, 1]
    assert state.after.tolist() == [2, 5, 4, -1, -1, -1]


def test_the_packaged_weights_fit_the_features_and_bad_ones_are_refused(tmp_path: Path) -> None:
    model = packaged_ranker()
    assert model.names == FEATURES and len(model.weights) == len(FEATURES)
    assert set(model.meta["trained_on"]) == {"conv-26", "conv-30", "conv-41"}  # the tune split only
    data = json.loads((REPO / "local_agent" / "data" / "recall_ranker.json").read_text(encoding="utf-8"))
    data["features"] = data["features"][:-1]
    (tmp_path / "old.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ModelError, match="retrain"):
        RankerModel.load(tmp_path / "old.json")
    model.save(tmp_path / "again.json")
    assert RankerModel.load(tmp_path / "again.json").weights.tolist() == pytest.approx(model.weights.tolist())


def test_the_reply_to_a_matching_question_comes_before_the_question(store: MemoryStore) -> None:
    def said(speaker: str) -> Provenance:
        return Provenance(session="s1", date="8 May 2023", speaker=speaker)

    store.add_many([
        MemoryDraft("Here it is, my new bowl from pottery class.", "turn", said("Melanie")),
        MemoryDraft("That bowl is awesome, Mel! What gave you the idea for all the colors and patterns?", "turn",
                    said("Caroline")),
        MemoryDraft("Thanks! I'm obsessed with bright things, so I made something to make people smile.", "turn",
                    said("Melanie")),
        MemoryDraft("Cool! See you next week.", "turn", said("Caroline")),
    ])
    question = "Why did Melanie use colors and patterns in her pottery?"
    vector = store.embedder.embed([question])[0]
    for ranker, reply_first in ((None, False), (packaged_ranker(), True)):
        hits = hybrid_recall(store._files.state, question, vector, k=4, kinds=("turn",), min_score=-1.0, ranker=ranker)
        order = [hit.record.text[:7] for hit in hits]
        assert (order.index("Thanks!") < order.index("That bo")) is reply_first


def test_without_the_ranker_hits_come_in_fused_order(store: MemoryStore) -> None:
    store.add_many([MemoryDraft(text, "turn", Provenance(session="s", speaker="Ana"))
                    for text in ("What is your dog called?", "Biscuit, a corgi.", "I like dogs.", "Bye!")])
    state = store._files.state
    vector = store.embedder.embed(["what is the dog called"])[0]
    hits = hybrid_recall(state, "what is the dog called", vector, k=4, kinds=("turn",), min_score=-1.0, ranker=None)
    assert [hit.score for hit in hits] == sorted((hit.score for hit in hits), reverse=True)
    ranked = hybrid_recall(state, "what is the dog called", vector, k=4, kinds=("turn",), min_score=-1.0)
    assert {hit.record.id for hit in ranked} == {hit.record.id for hit in hits}


def test_training_pairs_hold_each_evidence_against_each_other_candidate() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("train_recall_ranker", REPO / "scripts" / "train_recall_ranker.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    differences = module.pairs([(x, np.asarray([False, True, False, False])), (x, np.zeros(4, dtype=bool))])
    assert differences.shape == (3, 3)
    assert differences.tolist() == [(x[1] - x[i]).tolist() for i in (0, 2, 3)]
