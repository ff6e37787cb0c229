"""Request bodies, validated by pydantic (through FastAPI): a wrong type, a missing field or an
out-of-range number is a 400 before anything runs. Types are strict, as in OpenAI's API: a
number is not taken for a string or a boolean, nor `true` or "8" for an integer (invalid.py
says what failed in the API's terms).

Unknown fields are accepted and ignored, as OpenAI's own clients send many (presence_penalty,
logit_bias, ...). What the server cannot honour is refused by name in `unsupported`: `n` > 1,
`logprobs` and the legacy `functions`; tools and response formats are read in tool_calls.py.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..limits import MAX_MESSAGE_CHARS

MAX_MESSAGES = 10_000
MAX_EMBED_INPUTS = 256
MAX_INT = 2**63 - 1


def _encodable(text: str) -> str:
    """Text that can be written as UTF-8: JSON's \\ud800 escapes can smuggle in lone surrogates."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text is not valid Unicode (it holds a lone surrogate)") from None
    return text


Text = Annotated[str, AfterValidator(_encodable)]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)


class ContentPart(_Open):
    type: str
    text: Text | None = None


class ChatMessage(_Open):
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: Text | list[ContentPart] | None = None
    tool_calls: list[dict[str, Any]] | None = None  # an assistant's calls (tool_calls.py)
    tool_call_id: str | None = None  # a tool message: the call it answers


class StreamOptions(_Open):
    include_usage: bool = False


class ResponseFormat(_Open):
    type: str = "text"
    json_schema: dict[str, Any] | None = None


class ChatRequest(_Open):
    model: str | None = None
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    max_tokens: int | None = Field(None, ge=1, le=MAX_INT)
    max_completion_tokens: int | None = Field(None, ge=1, le=MAX_INT)
    temperature: float | None = Field(None, ge=0.0, le=2.0)
    top_p: float | None = Field(None, gt=0.0, le=1.0)
    seed: int | None = Field(None, ge=-MAX_INT - 1, le=MAX_INT)
    stop: Text | list[Annotated[Text, Field(min_length=1)]] | None = None
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int | None = Field(None, ge=1, le=128)
    logprobs: bool | None = None
    tools: list[dict[str, Any]] | None = None
    functions: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    response_format: ResponseFormat | None = None
    user: Text | None = None
    memory: bool | None = None  # local-agent's own: false reads and writes no memory


class EmbeddingsRequest(_Open):
    input: Text | list[Text] = Field(min_length=1)
    model: str | None = None
    encoding_format: Literal["float", "base64"] = "float"
    dimensions: int | None = Field(None, ge=1, le=100_000)
    user: Text | None = None


class MemoryAdd(_Open):
    text: Text = Field(min_length=1)
    user: Text | None = None  # the namespace, as in a chat request (namespaces.py)


class MemorySearch(_Open):
    query: Text = Field(min_length=1, max_length=MAX_MESSAGE_CHARS)  # a query is read as a message is
    limit: int = Field(10, ge=1, le=100)
    user: Text | None = None


class AskRequest(_Open):
    """The warm `ask`: what the CLI would do in-process, and the load-time settings it expects."""

    message: Text = Field(min_length=1)
    session: str | None = None
    system: Text | None = None
    memory: bool = True
    settings: dict[str, Any] = Field(default_factory=dict)
    expect: dict[str, Any] = Field(default_factory=dict)
    wait_for_memory: bool = True  # False: answer first; the server finishes the memory work after
    user: Text | None = None  # refused: the warm ask is in the default memory only


REQUEST_MODELS: tuple[type[BaseModel], ...] = (ChatRequest, EmbeddingsRequest, MemoryAdd, MemorySearch, AskRequest)


def unsupported(body: ChatRequest) -> tuple[str, str] | None:
    """(why, the param) when the request asks for something the server cannot do, or None."""
    if body.n is not None and body.n > 1:
        return "n: more than one answer per request is not supported", "n"
    if body.logprobs:
        return "logprobs: not supported", "logprobs"
    if body.functions:
        return "functions: not supported (send tools instead)", "functions"
    if isinstance(body.stop, list) and len(body.stop) > 4:
        return "stop: at most 4 sequences", "stop"
    return None
