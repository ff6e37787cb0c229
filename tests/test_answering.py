"""An answer that echoes the previous answer to a different message is asked again without the
dialogue; the echo is never shown. Scripted model."""

from local_agent.config import Settings
from local_agent.memory.sessions import Session, SessionStore
from local_agent.turn.agent import Agent
from local_agent.turn.answering import ECHO_CHARS, EchoGuard, NotedFilter
from local_agent.turn.result import measured
from tests.fakes import ScriptedBackend

NURSE = "You're a nurse, right? That's wonderful! I'm happy to help you with your work."


def chat(tmp_path, *replies: str) -> tuple[Agent, ScriptedBackend, list[str]]:
    backend = ScriptedBackend(list(replies))
    agent = Agent(backend, SessionStore(tmp_path), Session(name="s1"), Settings(max_tokens=64))
    return agent, backend, []


def test_an_echo_of_the_previous_answer_is_asked_again_without_the_dialogue(tmp_path):
    agent, backend, shown = chat(tmp_path, NURSE, NURSE, "You live in Porto.")
    agent.respond("I live in Porto and I work as a nurse.")
    result = agent.respond("Where do I live?", on_token=shown.append)
    assert result.answer == "You live in Porto."
    assert "".join(shown) == "You live in Porto."  # the echo was held back, never shown
    assert [m.role for m in backend.prompts[-1]] == ["system", "user"]  # no dialogue to copy
    assert [m.role for m in backend.prompts[-2]] == ["system", "user", "assistant", "user"]
    assert agent.session.turns[-1].content == "You live in Porto."
    assert 0 < measured(result.timings.model_first_token_s) < measured(result.timings.first_token_s)  # the held echo
    agent.close()


def test_the_same_question_again_may_get_the_same_answer(tmp_path):
    agent, backend, _ = chat(tmp_path, NURSE, NURSE)
    # a general question (issue 43: "What do I do?" with nothing told is now "You haven't told me that.")
    agent.respond("What's a good job for a nurse?")
    assert agent.respond("what's a good job for a nurse?").answer == NURSE
    assert len(backend.prompts) == 2
    agent.close()


def test_an_echo_of_any_earlier_answer_is_caught(tmp_path):
    agent, backend, _ = chat(tmp_path, NURSE, "You live in Porto.", NURSE, "You work as a nurse.")
    agent.respond("I live in Porto and I work as a nurse.")
    agent.respond("Where do I live?")
    assert agent.respond("What is my job?").answer == "You work as a nurse."
    assert [m.role for m in backend.prompts[-1]] == ["system", "user"]
    agent.close()


def test_a_short_or_departing_answer_is_shown_as_it_comes(tmp_path):
    agent, backend, shown = chat(tmp_path, "Hello there!", "Hello there!", "You're a nurse, right? Then rest well.")
    agent.respond("hi")
    assert agent.respond("hello").answer == "Hello there!"  # short: let be
    agent.respond("I work nights.", on_token=shown.append)
    assert len(backend.prompts) == 3  # nothing asked again
    assert "".join(shown) == "You're a nurse, right? Then rest well."
    agent.close()


def test_the_guard_holds_only_while_the_answer_repeats():
    shown: list[str] = []
    guard = EchoGuard(["You live in Lisbon, by the sea.", "Yes."], shown.append)
    assert guard.feed("You live") and shown == []
    assert guard.feed(" in Porto") and shown == ["You live in Porto"]
    assert guard.feed(".") and shown[-1] == "."
    echo = EchoGuard(["Hello!", NURSE], shown.append)
    words = iter(NURSE.split(" "))
    results = [echo.feed(next(words)), *(echo.feed(" " + word) for word in words)]
    assert False in results and len(" ".join(NURSE.split()[: results.index(False) + 1])) >= ECHO_CHARS


def filtered(chunks: list[str]) -> str:
    shown: list[str] = []
    noted = NotedFilter(shown.append)
    for chunk in chunks:
        noted.feed(chunk)
    noted.finish()
    return "".join(shown)


def test_the_prompts_noted_date_is_left_out_of_the_answer():
    chunks = ["You", " like", " sushi", ".", " (", "noted", " 2", " May", " 2024", ")"]
    assert filtered(chunks) == "You like sushi."
    assert filtered(["You are Alexandra. (noted 2 May 2024) Your name", " is Alexandra."]) == (
        "You are Alexandra. Your name is Alexandra.")


def test_other_parentheses_pass_as_they_come():
    assert filtered(["Try ramen (", "see above) or (n", "ine) (noted that", " you like it)"]) == (
        "Try ramen (see above) or (nine) (noted that you like it)")
    assert filtered(["It ends with (", "noted"]) == "It ends with (noted"  # never closed: not the markup


def test_a_copied_noted_date_is_neither_shown_nor_kept(tmp_path):
    agent, _, shown = chat(tmp_path, "You like sushi. (noted 2 May 2024)")
    result = agent.respond("What food do I like?", on_token=shown.append)
    assert result.answer == "You like sushi." == "".join(shown)
    assert agent.session.turns[-1].content == "You like sushi."
    agent.close()
