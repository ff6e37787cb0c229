"""The server's OpenAI-compatible API on a scripted model, through the official `openai`
package and raw HTTP: completions, memory per request, namespaces, the memory REST API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from local_agent.server.run import LocalServer

from .fakes import ScriptedBackend
from .server_helpers import chat_body, running_server, server_settings

DIRECTIVE = "You are a test directive."


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalServer, ScriptedBackend]]:
    backend = ScriptedBackend(default="Scripted answer.")
    data_dir = tmp_path_factory.mktemp("served") / "data"
    with running_server(server_settings(data_dir), backend) as server:
        yield server, backend


@pytest.fixture
def server(served: tuple[LocalServer, ScriptedBackend]) -> LocalServer:
    return served[0]


@pytest.fixture
def backend(served: tuple[LocalServer, ScriptedBackend]) -> ScriptedBackend:
    return served[1]


@pytest.fixture
def client(server: LocalServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url + "/v1", api_key="unused", max_retries=0)


def ask(client: openai.OpenAI, text: str, user: str, **extra: Any) -> dict[str, Any]:
    completion = client.chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": text}],
        extra_headers={"X-Local-Agent-User": user}, **extra)
    return completion.model_dump()


def test_models_lists_the_chat_model_first(client: openai.OpenAI) -> None:
    names = [model.id for model in client.models.list()]
    assert names == ["scripted", "all-MiniLM-L6-v2"]


def test_non_streamed_completion(client: openai.OpenAI, backend: ScriptedBackend) -> None:
    completion = client.chat.completions.create(
        model="scripted", max_tokens=32, temperature=0.2, top_p=0.9, seed=3, stop=["###"],
        messages=[{"role": "system", "content": DIRECTIVE}, {"role": "user", "content": "Tell me a story"}],
        extra_headers={"X-Local-Agent-User": "plain"})
    assert completion.choices[0].message.content == "Scripted answer."
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None
    assert completion.usage.completion_tokens == 2 and completion.usage.prompt_tokens > 0
    prompt = backend.prompts[-1] if "Tell me a story" in backend.prompts[-1][-1].content else backend.prompts[-2]
    assert prompt[0].role == "system" and prompt[0].content.startswith(DIRECTIVE)
    assert prompt[-1].content.endswith("Tell me a story")


def test_streamed_completion_with_usage(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": "Stream it"}], stream=True,
        stream_options={"include_usage": True}, extra_headers={"X-Local-Agent-User": "stream"})
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Scripted answer."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    usage = chunks[-1].usage
    assert chunks[-1].choices == [] and usage is not None and usage.total_tokens > 0


def test_raw_sse_ends_with_done(server: LocalServer) -> None:
    with httpx.stream("POST", server.url + "/v1/chat/completions", json=chat_body("raw", stream=True),
                      headers={"X-Local-Agent-Memory": "off"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in response.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"


def test_a_fact_told_once_is_recalled_with_a_fresh_message_list(client: openai.OpenAI) -> None:
    told = ask(client, "My name is Ada.", "recall")
    assert [saved["text"] for saved in told["local_agent"]["saved"]] == ["The user's name is Ada."]
    later = ask(client, "What is my name?", "recall")
    recalled = [hit["text"] for hit in later["local_agent"]["recalled"]]
    assert "The user's name is Ada." in recalled


def test_only_the_last_user_message_is_stored(server: LocalServer, client: openai.OpenAI) -> None:
    history: list[ChatCompletionMessageParam] = [
        {"role": "user", "content": "My name is Bob."}, {"role": "assistant", "content": "Hi Bob."},
        {"role": "user", "content": "I live in Porto."}]
    body = client.chat.completions.create(model="scripted", messages=history,
                                          extra_headers={"X-Local-Agent-User": "history"}).model_dump()
    assert [s["text"] for s in body["local_agent"]["saved"]] == ["The user lives in Porto."]
    turns = httpx.get(server.url + "/v1/memories", params={"kind": "all"},
                      headers={"X-Local-Agent-User": "history"}).json()["data"]
    texts = [r["text"] for r in turns]  # the answer to the last message is remembered too
    assert "I live in Porto." in texts and "The user lives in Porto." in texts
    assert "My name is Bob." not in texts and "Hi Bob." not in texts


def test_namespaces_do_not_see_each_other(client: openai.OpenAI, server: LocalServer) -> None:
    ask(client, "My name is Carol.", "alice")
    other = ask(client, "What is my name?", "bob")
    assert all("Carol" not in hit["text"] for hit in other["local_agent"]["recalled"])
    listed = httpx.get(server.url + "/v1/memories", headers={"X-Local-Agent-User": "bob"}).json()["data"]
    assert listed == []
    mine = httpx.get(server.url + "/v1/memories", headers={"X-Local-Agent-User": "alice"}).json()["data"]
    assert [r["text"] for r in mine] == ["The user's name is Carol."]
    assert (server.settings.data_dir / "users" / "alice" / "memory").is_dir()


def test_body_user_selects_the_namespace_too(client: openai.OpenAI, server: LocalServer) -> None:
    client.chat.completions.create(model="scripted", user="dora",
                                   messages=[{"role": "user", "content": "My name is Dora."}])
    listed = httpx.get(server.url + "/v1/memories", headers={"X-Local-Agent-User": "dora"}).json()["data"]
    assert [r["text"] for r in listed] == ["The user's name is Dora."]


@pytest.mark.parametrize("how", ["body", "header"])
def test_memory_false_writes_nothing(client: openai.OpenAI, server: LocalServer, how: str) -> None:
    namespace = f"off-{how}"
    folder = server.settings.data_dir / "users" / namespace
    ask(client, "My name is Ada.", namespace)  # something to recall, so reading is visible
    before = {p.name: p.read_bytes() for p in (folder / "memory").iterdir()}
    extra = {"extra_body": {"memory": False}} if how == "body" else {
        "extra_headers": {"X-Local-Agent-User": namespace, "X-Local-Agent-Memory": "off"}}
    if how == "body":
        body = ask(client, "My name is Eve. What is my name?", namespace, **extra)
    else:
        body = client.chat.completions.create(
            model="scripted", messages=[{"role": "user", "content": "My name is Eve. What is my name?"}],
            **extra).model_dump()
    assert body["local_agent"] == {"recalled": [], "saved": []}
    assert {p.name: p.read_bytes() for p in (folder / "memory").iterdir()} == before


def test_memory_rest_round_trip(server: LocalServer) -> None:
    headers = {"X-Local-Agent-User": "rest"}
    added = httpx.post(server.url + "/v1/memories", json={"text": "The user keeps bees."}, headers=headers)
    assert added.status_code == 200, added.text
    ident = added.json()["id"]
    found = httpx.post(server.url + "/v1/memories/search", json={"query": "bees", "limit": 3}, headers=headers)
    assert [hit["id"] for hit in found.json()["data"]] == [ident]
    assert found.json()["data"][0]["score"] > 0
    deleted = httpx.delete(server.url + f"/v1/memories/{ident}", headers=headers)
    assert deleted.json() == {"id": ident, "object": "memory", "deleted": True}
    assert httpx.get(server.url + "/v1/memories", headers=headers).json()["data"] == []
    missing = httpx.delete(server.url + f"/v1/memories/{ident}", headers=headers)
    assert missing.status_code == 404 and missing.json()["error"]["message"]


def test_server_requests_write_no_session_files(client: openai.OpenAI, server: LocalServer) -> None:
    ask(client, "Remember that I like tea.", "nosessions")
    assert not (server.settings.data_dir / "users" / "nosessions" / "sessions").exists()
    assert not (server.settings.data_dir / "sessions").exists()


def test_embeddings_are_the_memory_embedder(client: openai.OpenAI) -> None:
    result = client.embeddings.create(model="all-MiniLM-L6-v2", input=["a cat", "a dog"])
    assert [len(item.embedding) for item in result.data] == [384, 384]
    raw = httpx.post(str(client.base_url) + "embeddings", json={"input": "a cat", "encoding_format": "float"})
    assert raw.json()["data"][0]["embedding"][:3] == pytest.approx(result.data[0].embedding[:3], abs=1e-5)


def test_unknown_model_is_404(client: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    assert isinstance(caught.value.body, dict) and caught.value.body["code"] == "model_not_found"


@pytest.mark.parametrize("extra", [{"n": 2}, {"logprobs": True}, {"response_format": {"type": "yaml"}},
                                   {"tools": [{"type": "function", "function": {"name": ""}}]}])
def test_what_cannot_be_honoured_is_400(client: openai.OpenAI, extra: dict) -> None:
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="scripted", messages=[{"role": "user", "content": "hi"}], **extra)


def test_defaults_clients_send_are_accepted(server: LocalServer) -> None:
    body = chat_body("hi", n=1, logprobs=False, tools=[], presence_penalty=0, frequency_penalty=0,
                     logit_bias={}, response_format={"type": "text"}, max_tokens=1500, memory=False,
                     messages=[{"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
                               {"role": "user", "content": [{"type": "text", "text": "hi"}]}])
    response = httpx.post(server.url + "/v1/chat/completions", json=body)
    assert response.status_code == 200, response.text


def test_unknown_paths_are_openai_errors(server: LocalServer) -> None:
    response = httpx.get(server.url + "/v1/nothing")
    assert response.status_code == 404 and response.json()["error"]["type"] == "invalid_request_error"


def test_namespace_names_are_checked(server: LocalServer) -> None:
    response = httpx.post(server.url + "/v1/chat/completions", json=chat_body("hi"),
                          headers={"X-Local-Agent-User": "../etc"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "invalid_namespace"
    assert not (Path(server.settings.data_dir) / "etc").exists()


def test_reading_a_new_namespace_creates_nothing(server: LocalServer) -> None:
    """Issue 23: a GET naming a namespace nobody wrote to made users/NAME/ on disk."""
    headers = {"X-Local-Agent-User": "never-written"}
    listed = httpx.get(server.url + "/v1/memories", headers=headers, params={"kind": "all"})
    assert listed.status_code == 200 and listed.json()["data"] == []
    found = httpx.post(server.url + "/v1/memories/search", json={"query": "bees"}, headers=headers)
    assert found.status_code == 200 and found.json()["data"] == []
    gone = httpx.delete(server.url + "/v1/memories/0123456789", headers=headers)
    assert gone.status_code == 404
    assert not (Path(server.settings.data_dir) / "users" / "never-written").exists()
