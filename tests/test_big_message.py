"""Issue 44, item 2: bounded work for any message. An 840 KB message kept the server busy for
266 s and wrote a 1.68 MB journal record; a 950 KB one with memory off was cut to fit the
context without a word (200, empty content). Now a message over limits.MAX_MESSAGE_CHARS is
refused by every front end before any memory work, one that cannot fit the context is a 400
(the server) or a visible notice (the CLI), and the journal refuses a record over its cap."""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

from local_agent.config import load_settings
from local_agent.errors import StoreError
from local_agent.limits import MAX_MESSAGE_CHARS
from local_agent.memory.store import MemoryStore
from local_agent.memory.store.journal import MAX_LINE_BYTES
from local_agent.server.turns import recent_dialogue

from .cli_helpers import error_line, run_main
from .fakes import ScriptedBackend
from .server_helpers import chat_body, running_server

OVER = "I grow tomatoes on my balcony. SECRET " * (MAX_MESSAGE_CHARS // 30)  # just over the limit


def journal_bytes(data_dir: Path) -> int:
    path = data_dir / "memory" / "journal.jsonl"
    return path.stat().st_size if path.exists() else 0


def test_the_server_refuses_an_overlong_message_before_any_memory_work(scripted: ScriptedBackend) -> None:
    settings = load_settings()
    assert len(OVER) > MAX_MESSAGE_CHARS
    with running_server(settings, scripted, max_body=4_000_000) as server:
        before = journal_bytes(settings.data_dir)
        for body in (chat_body("x" * 900_000), chat_body(OVER),
                     {"messages": [{"role": "system", "content": OVER}, {"role": "user", "content": "hi"}]},
                     {"messages": [{"role": "user", "content": OVER}, {"role": "assistant", "content": "ok"},
                                   {"role": "user", "content": "hi"}]}):
            start = time.monotonic()
            response = httpx.post(server.url + "/v1/chat/completions", json=body, timeout=60)
            assert response.status_code == 400 and time.monotonic() - start < 5, response.text
            error = response.json()["error"]
            assert error["code"] == "message_too_long" and error["param"].startswith("messages[")
            assert f"over the {MAX_MESSAGE_CHARS} a message may have" in error["message"]
            assert "SECRET" not in response.text and "xxxx" not in response.text
        search = httpx.post(server.url + "/v1/memories/search", json={"query": OVER}, timeout=60)
        assert search.status_code == 400 and search.json()["error"]["param"] == "query"
        assert scripted.prompts == [] and journal_bytes(settings.data_dir) == before
        hi = httpx.post(server.url + "/v1/chat/completions", json=chat_body("hi"), timeout=60)
        assert hi.status_code == 200


def test_a_message_that_cannot_fit_the_context_is_a_400_not_a_silent_cut(scripted: ScriptedBackend) -> None:
    """Under the character limit, over what the context holds (the scripted model counts a
    token per 4 characters; its context is 2,048 tokens)."""
    settings = load_settings()
    with running_server(settings, scripted) as server:
        for memory in (True, False):
            response = httpx.post(server.url + "/v1/chat/completions",
                                  json=chat_body("word " * 2400, memory=memory), timeout=60)
            assert response.status_code == 400, response.text
            error = response.json()["error"]
            assert error["code"] == "context_length_exceeded" and error["param"] == "messages"
            assert "2048 tokens" in error["message"]
        streamed = httpx.post(server.url + "/v1/chat/completions",
                              json=chat_body("word " * 2400, stream=True), timeout=60)
        assert streamed.status_code == 400
        assert scripted.prompts == [] and journal_bytes(settings.data_dir) == 0


def test_a_message_cut_beside_the_examples_says_so_in_the_response(scripted: ScriptedBackend) -> None:
    """It fits with the system message alone (no 400), not with the prompt's few-shot examples:
    the prompt keeps its start, and the response's local_agent.notices says so."""
    settings = load_settings()
    with running_server(settings, scripted) as server:
        response = httpx.post(server.url + "/v1/chat/completions",
                              json=chat_body("word " * 1560, memory=False, max_tokens=16), timeout=60)
        assert response.status_code == 200, response.text
        (notice,) = response.json()["local_agent"]["notices"]
        assert notice.startswith("your message was longer than the model's context allows; kept its first")


def test_the_earlier_dialogue_a_request_sends_is_bounded() -> None:
    history = [("user", "a" * 20_000), ("assistant", "b" * 10_000), ("user", "c" * 10_000), ("assistant", "d" * 100)]
    assert recent_dialogue(history) == history[2:]  # from a user message on, within the limit
    assert recent_dialogue([("user", "a" * 30_000), ("assistant", "b" * 10_000)]) == []  # it would open with an answer
    assert recent_dialogue([("user", "x")] * 5) == [("user", "x")] * 5


def test_ask_refuses_an_overlong_message_with_one_line(capsys, monkeypatch) -> None:
    backend = ScriptedBackend()
    code, out, err = run_main(["ask", "--no-server", OVER], capsys, monkeypatch, backend=backend)
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert f"the message has {len(OVER)} characters, over the {MAX_MESSAGE_CHARS}" in error_line(err)
    assert backend.prompts == []
    code, _, err = run_main(["ask", "--no-server", "--system", OVER, "hi"], capsys, monkeypatch, backend=backend)
    assert code == 1 and f"--system has {len(OVER)} characters" in error_line(err) and backend.prompts == []


def test_ask_says_when_its_message_was_cut_to_fit(capsys, monkeypatch) -> None:
    code, out, err = run_main(["ask", "--no-server", "--no-memory", "word " * 2400], capsys, monkeypatch,
                              backend=ScriptedBackend(["An answer."]))
    assert code == 0 and "An answer." in out
    assert "your message was longer than the model's context allows" in err


def test_chat_refuses_an_overlong_message_and_goes_on(capsys, monkeypatch) -> None:
    backend = ScriptedBackend(["Hi there."])
    stdin = (OVER + "\nhello\n").encode()
    code, out, err = run_main(["chat", "--no-memory"], capsys, monkeypatch, stdin=stdin, backend=backend)
    assert code == 0 and "Hi there." in out
    assert f"over the {MAX_MESSAGE_CHARS} a message may have" in err
    assert len(backend.prompts) == 1 and "SECRET" not in json.dumps([m.content for m in backend.prompts[0]])


def test_batch_turns_an_overlong_line_into_an_error_record(tmp_path: Path, capsys, monkeypatch) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"input": OVER}) + "\n" + json.dumps({"input": "hello"}) + "\n", encoding="utf-8")
    out = tmp_path / "out.jsonl"
    code, _, _ = run_main(["batch", "--no-memory", str(source), "-o", str(out)], capsys, monkeypatch,
                          backend=ScriptedBackend(["Hello back."]))
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert f"'input' has {len(OVER)} characters, over the {MAX_MESSAGE_CHARS}" in records[0]["error"]
    assert records[1]["answer"] == "Hello back." and code != 0


def test_the_journal_refuses_a_record_over_its_cap(store: MemoryStore, data_dir: Path) -> None:
    store.add("I keep bees.", "fact")
    size = journal_bytes(data_dir)
    with pytest.raises(StoreError, match=f"over the {MAX_LINE_BYTES}"):
        store.add("\x01" * (MAX_LINE_BYTES // 6 + 1), "turn")  # each \x01 is 6 bytes of JSON
    assert journal_bytes(data_dir) == size and len(store.records(kind=None)) == 1
    store.add("\x01" * MAX_MESSAGE_CHARS, "turn")  # the largest message a turn stores fits


def test_distillation_reads_a_bounded_piece_of_any_message() -> None:
    """The rules alone (no model): a message at the limit made of distinct facts gives at most
    MAX_CLAUSES candidates, read from its first clauses, in bounded time."""
    from local_agent.memory.distill import Distiller
    from local_agent.memory.distill.gate import MAX_CLAUSES

    facts = " ".join(f"My sister number {n} is called Aiko{n}." for n in range(2000))[:MAX_MESSAGE_CHARS]
    distiller = Distiller(None)
    start = time.monotonic()
    judged = distiller.distill(facts)
    assert time.monotonic() - start < 10
    assert 0 < len(judged.candidates) + len(judged.rejected) <= MAX_CLAUSES
    assert all("Aiko1999" not in candidate.text for candidate in judged.candidates)
    short = distiller.gate.check("My sister is called Aiko. I live in Kyoto.")
    assert short.complete and len(short.clauses) == 2
