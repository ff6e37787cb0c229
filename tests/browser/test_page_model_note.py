"""The page with the tiny default model says, in one line over the conversation and in its
settings, that answers will often be unsure and which bigger models to pull; with another model
it says nothing of it (a scripted `serve`: what is tested is the page, not the answers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from local_agent.config import DEFAULT_MODEL

from ..server_helpers import start_process
from .browser import Page, wait_for

pytestmark = [pytest.mark.browser]
UNSURE = "answers will often be unsure"


@pytest.mark.parametrize(("model", "shown"), [(DEFAULT_MODEL, True), ("qwen2.5-0.5b-instruct-q4_k_m", False)])
def test_the_line_over_the_conversation_and_in_settings(driver: Any, tmp_path: Path, model: str, shown: bool) -> None:
    process, url = start_process(tmp_path / "data", "--model", model, hash_embedder=True)
    try:
        note = httpx.get(url + "/v1/local-agent/info", timeout=30).json()["model_note"]
        page = Page(driver, url).open("#/chat")
        assert page.visible("#model-note") is shown
        if shown:
            assert page.find("#model-note").text == note["text"] and UNSURE in note["text"]
            assert "local-agent models pull" in note["text"] or "No bigger model" in note["text"]
            assert [v["id"] for v in page.axe() if v["impact"] in ("serious", "critical")] == []
        page.go("#/settings")
        page.shows("settings")
        settings = wait_for(lambda: page.find("#settings-list").text, 10, "the settings")
        assert (UNSURE in settings) is shown
        assert page.errors() == []
    finally:
        process.terminate()
        process.wait(60)
