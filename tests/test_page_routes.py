"""The page's server side on a scripted model: its files and their CSP, the key and the upload
rules of the guard, conversations (the CLI's sessions), memory with provenance, and the import
job (progress, cancel, chat answering meanwhile). The page itself runs in test_page_browser.py."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from local_agent.memory.sessions import SessionStore
from local_agent.server.page import STATIC_DIR
from local_agent.server.run import LocalServer

from .cli_helpers import run_main
from .fakes import ScriptedBackend
from .page_helpers import chatgpt_export, page_ask
from .server_helpers import SlowBackend, running_server, server_settings

KEY = "page-key-0123456789"
PAGE_JS = sorted((STATIC_DIR / "js").glob("*.js"))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalServer]:
    data_dir = tmp_path_factory.mktemp("page") / "data"
    with running_server(server_settings(data_dir), ScriptedBackend(default="Scripted answer.")) as server:
        yield server


def api(server: LocalServer, method: str, path: str, **kwargs: Any) -> httpx.Response:
    return httpx.request(method, server.url + path, timeout=60, **kwargs)


def upload(server: LocalServer, body: bytes, name: str = "conversations.json", **headers: str) -> httpx.Response:
    return api(server, "POST", "/v1/local-agent/imports", content=body,
               headers={"Content-Type": "application/octet-stream", "X-Local-Agent-Import": name, **headers})


def finished(server: LocalServer, job: dict[str, Any], timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while job["state"] in ("queued", "running"):
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
        job = api(server, "GET", f"/v1/local-agent/imports/{job['id']}").json()
    return job


# -- the files ------------------------------------------------------------------------------------


def test_the_page_is_served_with_a_strict_csp(served: LocalServer) -> None:
    page = api(served, "GET", "/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert "unsafe" not in csp and "frame-ancestors 'none'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    again = api(served, "GET", "/", headers={"If-None-Match": page.headers["etag"]})
    assert again.status_code == 304


def test_every_file_the_page_names_is_served_and_nothing_comes_from_elsewhere(served: LocalServer) -> None:
    html = api(served, "GET", "/").text
    names = re.findall(r'(?:src|href)="([^"#]+)"', html)
    modules = [name for name in names if name.endswith(".js")]
    for path in PAGE_JS:  # every module another one imports, too
        modules += [f"/static/js/{name}" for name in re.findall(r'from "\./([\w.]+\.js)"', path.read_text())]
    for name in {*names, *modules}:
        assert name.startswith("/static/"), name  # no CDN, no other origin
        response = api(served, "GET", name)
        assert response.status_code == 200, name
        if name.endswith(".js"):
            assert response.headers["content-type"].startswith("text/javascript")
    assert api(served, "GET", "/static/../server/page.py").status_code == 404


def test_no_inline_script_no_eval_and_no_html_from_strings() -> None:
    """What the CSP forbids, and what would turn a model's or a memory's text into markup."""
    html = (STATIC_DIR / "index.html").read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)", html) and not re.search(r"\son\w+=", html)
    assert "style=" not in html
    for path in PAGE_JS:
        code = path.read_text()
        for forbidden in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                          "new Function", "localStorage.setItem(KEY", "cookie"):
            assert forbidden not in code, (path.name, forbidden)


def test_with_a_key_the_files_are_public_and_every_call_needs_it(tmp_path: Path) -> None:
    with running_server(server_settings(tmp_path / "data"), ScriptedBackend(), api_key=KEY) as server:
        assert api(server, "GET", "/").status_code == 200
        assert api(server, "GET", "/static/js/main.js").status_code == 200
        assert api(server, "GET", "/v1/local-agent/info").status_code == 401
        assert api(server, "GET", "/v1/local-agent/sessions").status_code == 401
        wrong = api(server, "GET", "/v1/local-agent/info", headers={"Authorization": "Bearer nope-nope-nope"})
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_api_key"
        info = api(server, "GET", "/v1/local-agent/info", headers={"Authorization": f"Bearer {KEY}"}).json()
        assert info["api_key"] is True and info["model"] == "scripted"
        assert api(server, "GET", "/", headers={"Host": "evil.example"}).status_code == 403
        assert "access-control-allow-origin" not in api(server, "GET", "/", headers={"Origin": "http://x.test"}).headers


# -- conversations ---------------------------------------------------------------------------------


def test_a_chat_from_the_page_is_a_cli_session_and_keeps_its_title(served: LocalServer, capsys, monkeypatch) -> None:
    tokens, last = page_ask(served.url, "Hello from the page", "page-one")
    assert "".join(tokens).strip() == "Scripted answer." and last["result"]["session"] == "page-one"
    listed = api(served, "GET", "/v1/local-agent/sessions").json()["data"]
    assert any(row["name"] == "page-one" and row["turns"] == 2 for row in listed)
    retitled = api(served, "POST", "/v1/local-agent/sessions/page-one", json={"title": "  My   first chat "})
    assert retitled.json()["title"] == "My first chat"
    page_ask(served.url, "A second message", "page-one")  # the ask's own save keeps the title
    shown = api(served, "GET", "/v1/local-agent/sessions/page-one").json()
    assert shown["title"] == "My first chat" and [t["content"] for t in shown["turns"]][::2] == [
        "Hello from the page", "A second message"]
    monkeypatch.setenv("LOCAL_AGENT_DATA_DIR", str(served.settings.data_dir))
    code, out, _ = run_main(["sessions", "--json"], capsys, monkeypatch)
    assert code == 0 and any(row["name"] == "page-one" and row["turns"] == 4 for row in json.loads(out))


def test_a_cli_session_is_read_by_the_page(served: LocalServer) -> None:
    store = SessionStore(served.settings.data_dir)
    session = store.load_or_create("from-cli")
    from local_agent.memory.sessions import Turn

    session.turns += [Turn("user", "Said in the terminal"), Turn("assistant", "Heard.")]
    store.save(session)
    shown = api(served, "GET", "/v1/local-agent/sessions/from-cli").json()
    assert [turn["content"] for turn in shown["turns"]] == ["Said in the terminal", "Heard."]
    assert api(served, "GET", "/v1/local-agent/sessions/no-such").status_code == 404
    assert api(served, "GET", "/v1/local-agent/sessions/..%2Fetc").status_code in (400, 404)


def test_delete_keeps_what_it_taught_and_delete_and_forget_does_not(served: LocalServer) -> None:
    page_ask(served.url, "I live in Keepton.", "taught-keep")
    page_ask(served.url, "My sister is called Forgetta.", "taught-forget")
    facts = {record["text"] for record in api(served, "GET", "/v1/local-agent/memories").json()["data"]}
    assert any("Keepton" in text for text in facts) and any("Forgetta" in text for text in facts)

    kept = api(served, "DELETE", "/v1/local-agent/sessions/taught-keep").json()
    assert kept["deleted"] and kept["forgotten"] == []
    forgot = api(served, "DELETE", "/v1/local-agent/sessions/taught-forget?forget=true").json()
    assert forgot["deleted"] and len(forgot["forgotten"]) >= 2  # the fact and the turn memory
    assert api(served, "GET", "/v1/local-agent/sessions/taught-keep").status_code == 404
    assert api(served, "DELETE", "/v1/local-agent/sessions/taught-keep").status_code == 404
    every = api(served, "GET", "/v1/local-agent/memories?kind=fact&kind=turn&kind=digest&limit=10000").json()["data"]
    texts = " ".join(record["text"] for record in every)
    assert "Keepton" in texts and "Forgetta" not in texts
    data_dir = served.settings.data_dir
    leftovers = [path for path in data_dir.rglob("*") if path.is_file() and b"Forgetta" in path.read_bytes()]
    assert leftovers == []


# -- memory ----------------------------------------------------------------------------------------


def test_memory_with_provenance_search_correct_and_forget_with_source(served: LocalServer) -> None:
    added = api(served, "POST", "/v1/local-agent/memories", json={"text": "I keep three beehives."}).json()
    record = added["record"]
    assert record["provenance"]["via"] == "page" and record["provenance"]["role"] == "user"
    newest = api(served, "GET", "/v1/local-agent/memories?kind=fact&limit=1").json()
    assert newest["data"][0]["id"] == record["id"] and newest["total"] >= 1

    hits = api(served, "POST", "/v1/local-agent/memories/search", json={"query": "beehives", "kinds": ["fact"]})
    assert hits.json()["data"][0]["id"] == record["id"] and "score" in hits.json()["data"][0]

    fixed = api(served, "POST", f"/v1/local-agent/memories/{record['id']}/correct",
                json={"text": "I keep four beehives."}).json()
    assert fixed["action"] == "superseded" and fixed["previous"]["id"] == record["id"]
    shown = api(served, "GET", f"/v1/local-agent/memories/{fixed['record']['id']}").json()
    assert shown["previous"]["text"] == "I keep three beehives."
    again = api(served, "POST", f"/v1/local-agent/memories/{record['id']}/correct", json={"text": "x"})
    assert again.status_code == 400  # already replaced

    page_ask(served.url, "My dog is called Biscuit.", "dog-talk")
    fact = next(r for r in api(served, "GET", "/v1/local-agent/memories").json()["data"] if "Biscuit" in r["text"])
    origin = api(served, "GET", f"/v1/local-agent/memories/{fact['id']}").json()
    assert origin["sources"][0]["text"] == "My dog is called Biscuit." and origin["sources"][0]["session"] == "dog-talk"
    assert origin["messages"] == [{"session": "dog-talk", "index": 0}]
    gone = api(served, "DELETE", f"/v1/local-agent/memories/{fact['id']}").json()  # with its source by default
    assert gone["deleted"] and gone["sessions_edited"] == ["dog-talk"] and gone["turns"]
    assert api(served, "GET", "/v1/local-agent/sessions/dog-talk").json()["turns"] == []
    recalled = api(served, "POST", "/v1/local-agent/memories/search", json={"query": "dog Biscuit"}).json()["data"]
    assert all("Biscuit" not in hit["text"] for hit in recalled)
    assert api(served, "GET", "/v1/local-agent/memories/ffffffffff").status_code == 404


def test_export_is_a_download_of_every_memory(served: LocalServer) -> None:
    api(served, "POST", "/v1/local-agent/memories", json={"text": "I was born in Porto."})
    exported = api(served, "POST", "/v1/local-agent/memories/export", json={})
    assert exported.status_code == 200 and "attachment" in exported.headers["content-disposition"]
    assert "Porto" in exported.text and json.loads(exported.text)
    assert api(served, "GET", "/v1/local-agent/memories/export").status_code in (404, 405)  # a POST only


def test_forget_all_needs_the_typed_phrase(tmp_path: Path) -> None:
    with running_server(server_settings(tmp_path / "data"), ScriptedBackend()) as server:
        page_ask(server.url, "My name is Zed.", "zed")
        refused = api(server, "POST", "/v1/local-agent/memories/forget-all", json={"confirm": "yes"})
        assert refused.status_code == 400 and "forget everything" in refused.json()["error"]["message"]
        assert api(server, "GET", "/v1/local-agent/memories").json()["total"] >= 1
        done = api(server, "POST", "/v1/local-agent/memories/forget-all", json={"confirm": "Forget everything"})
        assert done.status_code == 200
        assert api(server, "GET", "/v1/local-agent/memories").json()["total"] == 0
        assert api(server, "GET", "/v1/local-agent/sessions").json()["data"] == []
        page_ask(server.url, "Still answering?", None)  # the server goes on after it


# -- imports ---------------------------------------------------------------------------------------


def test_an_upload_must_be_raw_bytes_with_the_header_and_within_its_own_limit(tmp_path: Path) -> None:
    with running_server(server_settings(tmp_path / "data"), ScriptedBackend(), max_import=4096) as server:
        body = chatgpt_export([("Bees", [("user", "I live in Beeton."), ("assistant", "Nice.")])])
        as_json = api(server, "POST", "/v1/local-agent/imports", content=body,
                      headers={"Content-Type": "application/json", "X-Local-Agent-Import": "c.json"})
        assert as_json.status_code == 415
        as_form = api(server, "POST", "/v1/local-agent/imports", files={"file": ("c.json", body)},
                      headers={"X-Local-Agent-Import": "c.json"})
        assert as_form.status_code == 415
        no_header = api(server, "POST", "/v1/local-agent/imports", content=body,
                        headers={"Content-Type": "application/octet-stream"})
        assert no_header.status_code == 415
        assert upload(server, b"[" + b" " * 5000 + b"]").status_code == 413
        assert upload(server, b"PK\x03\x04zip").json()["error"]["message"].endswith(
            "is a zip archive; unzip it and import the conversations.json inside")
        octet_chat = api(server, "POST", "/v1/chat/completions", content=b"{}",
                         headers={"Content-Type": "application/octet-stream", "X-Local-Agent-Import": "x"})
        assert octet_chat.status_code == 415  # the exception is the import route's only
        job = upload(server, body, name="my%20export.json")
        assert job.status_code == 202 and job.json()["name"] == "my export.json"
        done = finished(server, job.json())
        assert done["state"] == "done" and done["messages_done"] == done["messages_total"] == 2
        facts = api(server, "GET", "/v1/local-agent/memories").json()["data"]
        assert any("Beeton" in record["text"] for record in facts)
        again = finished(server, upload(server, body).json())
        assert again["skipped_existing"] == 2 and again["turns"] == 0  # importing again adds nothing


def test_an_import_runs_between_chat_answers_and_can_be_cancelled(tmp_path: Path) -> None:
    backend = SlowBackend(words=4, delay=0.05)  # digests take it 0.2 s a conversation
    chats = [(f"Trip {n}", [("user", f"Day {n}: I walked."), ("assistant", "Good."), ("user", "Then I swam."),
                            ("assistant", "Nice."), ("user", "Then I slept."), ("assistant", "Rest.")])
             for n in range(40)]
    with running_server(server_settings(tmp_path / "data"), backend) as server:
        blocker = threading.Event()
        server.worker.submit(blocker.wait)  # hold the model's thread: the import waits its turn
        job = upload(server, chatgpt_export(chats)).json()
        assert job["state"] == "queued" and job["messages_total"] == 240
        busy = upload(server, chatgpt_export(chats[:1]))
        assert busy.status_code == 409 and busy.json()["error"]["code"] == "import_running"
        blocker.set()
        while api(server, "GET", f"/v1/local-agent/imports/{job['id']}").json()["sessions_done"] < 2:
            time.sleep(0.05)
        started = time.monotonic()
        page_ask(server.url, "Still there?", "during-import")
        answered_in = time.monotonic() - started
        during = api(server, "GET", f"/v1/local-agent/imports/{job['id']}").json()
        assert during["state"] == "running", during  # the chat did not wait for the whole import
        assert answered_in < 5, answered_in
        api(server, "DELETE", f"/v1/local-agent/imports/{job['id']}")
        ended = finished(server, during)
        assert ended["state"] == "cancelled" and 0 < ended["sessions_done"] < 40
        assert api(server, "GET", "/v1/local-agent/imports").json()["data"]["id"] == job["id"]
        rest = finished(server, upload(server, chatgpt_export(chats), **{"X-Local-Agent-Digests": "off"}).json())
        assert rest["state"] == "done" and rest["skipped_existing"] == ended["messages_done"]
