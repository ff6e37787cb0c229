"""The distiller's own llama.cpp instance loads when the distiller first calls it, not with the
runtime: a turn the rules and the gate decide alone (a "hi") loads one model."""

from __future__ import annotations

from pathlib import Path

from local_agent.app import build_runtime
from local_agent.backends.base import Backend
from local_agent.backends.lazy import LazyBackend
from local_agent.backends.probe import BackendChoice
from local_agent.config import Settings
from local_agent.types import GenerationSettings, Message
from tests.fakes import ScriptedBackend


class CountingFactory:
    """Loads a new scripted model per call, as the llama.cpp runtime."""

    def __init__(self) -> None:
        self.loaded: list[Backend] = []

    def __call__(self, settings: Settings, *, model: str | None = None) -> tuple[Backend, BackendChoice]:
        self.loaded.append(ScriptedBackend(default="Hello!"))
        return self.loaded[-1], BackendChoice(backend="llama-cpp", device="cpu", reason="test")


def test_the_distillers_model_loads_on_its_first_call(tmp_path: Path) -> None:
    factory = CountingFactory()
    with build_runtime(Settings(data_dir=tmp_path / "data"), backend_factory=factory) as runtime:
        assert len(factory.loaded) == 1  # the chat model only
        runtime.agent.respond("hi")
        runtime.agent.wait()
        assert len(factory.loaded) == 1  # "hi" asks the distiller's model nothing
        distiller = runtime.distill_backend
        assert isinstance(distiller, LazyBackend) and not distiller.loaded
        assert distiller.generate([Message("user", "x")], GenerationSettings(max_tokens=4)).text == "Hello!"
        assert len(factory.loaded) == 2 and distiller.loaded
