"""Session digests: a chat session left after a few exchanges is stored in short, dated, and a
later digest of the same session replaces it; short or one-shot sessions get none."""
import datetime as dt

from local_agent.config import Settings
from local_agent.memory.digests import save_digest
from local_agent.memory.sessions import SessionStore
from local_agent.memory.store import MemoryStore
from local_agent.memory.summary import Summarizer
from local_agent.turn.agent import Agent, MemoryParts
from tests.fakes import ScriptedBackend
from tests.reliability import HashEmbedder

BULLETS = '{"bullets": ["The user planned a trip to Porto", "The assistant suggested Dune"]}'


def _agent(tmp_path, store, backend, today="2024-05-02T10:00", digests=True):
    sessions = SessionStore(tmp_path / "sessions")
    agent = Agent(backend, sessions, sessions.load_or_create("trip"), Settings(max_tokens=64, today=today),
                  memory=MemoryParts(store=store, summarizer=Summarizer(backend)))
    agent.digests = digests
    return agent


def test_a_left_session_gets_one_digest_updated_not_duplicated(tmp_path):
    store = MemoryStore.open(tmp_path / "mem", HashEmbedder())
    backend = ScriptedBackend(["Nice.", "Sure.", "Dune.", BULLETS])
    agent = _agent(tmp_path, store, backend)
    for message in ["I plan a trip to Porto", "in June", "suggest a book"]:
        agent.respond(message)
    agent.use_session("other")  # leaving the session writes its digest
    (digest,) = store.records(kind="digest")
    assert digest.text == ("- The user planned a trip to Porto\n- The assistant suggested Dune\n"  # the model's
                           "- The user said: in June\n- The user asked: suggest a book")  # the rule's: the rest
    assert digest.provenance.session == "trip" and digest.provenance.date == "2024-05-02T10:00"
    again = save_digest(store, "trip", "- The user went to Porto", "2024-05-03T09:00", "2024-05-03T09:30")
    assert again is not None and [r.id for r in store.records(kind="digest")] == [again.id]
    assert again.provenance.date == "2024-05-02T10:00" and again.provenance.until == "2024-05-03T09:30"
    hits = store.recall("what did we talk about on May 2nd?", k=2, min_score=-1.0,
                        today=dt.datetime(2024, 5, 10))
    assert again.id in [h.record.id for h in hits]
    agent.close()
    store.close()


def test_short_or_one_shot_sessions_get_none(tmp_path):
    store = MemoryStore.open(tmp_path / "mem", HashEmbedder())
    agent = _agent(tmp_path, store, ScriptedBackend(default=BULLETS))
    agent.respond("hello")
    agent.respond("bye")
    agent.close()
    one_shot = _agent(tmp_path, store, ScriptedBackend(default=BULLETS), digests=False)
    for message in ["a", "b", "c"]:
        one_shot.respond(message)
    one_shot.close()
    assert store.records(kind="digest") == []
    store.close()


def test_a_digest_holds_only_bullets_with_words_of_its_session(tmp_path):
    """The model returned the prompt's example as it was ("...") or named what nobody said: the
    rule summarizes the user's turns instead."""
    store = MemoryStore.open(tmp_path / "mem", HashEmbedder())
    placeholder = '{"bullets": ["...", "...", "Lena", "The user read a book called The Great Barrier Reef."]}'
    agent = _agent(tmp_path, store, ScriptedBackend(["Hi.", "Nice.", "Yum.", placeholder]))
    for message in ["My name is Alexandra and I live in Lisbon.", "I work as a nurse at the city hospital.",
                    "My favourite food is grilled sardines."]:
        agent.respond(message)
    agent.close()
    (digest,) = store.records(kind="digest")
    assert digest.text == ("- The user's name is Alexandra; the user lives in Lisbon.\n"
                           "- The user works as a nurse at the city hospital.\n"
                           "- The user's favourite food is grilled sardines.")
    store.close()
