"""Whether a memory answer draws on what was said (turn/evidence.py), and how the program says
the evidence back."""

import pytest

from local_agent.turn.evidence import (
    content_words,
    draws_on,
    from_dialogue,
    from_memory,
    relevant,
    said_back_evidence,
)


def test_content_words_drop_stop_words_asking_words_and_plurals_and_read_small_numbers():
    assert content_words("Do you remember how many marathons I ran? Six, I think.") == {"marathon", "ran", "6", "think"}
    assert content_words("What's my sister's name?") == {"sister", "name"}


@pytest.mark.parametrize(("rendered", "text", "told"), [
    ("You're allergic to peanuts. (noted 19 May 2024)", "You're allergic to peanuts.",
     "From what you told me: you're allergic to peanuts."),
    ("- 19 May 2024, you: next one is in Boston", "next one is in Boston",
     'On 19 May 2024 you said: "next one is in Boston"'),
    ("- 2 May 2024, me: Try the lentil stew.", "Try the lentil stew.",
     'On 2 May 2024 I told you: "Try the lentil stew."'),
    ("Conversation of 3 May 2024, in short: You planned a trip to Japan.", "You planned a trip to Japan.",
     "From our conversation of 3 May 2024: You planned a trip to Japan."),
])
def test_a_memory_is_read_without_the_prompts_markup(rendered, text, told):
    candidate = from_memory(rendered)
    assert (candidate.text, candidate.told) == (text, told)


def test_a_message_of_the_dialogue_is_said_back_in_the_second_person():
    assert from_dialogue("my partner Sam made me a cake").told == "You told me your partner Sam made you a cake."
    assert from_dialogue("Boston, in April?").told == 'You said: "Boston, in April?"'
    long = from_dialogue("I keep bees " * 100).told
    assert long.startswith('You said: "I keep bees') and long.endswith(' ..."') and len(long) < 230


def test_the_evidence_is_the_candidate_sharing_most_words_with_the_question():
    candidates = [from_dialogue("I ran a marathon in May"), from_dialogue("my next marathon is in Boston in April"),
                  from_dialogue("I like tea")]
    found = relevant("where's my next marathon?", candidates)
    assert [c.text for c in found] == ["my next marathon is in Boston in April", "I ran a marathon in May"]
    assert draws_on("It's in Boston.", "where's my next marathon?", found)
    assert not draws_on("Good luck with your next marathon!", "where's my next marathon?", found)
    assert relevant("who is my dentist?", candidates) == []
    assert relevant("What is my name?", [from_memory("- 2 May 2024, you: What is my name?")]) == []


def test_evidence_tied_for_the_most_shared_words_is_said_back_together():
    question = "where's my next marathon?"
    candidates = [from_memory("You run marathons. (noted 1 May 2024)"), from_dialogue("next one is in Boston"),
                  from_dialogue("I ran a marathon in May")]
    assert said_back_evidence(relevant(question, candidates), question) \
        == "From what you told me: you run marathons. You told me next one is in Boston."
    assert said_back_evidence(relevant("who made me a cake?", [from_dialogue("Sam made me a cake"), *candidates]),
                              "who made me a cake?") == "You told me Sam made you a cake."


def test_every_form_the_prompt_shows_a_memory_in_is_read_back():
    from local_agent.memory.index.render import prompt_text
    from local_agent.types import MemoryRecord, Provenance

    def shown(kind, text, role="user"):
        return prompt_text(MemoryRecord(id="m1", kind=kind, text=text,
                                        provenance=Provenance(role=role, date="2024-05-02T18:30")))

    assert from_memory(shown("fact", "The user lives in Lisbon.")).told == "From what you told me: you live in Lisbon."
    assert from_memory(shown("turn", "I moved to Porto.")).text == "I moved to Porto."
    assert from_memory(shown("turn", "Read Dune.", "assistant")).note == 'On 2 May 2024 I told you: "Read Dune."'
    assert from_memory(shown("digest", "The user talked about Porto.")).text == "You talked about Porto."
