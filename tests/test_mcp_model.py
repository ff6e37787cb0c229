"""`local-agent mcp` on the real default model: a fact remembered through `remember` is used by
the local model's answer to `ask`, over the SDK's stdio client."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from .mcp_helpers import connected, data_of

pytestmark = pytest.mark.model


def test_ask_answers_with_a_fact_remembered_through_remember(data_dir: Path, default_gguf: Path) -> None:
    async def scenario() -> dict:
        async with connected("stdio", data_dir, scripted=False) as client:
            said = data_of(await client.call_tool("remember", {"text": "My daughter is called Mireille."}))
            assert said["outcome"] == "saved"
            return data_of(await client.call_tool("ask", {"question": "What is my daughter called?"}))
    asked = anyio.run(scenario)
    assert "Mireille" in asked["answer"]
    assert any("Mireille" in memory["text"] for memory in asked["memories_used"])
