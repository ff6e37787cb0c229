"""The grounding checks: numbers and names found and normalized, their support in sources, the
language of a text, the properties of an everyday reply, questions about the past."""

import datetime as dt
from decimal import Decimal

import pytest

from local_agent.grounding.names import unsupported_names
from local_agent.grounding.numbers import numbers, unsupported_numbers
from local_agent.grounding.support import unsupported
from local_agent.reading import read
from local_agent.reading.clauses import split_clauses
from local_agent.reading.language import language_of, same_language
from local_agent.reading.names import proper_names
from local_agent.turn.memory_answers import asks_about_past
from local_agent.turn.reply_checks import (
    apologizes_or_refuses,
    asks_for_more,
    claims_name,
    speaks_of_the_user,
    takes_statement,
    too_long,
)


@pytest.mark.parametrize(("text", "values"), [
    ("My daughter Lena is 7.", [7]),
    ("I have two older brothers and one younger sister.", [2]),  # a lone "one" is no number
    ("I'm twenty-six and ran forty one km", [26, 41]),
    ("We saw the northern lights twice.", [2]),
    ("It cost $2,340.50 on 20 May 2024 at 6:30pm", [Decimal("2340.50"), 20, 2024, 6, 30]),
    ("the 3rd time, version 3.5.", [3, Decimal("3.5")]),
    ("1. Boil water\n2) Add the egg", []),  # list markers are layout
    ("No one came; it was one of the best.", []),
])
def test_numbers_are_found_as_values(text, values):
    assert [mention.value for mention in numbers(text)] == [Decimal(v) for v in values]


def test_a_number_is_supported_by_the_same_value_in_any_wording():
    assert unsupported_numbers("Your daughter is seven and you have 3 cats.", ["My daughter Lena is 7."]) \
        == [numbers("3")[0]]
    assert not unsupported_numbers("You ran 10 km.", ["I ran ten kilometres"])


@pytest.mark.parametrize(("text", "names"), [
    ("Lena is a marine biologist. I'm Priya, the helpful assistant!", ["Lena", "Priya"]),
    ('You talked about a book called "The Great Barrier Reef".', ["Great Barrier Reef"]),
    ("Caroline went to the LGBTQ support group on 7 May 2023.", ["Caroline", "LGBTQ", "May"]),
    ("Sure! Your daughter Lena is 7.", ["Lena"]),
    ("Today Lena went to Mr Sato's house by the Bay of Biscay.", ["Lena", "Mr Sato", "Bay of Biscay"]),
    ("Remember to call Tom. Based on the notes, you live in Porto.", ["Tom", "Porto"]),
    ("OK, that's fine on TV.", []),
    ("Got it, Alexa. Yay! You're welcome.", ["Alexa"]),
    ("Merci de me l'avoir dit. Enchanté, Claire ! ¡Hola! ¿En qué puedo ayudarte?", ["Claire"]),
])
def test_proper_names_are_capitalized_runs_that_are_not_openers(text, names):
    assert proper_names(text) == names


def test_a_capitalized_opener_written_in_lower_case_elsewhere_is_no_name():
    assert proper_names("Sardines are your favourite.", ["i love sardines"]) == []
    assert proper_names("Sardines are your favourite.") == ["Sardines"]  # nothing says otherwise
    assert proper_names("Grilled fish, then.") == []  # a word form (-ed, -ing, -ly) opens sentences


def test_a_name_is_supported_when_each_word_is_in_the_sources():
    assert unsupported_names("You keep bees in Lisbon, Ada.", ["my name is ada and i keep bees in lisbon"]) == []
    assert unsupported_names("You talked about The Great Barrier Reef.", ["What did we talk about today?"]) \
        == ["Great Barrier Reef"]


def test_a_known_person_with_a_surname_and_an_answer_cut_short():
    assert not unsupported("Their favorite player is LeBron James.", ["And LeBron is the man"])
    assert unsupported("You went to New York.", ["i like new things"]).names == ("New York",)
    cut = "- 12 July 2023, you: hi\n(12 July 20"
    assert not unsupported(cut, ["- 12 July 2023, you: hi"], cut=True)
    assert unsupported(cut, ["- 12 July 2023, you: hi"]).numbers == ("20",)


def test_a_one_word_reply_is_no_name():
    assert not unsupported("Fine.", ["one more"]) and not unsupported("Yes. Okay.", [])


def test_an_answer_without_a_full_stop_is_checked_to_its_last_word():
    # Not cut by the token limit: its last word is an answer like any other ("3" cows, invented).
    found = unsupported("You grew up on a dairy farm.\n\nThe answer is: 3", ["You grew up on a dairy farm."])
    assert found.numbers == ("3",)


def test_unsupported_lists_names_and_numbers_together():
    found = unsupported("Lena is 7 and Tom is 9.", ["My daughter Lena is 7."])
    assert found.names == ("Tom",) and found.numbers == ("9",) and found.describe() == "names Tom; numbers 9"
    assert not unsupported("Lena is 7.", ["My daughter Lena is 7."])


@pytest.mark.parametrize(("text", "language"), [
    ("Eu estes Ada, este amigo de Lisbon.", "pt"),
    ("Hello there! How can I assist you today?", "en"),
    ("J'habite à Lyon et je travaille comme infirmière.", "fr"),
    ("Me encanta cocinar paella los domingos.", "es"),
    ("Hallo, guten Morgen!", "de"),
    ("Ciao! Come stai?", "it"),
    ("Rex!", None),
])
def test_language_by_stopwords(text, language):
    assert language_of(text) == language


def test_a_reply_of_unknown_language_passes_and_an_unknown_user_counts_as_english():
    assert same_language("Rex!", "fr")
    assert not same_language("Eu este amo de Lisbon, este amo de a grilled sardines.", None)
    assert same_language("Nice to meet you, Ada!", None)


@pytest.mark.parametrize(("reply", "bad"), [
    ("I'm sorry for your loss, but I'm unable to provide you with the information you requested.", True),
    ("I apologize for the confusion.", True),
    ("As an AI, I don't have a family.", True),
    ("Sorry to hear that. Rest well tonight.", False),
    ("I'm sorry to hear about your cold.", False),
    ("That's great! Enjoy the class.", False),
])
def test_apology_or_refusal(reply, bad):
    assert apologizes_or_refuses(reply) is bad


def test_condolence_is_sympathy_only_after_a_loss():
    assert apologizes_or_refuses("I'm sorry for your loss.", "hello again")
    assert not apologizes_or_refuses("I'm sorry for your loss.", "My grandmother died last week.")


def test_the_user_is_addressed_as_you():
    assert speaks_of_the_user("The user lives in Lisbon.")
    assert not speaks_of_the_user("You live in Lisbon.")


def test_length_under_sixty_words_unless_asked_for_more():
    long_reply = "word " * 60
    assert too_long(long_reply, "Tell me a joke.")
    assert not too_long(long_reply, "Can you explain in detail how a rainbow forms?")
    assert asks_for_more("Please write a detailed, step-by-step guide.")
    assert not too_long("word " * 59, "hi")


def test_the_assistant_taking_the_users_name_or_statement():
    assert claims_name("Lena is 7. I'm Priya, the helpful assistant!", ["Priya"]) == "Priya"
    assert claims_name("Nice to meet you, Priya!", ["Priya"]) is None
    message = "My name is Ada and I keep bees in Lisbon."
    said = split_clauses(message)
    assert takes_statement("I'm glad, and I'll make sure to keep bees in Lisbon.", said) is not None
    assert takes_statement("I'm glad you keep bees in Lisbon!", said) is None


@pytest.mark.parametrize(("question", "past"), [
    ("Where do I live?", True),
    ("where do i live again", True),
    ("How many kids do I have?", True),
    ("What's my name?", True),
    ("Which book did you recommend last week?", True),
    ("remind me what my dog is called", True),
    ("What did Caroline research?", True),  # named in the memories
    ("How do I boil an egg?", False),
    ("What should I cook tonight?", False),
    ("What is the capital of Canada?", False),
    ("Can you suggest a snack for me?", False),
    ("I love Lisbon.", False),
    ("My laptop is loud, but anyway, what's a good way to remember names?", False),  # the question part
    ("Sorry for the random question, but how long should I steep green tea?", False),
    ("I was wondering, where did I say I work?", True),
    ("Can you tell me what my name is?", True),
    ("Peux-tu me donner une idée de dessert ?", False),  # "me" is French here
    ("Would Tim enjoy reading books by C. S. Lewis?", False),  # a guess may use what the model knows
    ("Could you remind me what my dog is called?", True),
    ("If I save twenty dollars a week, how much will I have after ten weeks?", False),
    ("I have a job interview tomorrow, any quick tips to calm my nerves?", False),
])
def test_questions_about_the_conversations_past(question, past):
    memories = ["- 8 May 2023, you: Caroline: I went to a support group yesterday (7 May 2023)"]
    assert asks_about_past(read(question, dt.datetime(2026, 3, 11)).past, memories) is past


@pytest.mark.parametrize(("question", "past"), [
    ("when is yaw's birthday", True),  # a name memory holds, with "'s"
    ("how old is yaw", True),
    ("when is the bus's next stop", False),  # "bus" is a word memory holds, not a name
])
def test_a_lower_case_name_memory_holds_asks_about_the_past(question, past):
    memories = ["(3 November 2026) You said: 2 kids, Ama and Yaw", "(3 November 2026) You said: bus driver"]
    assert asks_about_past(read(question, dt.datetime(2026, 11, 12)).past, memories) is past
