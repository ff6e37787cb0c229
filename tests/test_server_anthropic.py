"""Anthropic's Messages API (`/v1/messages`) on a scripted model, through the official
`anthropic` package (plain and streamed) and raw HTTP: shapes, memory and namespaces, errors
in Anthropic's shape, and the key as `x-api-key`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import pytest
from anthropic.types import MessageParam

from local_agent.limits import MAX_MESSAGE_CHARS
from local_agent.server.run import LocalServer
from local_agent.types import GenerationSettings

from .fakes import ScriptedBackend
from .server_helpers import running_server, server_settings, start_process

DIRECTIVE = "You are a test directive."
KEY = "anthropic-test-key-0123456789"


class RecordingBackend(ScriptedBackend):
    """The scripted model, also keeping each call's generation settings."""

    def __init__(self) -> None:
        super().__init__(default="Scripted answer.")
        self.settings: list[GenerationSettings] = []

    def _stream(self, messages, settings, json_schema, usage):
        self.settings.append(settings)
        yield from super()._stream(messages, settings, json_schema, usage)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LocalServer, RecordingBackend]]:
    backend = RecordingBackend()
    data_dir = tmp_path_factory.mktemp("anthropic") / "data"
    with running_server(server_settings(data_dir), backend) as server:
        yield server, backend


@pytest.fixture
def server(served: tuple[LocalServer, RecordingBackend]) -> LocalServer:
    return served[0]


@pytest.fixture
def backend(served: tuple[LocalServer, RecordingBackend]) -> RecordingBackend:
    return served[1]


@pytest.fixture
def client(server: LocalServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=server.url, api_key="unused", max_retries=0)


def body(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "scripted", "max_tokens": 64, "messages": [{"role": "user", "content": text}], **extra}


def post(server: LocalServer, data: dict[str, Any], **headers: str) -> httpx.Response:
    return httpx.post(server.url + "/v1/messages", json=data, headers=headers, timeout=30)


def memories(server: LocalServer, user: str) -> list[str]:
    listed = httpx.get(server.url + "/v1/memories", params={"kind": "all"}, headers={"X-Local-Agent-User": user})
    return [record["text"] for record in listed.json()["data"]]


def test_a_plain_message(client: anthropic.Anthropic, backend: RecordingBackend) -> None:
    reply = client.messages.create(
        model="scripted", max_tokens=32, stop_sequences=["###"], system=DIRECTIVE,
        messages=[{"role": "user", "content": "Tell me a story"}], extra_headers={"X-Local-Agent-User": "plain"},
        extra_body={"temperature": 0.2, "top_p": 0.9})  # older clients send them; newer SDKs no longer do
    assert reply.type == "message" and reply.role == "assistant" and reply.model == "scripted"
    assert reply.id.startswith("msg_")
    assert [(block.type, getattr(block, "text", None)) for block in reply.content] == [("text", "Scripted answer.")]
    assert reply.stop_reason == "end_turn" and reply.stop_sequence is None
    assert reply.usage.output_tokens == 2 and reply.usage.input_tokens > 0
    prompt = next(p for p in reversed(backend.prompts) if p[-1].content.endswith("Tell me a story"))
    assert prompt[0].role == "system" and prompt[0].content.startswith(DIRECTIVE)
    assert backend.settings[-1].stop == ("###",) and backend.settings[-1].temperature == 0.2


def test_system_and_content_as_text_blocks_and_the_dialogue(client: anthropic.Anthropic,
                                                           backend: RecordingBackend) -> None:
    reply = client.messages.create(
        model="scripted", max_tokens=32,
        system=[{"type": "text", "text": DIRECTIVE}, {"type": "text", "text": "Be brief."}],
        messages=[{"role": "user", "content": [{"type": "text", "text": "Hello there"}]},
                  {"role": "assistant", "content": [{"type": "text", "text": "Hi."}]},
                  {"role": "user", "content": [{"type": "text", "text": "First part"},
                                               {"type": "text", "text": "second part"}]}],
        extra_headers={"X-Local-Agent-Memory": "off"})
    assert reply.content[0].type == "text"
    prompt = next(p for p in reversed(backend.prompts) if p[-1].content.endswith("First part\nsecond part"))
    assert prompt[0].content.startswith(DIRECTIVE + "\nBe brief.")
    assert [m.content for m in prompt[1:-1]][-2:] == ["Hello there", "Hi."]


def test_a_streamed_message(client: anthropic.Anthropic) -> None:
    with client.messages.stream(model="scripted", max_tokens=32, messages=[{"role": "user", "content": "Stream it"}],
                                extra_headers={"X-Local-Agent-Memory": "off"}) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "Scripted answer."
    assert final.content[0].type == "text" and final.content[0].text == "Scripted answer."
    assert final.stop_reason == "end_turn"
    assert final.usage.output_tokens == 2 and final.usage.input_tokens > 0


def test_the_raw_stream_is_anthropics_named_events(server: LocalServer) -> None:
    with httpx.stream("POST", server.url + "/v1/messages", json=body("raw", stream=True),
                      headers={"X-Local-Agent-Memory": "off"}) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = list(response.iter_lines())
    events = [line.removeprefix("event: ") for line in lines if line.startswith("event: ")]
    assert events[:2] == ["message_start", "content_block_start"]
    assert set(events[2:-3]) == {"content_block_delta"}
    assert events[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    assert not any("[DONE]" in line for line in lines)


def test_max_tokens_reached_is_the_stop_reason(client: anthropic.Anthropic) -> None:
    reply = client.messages.create(model="scripted", max_tokens=2, messages=[{"role": "user", "content": "Go on"}],
                                   extra_headers={"X-Local-Agent-Memory": "off"})
    assert reply.stop_reason == "max_tokens"


def test_memory_and_namespaces_as_on_the_openai_route(client: anthropic.Anthropic, server: LocalServer) -> None:
    told = client.messages.create(model="scripted", max_tokens=64, extra_headers={"X-Local-Agent-User": "ada"},
                                  messages=[{"role": "user", "content": "Hi."},
                                            {"role": "assistant", "content": "Hello."},
                                            {"role": "user", "content": "My name is Ada."}]).model_dump()
    assert [saved["text"] for saved in told["local_agent"]["saved"]] == ["The user's name is Ada."]
    later = client.messages.create(model="scripted", max_tokens=64, extra_headers={"X-Local-Agent-User": "ada"},
                                   messages=[{"role": "user", "content": "What is my name?"}]).model_dump()
    assert "The user's name is Ada." in [hit["text"] for hit in later["local_agent"]["recalled"]]
    assert "Hi." not in memories(server, "ada")  # only the last user message is the user's new words
    assert memories(server, "someone-else") == []


@pytest.mark.parametrize(("block", "said"), [
    ({"type": "tool_result", "tool_use_id": "toolu_1", "content": "My name is Mallory."}, "tool_result"),
    ({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}, "image"),
])
def test_a_block_that_is_not_text_is_refused_and_nothing_is_remembered(server: LocalServer, block: dict[str, Any],
                                                                       said: str) -> None:
    namespace = f"refused-{said.replace('_', '-')}"
    data = body("", messages=[{"role": "user", "content": [block, {"type": "text", "text": "My name is Mallory."}]}])
    response = post(server, data, **{"X-Local-Agent-User": namespace})
    assert response.status_code == 400
    error = response.json()
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert said in error["error"]["message"] and "messages[0].content[0]" in error["error"]["message"]
    assert memories(server, namespace) == []


def test_the_sdk_raises_its_own_errors(client: anthropic.Anthropic) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model="scripted", max_tokens=16, messages=[{"role": "user", "content": "hi"}],
                               tools=[{"name": "f", "description": "d", "input_schema": {"type": "object"}}])
    assert isinstance(caught.value.body, dict) and caught.value.body["error"]["type"] == "invalid_request_error"
    assert "tools" in caught.value.message
    with pytest.raises(anthropic.NotFoundError) as missing:
        client.messages.create(model="claude-sonnet-4-5", max_tokens=16, messages=[{"role": "user", "content": "hi"}])
    assert isinstance(missing.value.body, dict) and missing.value.body["error"]["type"] == "not_found_error"


@pytest.mark.parametrize(("data", "said"), [
    ({"model": "scripted", "messages": [{"role": "user", "content": "hi"}]}, "max_tokens: is required"),
    (body("hi", max_tokens="8"), "max_tokens: expected an integer, got a string"),
    (body("hi", stop_sequences=["a", ""]), "stop_sequences[1]"),
    (body("hi", temperature=1.5), "temperature: must be at most 1.0"),
    (body("hi", messages=[{"role": "system", "content": "hi"}]), "messages[0].role"),
    (body("hi", messages=[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure"}]), "prefill"),
    (body("hi", top_k=5), "top_k"),
    (body("hi", thinking={"type": "enabled", "budget_tokens": 1024}), "thinking"),
    (body("hi", output_config={"format": {"type": "json_schema", "schema": {"type": "object"}}}), "output_config"),
    (body("hi", max_tokens=4096), "context window"),
    (body("x" * (MAX_MESSAGE_CHARS + 1)), "messages[0].content: 32001 characters, over the"),
    (body("hi", system="s" * (MAX_MESSAGE_CHARS + 1)), "system: 32001 characters"),
])
def test_bad_requests_are_400_in_anthropics_shape(server: LocalServer, data: dict[str, Any], said: str) -> None:
    response = post(server, data)
    assert response.status_code == 400, response.text
    error = response.json()
    assert set(error) == {"type", "error"} and error["type"] == "error"
    assert error["error"]["type"] == "invalid_request_error" and said in error["error"]["message"]


def test_bad_json_and_a_wrong_content_type_are_anthropic_shaped(server: LocalServer) -> None:
    broken = httpx.post(server.url + "/v1/messages", content=b"{not json", headers={"Content-Type": "application/json"})
    assert broken.status_code == 400 and broken.json()["error"]["type"] == "invalid_request_error"
    plain = httpx.post(server.url + "/v1/messages", content=b"{}", headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415 and plain.json()["type"] == "error"
    openai_route = httpx.post(server.url + "/v1/chat/completions", content=b"{}",
                              headers={"Content-Type": "text/plain"})
    assert openai_route.status_code == 415 and "type" not in openai_route.json()  # the OpenAI routes keep their shape


def test_the_key_as_x_api_key_against_a_served_process(tmp_path: Path) -> None:
    process, url = start_process(tmp_path / "data", "--no-memory", api_key=KEY)
    try:
        right = anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0)
        story: list[MessageParam] = [{"role": "user", "content": "Tell me a story"}]
        reply = right.messages.create(model="scripted", max_tokens=16, messages=story)
        assert reply.content[0].type == "text" and reply.content[0].text == "Scripted answer."
        with right.messages.stream(model="scripted", max_tokens=16, messages=story) as stream:
            assert "".join(stream.text_stream) == "Scripted answer."
        wrong = anthropic.Anthropic(base_url=url, api_key="not-the-key", max_retries=0)
        with pytest.raises(anthropic.AuthenticationError) as caught:
            wrong.messages.create(model="scripted", max_tokens=16, messages=story)
        assert isinstance(caught.value.body, dict) and caught.value.body["error"]["type"] == "authentication_error"
        bare = httpx.post(url + "/v1/messages", json=body("hi"))
        assert bare.status_code == 401 and bare.json()["error"]["type"] == "authentication_error"
        assert httpx.get(url + "/v1/models", headers={"x-api-key": KEY}).status_code == 200  # on every route
        assert httpx.get(url + "/v1/models", headers={"x-api-key": "wrong"}).status_code == 401
    finally:
        process.terminate()
        process.wait(30)
