"""The router's intent classifier: asked only about questions the rules route nowhere, it
sends a message to a tool family only above its threshold and only to tools that are on."""

from __future__ import annotations

import numpy as np
import pytest

from local_agent.tools.intent import FAMILIES, Intent, IntentModel
from local_agent.tools.registry import TOOL_NAMES
from local_agent.tools.router import Router

# Two dimensions: the first says "notes", the second "sql".
MODEL = IntentModel(("notes_search", "sql"), np.array([[8.0, 0.0], [0.0, 8.0]], dtype=np.float32),
                    np.array([-4.0, -4.0], dtype=np.float32), threshold=0.7)
VECTORS = {"wifi code?": [1.0, 0.0], "members in Oslo?": [0.0, 1.0], "how are you?": [0.1, 0.1],
           "unsure?": [0.55, 0.0]}


class CountingEmbed:
    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        return np.array([VECTORS[text] for text in texts], dtype=np.float32)


@pytest.mark.parametrize(("message", "tools"), [
    ("wifi code?", ("notes_search",)), ("members in Oslo?", ("sql_schema", "sql_query")),
    ("how are you?", ()), ("unsure?", ()),
])
def test_a_guess_needs_the_threshold(message: str, tools: tuple[str, ...]) -> None:
    assert Intent(CountingEmbed(), MODEL).guess(message, TOOL_NAMES).tools == tools


def test_a_family_that_is_off_is_never_guessed() -> None:
    assert Intent(CountingEmbed(), MODEL).guess("wifi code?", ["calculator", "date"]).tools == ()


def test_the_router_asks_only_about_questions_its_rules_leave_open() -> None:
    embed = CountingEmbed()
    router = Router(TOOL_NAMES, Intent(embed, MODEL))
    route = router.route("wifi code?")
    assert (route.kind, route.tools, route.first) == ("model", ("notes_search",), "notes_search")
    assert route.reason.startswith("intent: notes_search")
    assert router.route("What is 2 + 2?").kind == "direct"  # a rule: no embedding
    assert router.route("I love rainy days").kind == "none"  # not a question or request: no embedding
    assert router.route("What is my sister's name?").tools == ("memory_search",)  # a subject rule
    assert embed.calls == [["wifi code?"]]


def test_the_packaged_model_matches_the_families_and_the_default_embedder() -> None:
    model = IntentModel.packaged()
    assert model is not None and model.families == tuple(FAMILIES)
    assert model.weights.shape == (len(FAMILIES), 384) and 0.5 <= model.threshold < 1.0
    assert model.embedder_id.endswith("all-MiniLM-L6-v2") or "MiniLM" in model.embedder_id


@pytest.mark.model
def test_with_the_real_embedder_plain_chat_stays_chat_and_a_door_code_goes_to_the_notes() -> None:
    from local_agent.config import CHECKOUT_MODELS_DIR
    from local_agent.memory.index.gguf_embedder import memory_embedder

    router = Router(TOOL_NAMES, Intent(memory_embedder(CHECKOUT_MODELS_DIR, "cpu").embed))
    for message in ("How are you today?", "Can you tell me about Paris?", "What should I eat for dinner?",
                    "Do you know any good jokes?", "What did we talk about yesterday?"):
        assert router.route(message).kind == "none", message
    assert router.route("What's the code for the front door?").tools == ("notes_search",)
