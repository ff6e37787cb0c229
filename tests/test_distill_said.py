"""A saved fact states only what the message says (issue 25): attitudes and negations must be
the message's own, a vague object or a passing resolution is no fact; and chat clauses that
leave their subject out, or answer a question in the same message, are read as statements."""

import pytest

from local_agent.memory.distill.rules import extract
from local_agent.memory.distill.validation import CandidateChecker
from local_agent.reading.clauses import split_clauses


@pytest.mark.parametrize(("fact", "message", "reason"), [
    ("The user loves Lisbon.", "My name is Ada and I keep bees in Lisbon.", "an attitude the message does not state"),
    ("The user has a dog.", "I don't have a dog.", "an attitude the message does not state"),
    ("The user is a fan too.", "That's awesome! I'm a fan too!", "names nothing in particular"),
    ("The user will not quit on their dreams.", "Thanks! I won't quit on my dreams.", "a resolution, not a fact"),
    ("The user keeps bees in Lisbon.", "My name is Ada and I keep bees in Lisbon.", None),
    ("The user does not like spicy food.", "i dont like spicy food", None),
    ("The user prefers to be called Alex.", "you can call me Alex", None),
    ("The user will start a new job in May.", "I will start a new job in May.", None),
])
def test_a_fact_states_only_what_the_message_says(fact, message, reason):
    assert CandidateChecker([]).reason_to_reject(fact, message) == reason


@pytest.mark.parametrize(("message", "clause"), [
    ("I am good. just watching the office.", "I'm just watching the office"),
    ("I am doing great! got a new chevrolet pretty recently.", "I got a new chevrolet pretty recently"),
    ("That is cool. do you want children? I do not", "I do not want children"),
    ("where do i live again", "where do I live again"),
    ("Do you enjoy football? I love it", "I love football"),
])
def test_chat_clauses_get_their_subject_back(message, clause):
    assert clause in [c.text for c in split_clauses(message)]


def test_a_subjectless_clause_stays_so_when_nobody_speaks_in_the_first_person():
    assert split_clauses("Using the text below, write a summary.")[0].text.startswith("Using")


@pytest.mark.parametrize(("message", "fact"), [
    ("Hi! I'm Priya. I live in Porto.", "The user's name is Priya."),
    ("I'm Priya, I live in Porto and my daughter Lena is 7.", "The user's name is Priya."),
    ("My daughter Lena is 7.", "The user's daughter Lena is 7."),
    ("Hello there. my dog wonton says hello too.", "The user's dog wonton says hello too."),
])
def test_names_and_named_relatives(message, fact):
    assert fact in [f.text for f in extract(message)]
    assert CandidateChecker([]).reason_to_reject(fact, message) is None  # the rule's own words need no source


def test_im_with_a_capitalized_state_is_no_name():
    assert extract("I'm Sorry.") == [] and extract("I'm Fine, thanks") == []


def test_a_correction_keeps_what_it_states_not_what_it_rejects() -> None:
    """"No, my name is Alexa, not Alex." states a name: the ", not Alex" it rejects is no negation
    of it (the correction was acknowledged and then dropped as 'an attitude the message does not
    state'); a negated statement still is one."""
    from local_agent.memory.distill.validation import attitude_backed

    assert attitude_backed("The user's name is Alexa.", "No, my name is Alexa, not Alex.")
    assert attitude_backed("The user lives in Porto.", "Actually I moved to Porto, not Lisbon.")
    assert not attitude_backed("The user likes tea.", "I do not like tea.")
    assert not attitude_backed("The user drinks coffee.", "No, I never drink coffee.")
