"""A recalled reply of the assistant gives way to the user's message it answered (turn/exchange_recall.py)."""

from __future__ import annotations

import datetime as dt

from local_agent.reading import read
from local_agent.turn.exchange_recall import with_users_words
from local_agent.types import MemoryRecord, Provenance, RecallHit

NOW = dt.datetime(2026, 11, 10, 20)


def _turn(ident: str, text: str, role: str, turn: int, session: str = "s1") -> MemoryRecord:
    return MemoryRecord(ident, "turn", text, provenance=Provenance(session=session, turn_index=turn, role=role,
                                                                   date="2026-11-04"))


SWITCH = _turn("u2", "actually change of plans, I'm switching from the half to the full marathon in April", "user", 2)
GARBLED = _turn("a2", "It seems like you're switching from the half marathon in April to the full one in December.",
                "assistant", 2)
HALF = _turn("u1", "training for a half marathon in December", "user", 1)
OTHER = _turn("a9", "Have a lovely day!", "assistant", 2, session="s2")  # another conversation's turn 2
STORE = [HALF, SWITCH, GARBLED, OTHER]


def _ids(hits: list[RecallHit]) -> list[str]:
    return [hit.record.id for hit in hits]


def test_a_reply_gives_way_to_the_users_message_in_its_place():
    hits = [RecallHit(GARBLED, 0.9), RecallHit(HALF, 0.5)]
    assert _ids(with_users_words(read("what race am I training for?", NOW), hits, lambda: STORE)) == ["u2", "u1"]


def test_a_reply_whose_message_is_recalled_is_left_out_and_the_recall_never_grows():
    hits = [RecallHit(GARBLED, 0.9), RecallHit(SWITCH, 0.6), RecallHit(HALF, 0.5)]
    assert _ids(with_users_words(read("what race am I training for?", NOW), hits, lambda: STORE)) == ["u2", "u1"]


def test_a_question_about_what_the_assistant_said_keeps_its_words():
    hits = [RecallHit(GARBLED, 0.9)]
    assert _ids(with_users_words(read("what did you say about my race?", NOW), hits, lambda: STORE)) == ["a2"]
    assert _ids(with_users_words(read("I love marathons.", NOW), hits, lambda: STORE)) == ["a2"]  # asks nothing


def test_a_reply_whose_message_was_not_kept_is_left_out():
    hits = [RecallHit(OTHER, 0.9), RecallHit(HALF, 0.5)]
    assert _ids(with_users_words(read("what race am I training for?", NOW), hits, lambda: STORE)) == ["u1"]


def test_a_question_that_does_not_speak_of_the_user_keeps_the_assistants_words():
    hits = [RecallHit(GARBLED, 0.9)]
    assert _ids(with_users_words(read("what was that marathon plan again?", NOW), hits, lambda: STORE)) == ["a2"]
