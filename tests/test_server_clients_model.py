"""Real client libraries against a real `serve` on the default model: the `openai` package's
tool loop, `instructor` (a pydantic model out of `response_format` and out of a named tool),
and a pydantic-ai agent completing a tool loop. The model is small, so these assert the
protocol (shapes, schema validity, the loop completing); how often its calls are right is
measured by scripts/eval_structured.py and reported in docs/server.md."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal, cast

import httpx
import jsonschema
import openai
import pytest
from pydantic import BaseModel, Field

from .server_helpers import start_process

pytestmark = pytest.mark.model
WEATHER: Any = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


class Address(BaseModel):
    city: str
    country: str


class Person(BaseModel):
    name: str
    age: int = Field(ge=0, le=120)
    home: Address
    mood: Literal["happy", "sad", "calm"]


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory, default_gguf: Path) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("clients") / "data"
    process, address = start_process(data_dir, "--max-tokens", "160", scripted=False)
    try:
        yield address
    finally:
        process.terminate()
        process.wait(60)


@pytest.fixture
def client(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0, timeout=300)


@pytest.fixture
def model(client: openai.OpenAI) -> str:
    return client.models.list().data[0].id


def test_openai_tool_loop_call_then_answer(client: openai.OpenAI, model: str, url: str) -> None:
    headers = {"X-Local-Agent-User": "loop"}
    messages: list[Any] = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = client.chat.completions.create(model=model, messages=messages, tools=[WEATHER],
                                           tool_choice="required", extra_headers=headers)
    choice = first.choices[0]
    assert choice.finish_reason == "tool_calls"
    [call] = cast(list[Any], choice.message.tool_calls or [])
    assert call.function.name == "get_weather"
    jsonschema.validate(json.loads(call.function.arguments), WEATHER["function"]["parameters"])
    messages += [choice.message.model_dump(exclude_none=True),
                 {"role": "tool", "tool_call_id": call.id, "content": "Sunny, 24 degrees, a light westerly wind."}]
    second = client.chat.completions.create(model=model, messages=messages, tools=[WEATHER],
                                            tool_choice="none", extra_headers=headers)
    assert second.choices[0].finish_reason in ("stop", "length")
    assert (second.choices[0].message.content or "").strip()
    listed = httpx.get(url + "/v1/memories", params={"kind": "all"}, headers=headers, timeout=60).json()["data"]
    texts = [record["text"] for record in listed]
    assert "What is the weather in Paris?" in texts
    assert not [text for text in texts if "westerly" in text]


def test_openai_streamed_call(client: openai.OpenAI, model: str) -> None:
    stream = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": "Weather in Oslo?"}], tools=[WEATHER],
        tool_choice={"type": "function", "function": {"name": "get_weather"}}, stream=True,
        extra_body={"memory": False})
    arguments, names, reasons = "", [], []
    for chunk in stream:
        for delta_call in chunk.choices[0].delta.tool_calls or [] if chunk.choices else []:
            names.append(delta_call.function.name if delta_call.function else None)
            arguments += (delta_call.function.arguments or "") if delta_call.function else ""
        reasons += [chunk.choices[0].finish_reason] if chunk.choices else []
    assert "get_weather" in names and reasons[-1] == "tool_calls"
    jsonschema.validate(json.loads(arguments), WEATHER["function"]["parameters"])


@pytest.mark.parametrize("mode", ["JSON_SCHEMA", "TOOLS"])
def test_instructor_gives_a_pydantic_model(client: openai.OpenAI, model: str, mode: str) -> None:
    import instructor

    patched = instructor.from_openai(client, mode=getattr(instructor.Mode, mode))
    person = patched.chat.completions.create(
        model=model, response_model=Person, max_retries=0, extra_body={"memory": False},
        messages=[{"role": "user", "content": "Ann is 41, lives in Lisbon, Portugal, and is happy."}])
    assert isinstance(person, Person) and isinstance(person.home, Address)
    assert 0 <= person.age <= 120


def test_pydantic_ai_agent_completes_a_tool_loop(url: str, model: str) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    chat_model = OpenAIChatModel(model, provider=OpenAIProvider(base_url=url + "/v1", api_key="unused"))
    agent = Agent(chat_model, instructions="Use the tools to answer.", retries=2)
    asked: list[str] = []

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """The current weather in a city."""
        asked.append(city)
        return f"Sunny and 24 degrees in {city}."

    from pydantic_ai.usage import UsageLimits

    result = agent.run_sync("What is the weather in Paris?", model_settings={"extra_body": {"memory": False}},
                            usage_limits=UsageLimits(request_limit=4))
    assert isinstance(result.output, str) and result.output.strip()
    kinds = [part.part_kind for message in result.all_messages() for part in message.parts]
    assert kinds[0] in ("system-prompt", "user-prompt") and "text" in kinds
