"""The turn without memory, on a scripted model: streaming, history, interruption, budget."""


from local_agent.agent import Agent
from local_agent.memory.sessions import Session, SessionStore
from local_agent.types import GenerationSettings
from tests.fakes import ScriptedBackend


def make_agent(tmp_path, backend=None, **kwargs):
    backend = backend or ScriptedBackend()
    sessions = SessionStore(tmp_path)
    return Agent(backend, sessions, Session(name="s1"), GenerationSettings(max_tokens=64), **kwargs), backend


def test_streams_and_keeps_history(tmp_path):
    agent, backend = make_agent(tmp_path, ScriptedBackend(["Hello there friend", "Second answer"]))
    chunks: list[str] = []
    first = agent.respond("Hi", on_token=chunks.append)
    assert first.answer == "Hello there friend" and len(chunks) == 3
    agent.respond("And again?")
    sent = backend.prompts[-1]
    assert [m.role for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[1].content == "Hi" and sent[2].content == "Hello there friend"
    reloaded = SessionStore(tmp_path).load("s1")
    assert [t.content for t in reloaded.turns] == ["Hi", "Hello there friend", "And again?", "Second answer"]
    assert first.timings["first_token_s"] > 0


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
    from local_agent.agent import AgentOptions

    agent, _ = make_agent(tmp_path, options=AgentOptions(incognito=True))
    agent.respond("secret")
    assert not (tmp_path / "sessions").exists()
