"""Rule-based extraction: common durable statements become keyed third-person facts; passing
remarks, questions and requests make none."""

from __future__ import annotations

import pytest

from local_agent.memory.distill.person import third_person, third_singular
from local_agent.memory.distill.rules import extract, infer_key
from local_agent.reading.clauses import split_clauses


def facts(message: str) -> dict[str, tuple[str, str] | None]:
    return {fact.text: fact.key for fact in extract(message)}


def test_names_preferred_name_and_exam_from_one_message():
    found = facts("Hello! My name is Alexandra, but you can call me Alex. I'm studying for the CFA exam in 2025.")
    assert found == {
        "The user's name is Alexandra.": ("user", "name"),
        "The user prefers to be called Alex.": ("user", "preferred name"),
        "The user is studying for the CFA exam in 2025.": ("user", "exam"),
    }


@pytest.mark.parametrize(
    ("message", "fact", "key"),
    [
        ("my name is alex", "The user's name is Alex.", ("user", "name")),
        ("Please call me Sam.", "The user prefers to be called Sam.", ("user", "preferred name")),
        ("I go by Jo.", "The user prefers to be called Jo.", ("user", "preferred name")),
        ("I live in Lisbon with my two cats.", "The user lives in Lisbon with their two cats.", ("user", "home city")),
        ("I moved to Denver last spring.", "The user moved to Denver last spring.", ("user", "home city")),
        ("I'm originally from Ohio.", "The user is originally from Ohio.", ("user", "hometown")),
        ("I work as a nurse at the local hospital.", "The user works as a nurse at the local hospital.",
         ("user", "job")),
        ("I work at a bakery.", "The user works at a bakery.", ("user", "employer")),
        ("I'm a pharmacist.", "The user is a pharmacist.", None),
        ("I really enjoy rock climbing.", "The user really enjoys rock climbing.", None),
        ("i love to watch horror movies", "The user loves to watch horror movies.", None),
        ("I don't like coffee.", "The user does not like coffee.", None),
        ("I hate driving in traffic.", "The user hates driving in traffic.", None),
        ("My favorite season is fall.", "The user's favorite season is fall.", ("user", "favorite season")),
        ("My birthday is March 5th.", "The user's birthday is March 5th.", ("user", "birthday")),
        ("My time zone is CET.", "The user's time zone is CET.", ("user", "time zone")),
        ("I'm 34 years old.", "The user is 34 years old.", ("user", "age")),
        ("I have two kids and a dog named Rex.", "The user has two kids and a dog named Rex.", None),
        ("My thesis is due on May 3.", "The user's thesis is due on May 3.", ("user", "deadline")),
        ("I have a chemistry exam next week.", "The user has a chemistry exam next week.", ("user", "exam")),
        ("I'm married.", "The user is married.", ("user", "relationship status")),
        ("Lol, I am a vegan.", "The user is a vegan.", ("user", "diet")),
        ("My wife and I live in a farmhouse.", "The user and their wife live in a farmhouse.", None),
        ("I've been playing guitar since I was 12.", "The user has been playing guitar since they were 12.", None),
    ],
)
def test_rule_turns_statement_into_keyed_fact(message, fact, key):
    assert facts(message) == {fact: key}


@pytest.mark.parametrize(
    "message",
    [
        "Thanks! I'll let you know how it goes.",
        "I love that!",
        "I love your idea.",
        "I like it a lot.",
        "I have a question about my taxes.",
        "I'm a little tired today.",
        "Please call me later.",
        "What is my name?",
        "Do you like hiking?",
        "Write a poem about my cat.",
        "Caroline lives in Boston.",
        "I'm so glad you had fun!",
    ],
)
def test_passing_remarks_questions_and_requests_make_no_fact(message):
    assert extract(message) == []


def test_question_clause_after_statement_is_split_off():
    clauses = split_clauses("I love hiking, what about you?")
    assert [(c.text, c.act) for c in clauses] == [("I love hiking", "statement"), ("what about you", "question")]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("I am in a band what do you do for a living?",
         [("I am in a band", "statement"), ("what do you do for a living", "question")]),
        ("I just graduated from college, what did you study?",
         [("I just graduated from college", "statement"), ("what did you study", "question")]),
        ("I love my job how about you?", [("I love my job", "statement"), ("how about you", "question")]),
        ("I like what you said about dogs", [("I like what you said about dogs", "statement")]),
        ("I know what you mean", [("I know what you mean", "statement")]),
    ],
)
def test_a_question_run_on_after_a_statement_is_split_off(message, expected):
    assert [(c.text, c.act) for c in split_clauses(message)] == expected


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("As a nurse, I work nights.", ["As a nurse, I work nights"]),
        ("Working at a grocery store, I meet funny people", ["Working at a grocery store, I meet funny people"]),
        ("In my free time, I knit.", ["In my free time, I knit"]),
        ("Thanks, I work nights.", ["I work nights"]),
    ],
)
def test_an_introductory_phrase_stays_with_its_clause(message, expected):
    assert [c.text for c in split_clauses(message)] == expected


def test_a_rule_still_reads_past_an_introductory_phrase():
    assert list(facts("As a cancer survivor, my cat was always near me.")) == ["The user's cat was always near them."]
    assert list(facts("In my free time, I love hiking.")) == ["The user loves hiking."]


def test_run_on_sentence_splits_before_bare_i():
    texts = [c.text for c in split_clauses("Summer is my favorite I love fishing")]
    assert texts == ["Summer is my favorite", "I love fishing"]


@pytest.mark.parametrize(
    ("verb", "expected"),
    [("love", "loves"), ("watch", "watches"), ("study", "studies"), ("play", "plays"), ("go", "goes"),
     ("have", "has"), ("went", "went"), ("moved", "moved"), ("can", "can")],
)
def test_third_singular(verb, expected):
    assert third_singular(verb) == expected


def test_third_person_rewrites_later_pronouns():
    assert third_person("I take my dog to work with me") == "The user takes their dog to work with them."
    assert third_person("I'm sure I am right") == "The user is sure they are right."


@pytest.mark.parametrize(
    ("fact", "key"),
    [
        ("The user's name is Alex.", ("user", "name")),
        ("The user lives in Oslo.", ("user", "home city")),
        ("The user works as a chef.", ("user", "job")),
        ("The user's favorite band is Queen.", ("user", "favorite band")),
        ("The user is studying for the bar exam.", ("user", "exam")),
        ("The user likes tea.", None),
    ],
)
def test_infer_key_of_model_fact(fact, key):
    assert infer_key(fact) == key
