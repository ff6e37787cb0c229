"""Provenance is typed in code and written to files exactly as the dict it replaced."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from local_agent.types import MemoryRecord, Provenance

FIELDS = ["session", "turn_index", "role", "speaker", "source_text", "date", "until", "seen", "last_seen", "full_text",
          "import_key"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)
provenance_dicts = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), json_values, max_size=8)


@given(provenance_dicts)
def test_a_provenance_read_from_a_file_is_written_back_unchanged(data: dict) -> None:
    assert json.dumps(Provenance.from_dict(data).to_dict()) == json.dumps(data)


def test_typed_fields_are_read_and_wrong_types_stay_as_they_were() -> None:
    provenance = Provenance.from_dict({"session": "s1", "turn_index": True, "via": 2, "date": None, "seen": "2"})
    assert provenance.session == "s1" and provenance.turn_index is None and provenance.date is None
    assert provenance.seen is None
    assert provenance.extra == {"turn_index": True, "via": 2, "date": None, "seen": "2"}


def test_what_product_code_reads_is_typed() -> None:
    data = {"session": "s1", "until": "2024-05-03", "seen": 3, "full_text": "long", "import_key": "k1",
            "last_seen": {"session": "s2", "turn_index": 4, "via": "x"}}
    provenance = Provenance.from_dict(data)
    assert (provenance.until, provenance.seen, provenance.full_text, provenance.import_key) == (
        "2024-05-03", 3, "long", "k1")
    assert provenance.last_seen == Provenance(session="s2", turn_index=4, extra={"via": "x"})
    assert provenance.extra == {}
    assert Provenance.from_saved(json.loads(json.dumps(data))) == provenance
    assert json.dumps(Provenance.from_saved(json.loads(json.dumps(data))).to_dict()) == json.dumps(data)


def test_said_again_counts_and_keeps_the_latest_mention() -> None:
    first = Provenance.from_dict({"source_text": "I play the cello", "via": "memory add"})
    again = first.said_again(Provenance(session="s2", source_text="cello!"))
    assert again.seen == 2 and again.last_seen == Provenance(session="s2", source_text="cello!")
    assert list(again.to_dict()) == ["source_text", "via", "seen", "last_seen"]  # new keys come last
    third = again.said_again(None)
    assert third.seen == 3 and third.last_seen == again.last_seen
    odd = Provenance.from_dict({"seen": "many"}).said_again(Provenance(session="s3"))  # a seen no count reads
    assert odd.seen == 2 and "seen" not in odd.extra


def test_new_keys_come_last_as_a_dict_adds_them() -> None:
    read = Provenance.from_dict({"source_text": "hi", "session": "s1"})
    assert list(read.with_extra(seen=2).to_dict()) == ["source_text", "session", "seen"]
    made = Provenance(session="s1", turn_index=3, role="user", source_text="hi", date="2024-05-01")
    assert list(made.to_dict()) == ["session", "turn_index", "role", "source_text", "date"]


def test_a_field_given_twice_or_of_the_wrong_type_is_refused() -> None:
    with pytest.raises(ValueError, match="session"):
        Provenance(session="s1", extra={"session": "s2"})
    with pytest.raises(TypeError):
        Provenance(turn_index="3")  # type: ignore[arg-type]


def test_a_record_round_trips_through_its_json() -> None:
    data = {"id": "abcd000001", "kind": "turn", "text": "hello", "created": 1.0, "updated": 2.0,
            "provenance": {"via": "x", "session": "s", "last_seen": {"session": "t"}}, "decision": {},
            "key": None, "superseded_by": None, "supersedes": None}
    assert json.dumps(MemoryRecord.from_dict(data).to_dict()) == json.dumps(data)
