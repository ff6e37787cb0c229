"""Where the MCP servers' tools join the router: a message the built-in rules and classifier
route to no tool of their own is compared with the MCP tools' descriptions (the cosine of the
sentence embeddings, as the memory and the intent classifier use, of the message and of the
tool's name and own description); when the closest is near
enough, the step loop runs with that tool, and the model writes the call under the action
schema (the tool's own arguments, bounded: mcp_schema.py, and kept to the values the message
names where the program knows them: mcp_grounding.py). Plain chat stays chat: no MCP tool is near it.

The servers start on the first message that reaches this point (McpServers.tools), so a chat
that never asks anything never starts them. docs/tools.md has the measurement behind
THRESHOLD and against offering the tools to the model's own choice.
"""

from __future__ import annotations

from collections.abc import Callable, MutableMapping
from typing import Any

import numpy as np

from .base import Tool
from .intent import Intent
from .mcp_client import McpServers
from .mcp_grounding import determined, grounded
from .router import Route, Router

Embed = Callable[[list[str]], np.ndarray]
THRESHOLD = 0.25  # cosine of the message and a tool's name and description (docs/tools.md: measured)


def _unit(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


class McpRouter(Router):
    """The built-in router first; then the MCP tools by their descriptions. Tools that start
    are added to `turn_tools` (the tool turn's own), so the loop can run them."""

    def __init__(self, turn_tools: MutableMapping[str, Tool], intent: Intent | None, servers: McpServers,
                 embed: Embed, threshold: float = THRESHOLD) -> None:
        super().__init__(dict(turn_tools), intent)
        self.turn_tools = turn_tools
        self.servers = servers
        self.embed = embed
        self.threshold = threshold
        self._described: tuple[list[Tool], np.ndarray] | None = None

    def route(self, message: Any) -> Route:
        """The built-in route of `message` (its text, or what the turn read of it: whatever the
        built-in router takes), else an MCP tool's."""
        route = super().route(message)
        if route.kind != "none":
            return route
        message = message if isinstance(message, str) else str(message.text)
        scored = self.closest(message)
        if scored is None:
            return route
        tool, score = scored
        if score < self.threshold:
            return Route("none", reason=f"{route.reason}; mcp: no tool near (best {tool.name} {score:.2f})")
        narrowed = self.turn_tools[tool.name] = grounded(tool, message)  # this turn's candidates
        arguments = determined(narrowed)
        if arguments is not None:  # nothing left to choose: the call is made by rule (mcp_grounding.py)
            return Route("model", (tool.name,), arguments, f"mcp: {tool.name} {score:.2f}", first=tool.name)
        return Route("model", (tool.name,), reason=f"mcp: {tool.name} {score:.2f}")

    def closest(self, message: str) -> tuple[Tool, float] | None:
        """The MCP tool whose description is nearest the message, and the cosine; None when
        no server gave a tool."""
        described = self._descriptions()
        if described is None:
            return None
        tools, vectors = described
        scores = vectors @ _unit(self.embed([message]))[0]
        best = int(np.argmax(scores))
        return tools[best], float(scores[best])

    def _descriptions(self) -> tuple[list[Tool], np.ndarray] | None:
        if self._described is None:
            tools = self.servers.tools(taken=list(self.turn_tools))
            for tool in tools:
                self.turn_tools.setdefault(tool.name, tool)
            texts = [self.servers.summaries.get(tool.name, tool.description) for tool in tools]
            self._described = (tools, _unit(self.embed(texts)) if tools else np.zeros((0, 0)))
        tools, vectors = self._described
        return (tools, vectors) if tools else None
