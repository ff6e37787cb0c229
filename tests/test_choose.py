"""Answers about the user from their records: the candidates a record proposes (candidates.py),
the chooser over them (choose.py), and the content check (content.py)."""

from __future__ import annotations

import json
from datetime import datetime

import pytest

from local_agent.errors import ModelError
from local_agent.turn import choose
from local_agent.turn.candidates import propose
from local_agent.turn.choose import Choice, ChooserWeights, choose_part, composed, from_json, scored, shipped
from local_agent.turn.content import unheld_claims
from local_agent.turn.evidence import from_dialogue, from_memory
from local_agent.turn.told import subjects_of
from local_agent.types import GenerationSettings, Message
from tests.fakes import ScriptedBackend

TOMAS = ["Hi, I'm Tomás. I moved to Ghent last spring and I teach chemistry at a secondary school.",
         "My partner Jonas is a nurse and we have a cat called Pixel."]


def texts(record: str, question: str) -> dict[str, str]:
    return {c.text: c.kind for c in propose(from_dialogue(record), question)}


def test_a_record_proposes_its_names_numbers_days_and_phrases() -> None:
    found = texts("I play bass in a band called the Night Owls, gigs every Friday since 2019", "whats my band called")
    assert found["Night Owls"] == "name" and found["2019"] == "number" and found["Friday"] == "day"
    assert found["bass"] == "phrase"
    assert "band" not in found  # the question says it already


def test_phrases_stop_at_punctuation_and_keep_their_endings() -> None:
    found = texts("2 kids, Ama and Yaw. retired civil engineer", "how old is yaw")
    assert {"retired civil engineer", "civil engineer", "engineer"} <= set(found)
    assert not any("kids" in text and "Ama" in text for text in found)


def test_a_number_in_words_is_read_as_a_number() -> None:
    assert texts("yaw turned nine today", "how old is yaw").get("9") == "number"


def test_the_content_check_finds_a_job_nobody_said() -> None:
    sources = [*TOMAS, "Where do I live and what does Jonas do?"]
    assert unheld_claims("Tomás is a doctor.", sources) == ["doctor"]
    assert unheld_claims("You live in Ghent and Jonas is a nurse.", sources) == []
    assert unheld_claims("You teach chemistry at a secondary school.", sources) == []
    # a look-alike that states nothing of a person: no claim
    assert unheld_claims("That sounds like a lovely place to visit.", sources) == []


def test_the_content_check_reads_other_property_verbs() -> None:
    sources = ["I planted tomatoes and basil this weekend", "I work at St Mary's as a cardiologist"]
    assert unheld_claims("You planted the vegetable garden.", sources) == ["vegetable", "garden"]
    assert unheld_claims("You planted tomatoes and basil.", sources) == []
    assert unheld_claims("You work as a surgeon.", sources) == ["surgeon"]


class Likely(ScriptedBackend):
    """Scores a continuation by whether the notes hold it (a scripted model's logits)."""

    def score(self, messages, continuations):
        notes = messages[0].content
        return [-0.5 if text in notes else -4.0 for text in continuations]


def weights(least: float = 0.0, margin: float = 0.0) -> ChooserWeights:
    return ChooserWeights({"near_question": 3.0, "kind:any>phrase": 1.0, "model": 1.0}, least, margin, {})


def test_the_chooser_picks_the_candidate_next_to_what_is_asked() -> None:
    records = [from_dialogue(text) for text in TOMAS]
    found = choose.with_model(scored("what does Jonas do?", records, subjects_of(records, "what does Jonas do?")),
                              Likely())
    choice = choose_part(found, weights())
    assert choice.best is not None and choice.best.text == "nurse"
    assert choice.wins(weights(least=0.2)) and not choice.wins(weights(least=0.2, margin=1.0))


def test_a_backend_without_scores_lets_no_part_win() -> None:
    records = [from_dialogue(text) for text in TOMAS]
    choices = choose.choose("what does Jonas do?", records, ScriptedBackend(), weights())
    assert [choice.best for choice in choices] == [None]


def test_the_composed_answer_gives_the_value_and_its_record() -> None:
    record = from_memory("- 10 November 2026, you: yaw turned 9 today")
    candidate = next(c for c in propose(record, "how old is yaw") if c.text == "9")
    said = composed([Choice("how old is yaw", candidate, 0.9, 0.05)])
    assert said == '9. On 10 November 2026 you said: "yaw turned 9 today"'


def test_the_shipped_weights_load_and_name_their_data() -> None:
    shipped_weights = shipped()
    assert "LoCoMo" in shipped_weights.meta["data"] and 0.0 <= shipped_weights.margin <= 1.0
    assert set(shipped_weights.weights) == set(choose.feature_names())


def test_weights_of_another_format_are_refused() -> None:
    with pytest.raises(ModelError, match="format"):
        from_json(json.loads('{"format": 99, "weights": {}, "least": 0.5, "margin": 0.1}'))


def test_the_score_prompt_holds_the_records_and_the_question() -> None:
    records = [from_dialogue(text) for text in TOMAS]
    prompt = choose.score_prompt("what does Jonas do?", records)
    assert prompt[-1] == Message("user", "what does Jonas do?") and TOMAS[1] in prompt[0].content


def _tomas_replier(answer: str, max_tokens: int = 32):
    from local_agent.turn.replies import Replier

    notes = "Notes:\n- 2 November 2026, you: " + TOMAS[1]
    messages = [Message("system", "Be brief."), Message("user", f"{notes}\n\nWhat does Jonas do?")]
    settings = GenerationSettings(max_tokens=max_tokens)
    return Replier(ScriptedBackend([answer, answer]), messages, settings, None, {}, 0.0,
                   sources=[m.content for m in messages], memories=["- 2 November 2026, you: " + TOMAS[1]])


def test_a_memory_answer_claiming_a_job_nobody_said_is_not_shown() -> None:
    from local_agent.reading import read
    from local_agent.turn.replies import ReplyPlan

    question = read("What does Jonas do?", datetime(2026, 11, 9, 20, 0))
    reply = _tomas_replier("Jonas is a doctor, and a nurse.").reply(ReplyPlan("past"), question)
    assert "doctor" not in reply.answer.text and reply.route == "template:not-held"
    assert reply.answer.text.startswith("I'm not sure.") and "Jonas is a nurse" in reply.answer.text
    held = _tomas_replier("Jonas is a nurse.").reply(ReplyPlan("past"), question)
    assert held.answer.text == "Jonas is a nurse."


def test_a_claim_cut_by_the_token_limit_is_checked_without_its_cut_word() -> None:
    from local_agent.reading import read
    from local_agent.turn.replies import ReplyPlan

    question = read("What does Jonas do?", datetime(2026, 11, 9, 20, 0))
    cut = "Jonas is a nurse at the hosp"  # 7 words: the scripted model's tokens
    reply = _tomas_replier(cut, max_tokens=7).reply(ReplyPlan("past"), question)
    assert reply.answer.text == cut and reply.route == "grounded"


def test_a_claim_ends_where_another_clause_begins() -> None:
    sources = ["I am a retired civil engineer.", "I live in Leeds and I volunteer at the botanical garden."]
    answer = "You are a retired civil engineer. You live in Leeds and work as a volunteer at the garden."
    assert unheld_claims(answer, sources) == []
    assert unheld_claims("You live in Leeds and you work as a surgeon.", sources) == ["surgeon"]


def test_an_answer_that_denies_what_a_record_says_is_caught():
    from local_agent.turn.content import denied_claims
    told = ["Hi, I'm Aiko, I've been vegetarian for ten years.", "I don't eat fish"]
    assert denied_claims("You are not vegetarian.", told) == ["vegetarian"]
    assert denied_claims("You are vegetarian.", told) == [] and denied_claims("You don't eat fish.", told) == []
    assert denied_claims("Aiko is not a nurse.", told) == []  # nothing said of it either way
