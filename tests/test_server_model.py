"""The server on the real default model, in a process of its own, through the `openai`
package: a streamed and a non-streamed completion, and a fact told in one request recalled in
a later one with a fresh message list."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest

from .server_helpers import start_process

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, default_gguf: Path) -> Iterator[openai.OpenAI]:
    data_dir = tmp_path_factory.mktemp("model-server") / "data"
    process, url = start_process(data_dir, "--max-tokens", "48", scripted=False)
    try:
        yield openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0, timeout=120)
    finally:
        process.terminate()
        process.wait(60)


def test_non_streamed(client: openai.OpenAI) -> None:
    model = client.models.list().data[0].id
    completion = client.chat.completions.create(
        model=model, max_tokens=16, messages=[{"role": "user", "content": "What is the capital of France?"}],
        extra_body={"memory": False})
    assert (completion.choices[0].message.content or "").strip()
    assert completion.usage is not None
    assert completion.usage.completion_tokens <= 16 and completion.usage.prompt_tokens > 10


def test_streamed(client: openai.OpenAI) -> None:
    stream = client.chat.completions.create(
        model=client.models.list().data[0].id, max_tokens=16, stream=True,
        messages=[{"role": "user", "content": "Say hello."}], extra_body={"memory": False})
    pieces = [chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices]
    assert len([p for p in pieces if p]) >= 2 and "".join(pieces).strip()


def test_a_fact_is_recalled_in_a_later_request(client: openai.OpenAI) -> None:
    model = client.models.list().data[0].id
    client.chat.completions.create(model=model, max_tokens=16,
                                   messages=[{"role": "user", "content": "My name is Ada and I live in Lisbon."}])
    later = client.chat.completions.create(model=model, max_tokens=16,
                                           messages=[{"role": "user", "content": "Where do I live?"}])
    recalled = [hit["text"] for hit in later.model_dump()["local_agent"]["recalled"]]
    assert any("Lisbon" in text for text in recalled), recalled
