"""Questions about the assistant itself (reading/about.py), in many phrasings, and the messages
that only look like them."""

import pytest

from local_agent.reading.about import about_me

ASKS = [
    ("what's your name?", "name"), ("whats ya name", "name"), ("wat is ur name even", "name"),
    ("do you happen to have a name?", "name"), ("you got a name?", "name"), ("what are you called?", "name"),
    ("what do people call you?", "name"), ("what should I call you?", "name"),
    ("who are you", "nature"), ("you a bot?", "nature"), ("r u human", "nature"), ("are you real?", "nature"),
    ("Are you actually a human being?", "nature"), ("am I talking to a real person?", "nature"),
    ("is this a bot?", "nature"), ("Are you a person or a program?", "nature"), ("are you a boy or a girl?", "nature"),
    ("Who created you?", "maker"), ("what model are you running?", "maker"),
    ("Do you have feelings?", "feelings"), ("do you ever get lonely?", "feelings"),
]
ONLY_LOOKS = ["are you there?", "you are funny", "are you sure?", "you a fan of jazz?", "what's your name for the cat?",
              "is this a good idea?", "you're a real one", "are you free tomorrow?", "you really are a genius",
              "am I talking too much?", "what are you doing?", "what's my name?", "are you kidding me",
              "you human beings are weird", "are you real serious right now", "who are you voting for?"]


@pytest.mark.parametrize(("message", "topic"), ASKS)
def test_a_question_about_the_assistant_is_read(message, topic):
    assert about_me(message) == topic


@pytest.mark.parametrize("message", ONLY_LOOKS)
def test_a_message_that_only_looks_like_one_is_not(message):
    assert about_me(message) is None
