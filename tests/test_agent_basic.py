"""The turn on a scripted model: streaming, history, interruption, budget, the memory work after it."""

import dataclasses

import pytest

from local_agent.config import Settings
from local_agent.memory.sessions import Session, SessionStore
from local_agent.turn.agent import Agent, MemoryParts
from local_agent.turn.result import measured
from tests.fakes import ScriptedBackend


def make_agent(tmp_path, backend=None, memory=None, **settings):
    backend = backend or ScriptedBackend()
    sessions = SessionStore(tmp_path)
    return Agent(backend, sessions, Session(name="s1"), Settings(max_tokens=64, **settings), memory=memory), backend


def test_streams_and_keeps_history(tmp_path):  # a request: streamed (a greeting is held, turn/replies.py)
    agent, backend = make_agent(tmp_path, ScriptedBackend(["Hello there friend", "Second answer"]))
    chunks: list[str] = []
    first = agent.respond("Tell me a story", on_token=chunks.append)
    assert first.answer == "Hello there friend" and len(chunks) == 3
    agent.respond("And again?")
    sent = backend.prompts[-1]
    assert [m.role for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[1].content == "Tell me a story" and sent[2].content == "Hello there friend"
    reloaded = SessionStore(tmp_path).load("s1")
    assert [t.content for t in reloaded.turns] == ["Tell me a story", "Hello there friend", "And again?",
                                                   "Second answer"]
    assert measured(first.timings.first_token_s) > 0


def test_ctrl_c_stops_answer_and_keeps_partial(tmp_path):
    agent, _ = make_agent(tmp_path, ScriptedBackend(["one two three four five"]))
    seen = []

    def on_token(chunk):
        seen.append(chunk)
        if len(seen) == 2:
            raise KeyboardInterrupt

    result = agent.respond("talk", on_token=on_token)
    assert result.interrupted
    assert result.answer == "one two"
    assert agent.session.turns[-1].content == "one two"


def test_prompt_fits_context_with_huge_message(tmp_path):
    agent, backend = make_agent(tmp_path, ScriptedBackend(context_size=1024))
    result = agent.respond("blah " * 20_000)
    assert backend.count_prompt_tokens(backend.prompts[-1]) + 64 <= 1024
    assert result.notices


def test_incognito_writes_no_session(tmp_path):
    agent, _ = make_agent(tmp_path, incognito=True)
    agent.respond("secret")
    assert not (tmp_path / "sessions").exists()


def test_result_is_final_and_the_memory_work_is_a_handle(tmp_path):
    from local_agent.memory.store import MemoryStore
    from tests.reliability import HashEmbedder

    store = MemoryStore.open(tmp_path, HashEmbedder())
    agent, _ = make_agent(tmp_path, memory=MemoryParts(store=store))
    try:
        result = agent.respond("I live in Lisbon")
        seen = dataclasses.asdict(dataclasses.replace(result, memory=None))
        work = result.memory_work()
        assert dataclasses.asdict(dataclasses.replace(result, memory=None)) == seen  # nothing changed it
        with pytest.raises(dataclasses.FrozenInstanceError):
            result.answer = "changed"  # type: ignore[misc,unused-ignore]
        assert work.error is None and work.timings.store_s is not None and "store_s" not in result.timings.to_dict()
        assert [(r.text, r.provenance.role) for r in store.records(kind="turn")] == [
            ("I live in Lisbon", "user"), ("OK.", "assistant")]
        agent.set_incognito(True)
        assert agent.respond("a secret").memory is None  # nothing is remembered in incognito
    finally:
        agent.close()
        store.close()


SMALL_TALK = ["hi", "Hello!", "hey there", "thanks!", "Thank you so much", "how are you?", "good morning",
              "what's up?", "ok", "bye", "How are you doing today?", "got it, thanks"]
ASKS_SOMETHING = ["what did I do today?", "where do I live?", "hi, I moved to Porto", "recommend a book",
                  "what did we talk about yesterday?", "how was my trip?", "what is my name?",
                  "what do you know about me?", "yes please, the blue one", "Hi! I drive a Ford truck"]


@pytest.mark.parametrize("message", SMALL_TALK)
def test_small_talk_is_read_as_such(message):
    from local_agent.reading.courtesy import is_small_talk
    from local_agent.reading.words import words

    assert is_small_talk(words(message))


@pytest.mark.parametrize("message", [*ASKS_SOMETHING, "", "   "])
def test_a_message_that_names_something_is_not_small_talk(message):
    from local_agent.reading.courtesy import is_small_talk
    from local_agent.reading.words import words

    assert not is_small_talk(words(message))


def test_small_talk_recalls_no_memories(tmp_path):
    """A greeting would recall other greetings: they only lengthen the prompt."""
    from local_agent.memory.store import MemoryStore
    from tests.reliability import HashEmbedder

    store = MemoryStore.open(tmp_path, HashEmbedder())
    for text in ("Hi! I drive a Ford truck", "hi", "Hello there, my dog says hello"):
        store.add(text, "fact")
    agent, backend = make_agent(tmp_path, memory=MemoryParts(store=store), incognito=True)
    try:
        assert agent.respond("hi").recalled == ()
        assert "Ford" not in backend.prompts[-1][-1].content
        assert agent.respond("Which truck do I drive? Hi").recalled  # a question still recalls
    finally:
        agent.close()
        store.close()


class ReadingAhead(ScriptedBackend):
    def __init__(self) -> None:
        super().__init__(["First answer", "Second answer"])
        self.prepared: list[list[str]] = []

    def prepare(self, dialogue, cancelled=lambda: False) -> None:
        self.prepared.append([m.content for m in dialogue])


def test_the_next_turn_is_read_ahead_after_the_memory_work(tmp_path):
    agent, backend = make_agent(tmp_path, ReadingAhead())
    agent.respond("Tell me a story")
    agent.prepare_next_turn()
    assert agent.wait(timeout=10)
    assert backend.prepared[-1][1:] == ["Tell me a story", "First answer"]  # after the system message
    agent.respond("And now?")
    sent = [m.content for m in backend.prompts[-1]]
    assert sent[: len(backend.prepared[-1])] == backend.prepared[-1]  # the next prompt opens with it
    agent.close()


def test_no_background_thread_outlives_the_work_before_the_next_turn(tmp_path):
    """The memory work and the reading ahead run on a thread that is gone when the next turn
    starts: a thread that ran the model keeps an OpenMP team, which slowed decode to a third."""
    import threading

    from local_agent.memory.store import MemoryStore
    from tests.reliability import HashEmbedder

    store = MemoryStore.open(tmp_path, HashEmbedder())
    agent, _ = make_agent(tmp_path, memory=MemoryParts(store=store))
    try:
        agent.respond("I live in Lisbon")
        agent.prepare_next_turn()
        assert agent.wait()
        assert not [t for t in threading.enumerate() if t.name.startswith("memory-work")]
        agent.respond("And I play the cello")
        assert agent.wait()
        assert not [t for t in threading.enumerate() if t.name.startswith("memory-work")]
    finally:
        agent.close()
        store.close()


def test_timings_and_tokens_are_typed_records_with_the_old_json_shape(tmp_path):
    """Timings and token counts were string-keyed dicts; they are frozen records now, and the
    JSON record (ask --json, batch) keeps their names, their order and their rounding."""
    from local_agent.backends.probe import BackendChoice
    from local_agent.turn.record import turn_json
    from local_agent.turn.result import TurnTimings

    agent, _ = make_agent(tmp_path, ScriptedBackend(["three words here"]))
    result = agent.respond("Hi")
    assert result.tokens.completion == 3 and result.tokens.prompt > 0
    record = turn_json(result, BackendChoice(backend="scripted", device="cpu", reason="test"), "scripted")
    assert record["tokens"] == {"prompt": result.tokens.prompt, "completion": 3}
    assert list(record["timings"]) == ["compose_s", "model_first_token_s", "first_token_s", "generation_s",
                                       "answer_s"]
    assert all(isinstance(value, float) for value in record["timings"].values())
    with pytest.raises(TypeError):
        TurnTimings.measured({"answer_s": 1.0, "answr_s": 2.0})  # a misspelt step is caught
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.timings.answer_s = 0.0


def test_closing_the_runtime_waits_for_the_warm_up_so_no_thread_outlives_the_chat(tmp_path):
    """Issue 23: a chat's embedder warm-up thread outlived the command. In a process that runs
    the CLI again (the tests) it went on loading after the chat ended, and llama.cpp's quiet
    load points the whole process's stdout and stderr at /dev/null meanwhile: the next run's
    error line was lost (tests/test_cli.py::test_piped_chat_and_batch_input_are_bounded)."""
    import threading
    import time
    from typing import cast

    from local_agent.app import Runtime
    from local_agent.backends.probe import BackendChoice
    from local_agent.memory.index.embedder import TextEmbedder
    from local_agent.memory.store import MemoryStore
    from tests.reliability import HashEmbedder

    class SlowWarmUp(HashEmbedder):
        def __init__(self) -> None:
            self.done = threading.Event()

        def warm_up(self) -> None:
            time.sleep(0.5)
            self.done.set()

    embedder = SlowWarmUp()
    store = MemoryStore.open(tmp_path, embedder)
    agent, backend = make_agent(tmp_path, memory=MemoryParts(store=store))
    runtime = Runtime(agent=agent, backend=backend, choice=BackendChoice("scripted", "cpu", "test"),
                      embedder=cast("TextEmbedder", embedder), memory=agent.memory)
    runtime.resources.callback(store.close)
    runtime.resources.callback(agent.close)
    runtime.warm_up()
    runtime.close()
    assert embedder.done.is_set()
    assert not [t for t in threading.enumerate() if t.name == "warm-up"]
