"""Each front end remembers a stated fact through the memory service, with one provenance dated
by --today (issue 26: "remember this fact" was written three times with three provenances:
`memory add` stored no date and no role, /remember no `via`, and the server's copy dated it
with time.strftime, ignoring --today). The server's test is in test_server_namespaces.py."""

from __future__ import annotations

import json

from tests.cli_helpers import run_main

TODAY = "2026-03-11"


def _stated(text: str, via: str, date: str = f"{TODAY}T12:00", **extra: str) -> dict[str, str]:
    """The provenance every front end gives a fact the person stated."""
    return {**extra, "role": "user", "source_text": text, "date": date, "via": via}


def _facts(capsys, monkeypatch) -> list[dict]:
    code, out, err = run_main(["memory", "list", "--json"], capsys, monkeypatch)
    assert code == 0, err
    return json.loads(out)


def test_cli_memory_add_and_edit_state_the_fact_dated_by_today(capsys, monkeypatch) -> None:
    """`memory add` stored no date at all, and no role."""
    code, out, err = run_main(["memory", "add", "--today", TODAY, "I keep  bees."], capsys, monkeypatch)
    assert code == 0, err
    (fact,) = _facts(capsys, monkeypatch)
    assert fact["id"] == out.strip() and fact["provenance"] == _stated("I keep bees.", "memory add")
    code, _, err = run_main(["memory", "edit", "--today", "2026-03-12", fact["id"], "I keep wasps."],
                            capsys, monkeypatch)
    assert code == 0, err
    (edited,) = _facts(capsys, monkeypatch)
    assert edited["provenance"] == _stated("I keep wasps.", "memory edit", "2026-03-12T12:00")


def test_chat_remember_states_the_fact_dated_by_today(scripted, capsys, monkeypatch) -> None:
    """/remember stored the session and the date, but no `via`: a fact stated in the chat
    looked unlike one stated with `memory add`."""
    code, _, err = run_main(["chat", "--today", TODAY, "--session", "s1"], capsys, monkeypatch,
                            stdin=b"/remember I keep  bees.\n/exit\n", backend=scripted)
    assert code == 0, err
    assert "remembered" in err
    (fact,) = _facts(capsys, monkeypatch)
    assert fact["provenance"] == _stated("I keep bees.", "/remember", session="s1")
    assert fact["decision"] == {"route": "user"}
