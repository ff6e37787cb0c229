"""The grounding package: what counts as a number, a date, a weekday, a time and a name, how
each is normalized, and when an answer's value is supported by its sources."""

from __future__ import annotations

import pytest

from local_agent.grounding import Support, check, extract, number_key


def keys(text: str, kind: str) -> list[str]:
    return [value.key for value in extract(text) if value.kind == kind]


@pytest.mark.parametrize(("text", "expected"), [
    ("12.60", ["12.6"]), ("12.6", ["12.6"]), ("1,234", ["1234"]), ("1,234.50", ["1234.5"]),
    ("-3 degrees", ["3"]), ("1e20 days", ["100000000000000000000"]), ("15%", ["15"]),
    ("the 10th", ["10"]), ("5km", ["5"]), ("add 19.99, 5.01 and 75", ["19.99", "5.01", "75"]),
    ("sum of 5,10,15", ["5", "10", "15"]), ("forty-five days", ["45"]),
    ("two hundred and ten", ["210"]), ("one of them", []),
])
def test_numbers(text, expected):
    assert keys(text, "number") == expected


@pytest.mark.parametrize("text", ["user0021@example.com", "SmolLM2", "room A12", "2026-04-10", "18:30"])
def test_digits_of_names_dates_and_times_are_not_numbers(text):
    assert keys(text, "number") == []


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-04-10", "2026-04-10"), ("10 April 2026", "2026-04-10"), ("10th of April 2026", "2026-04-10"),
    ("April 10, 2026", "2026-04-10"), ("Apr 10 2026", "2026-04-10"), ("Friday, 10 April 2026", "2026-04-10"),
    ("on April 10", "--04-10"), ("10 April", "--04-10"), ("in April 2026", "2026-04"),
    ("the first of january 2026", "2026-01-01"),
])
def test_dates(text, expected):
    assert keys(text, "date") == [expected]


def test_a_slash_date_is_read_both_ways_and_one_supported_reading_is_enough():
    assert sorted(keys("10/04/2026", "date")) == ["2026-04-10", "2026-10-04"]
    assert check("It is 10/04/2026.", ["2026-04-10"]).ok


def test_no_such_day_is_no_date():
    assert keys("2026-02-30", "date") == []


def test_weekdays_times_and_names():
    text = "We met Sarah in New York on Friday at 18:30; I wrote to user0021@example.com."
    assert keys(text, "weekday") == ["friday"]
    assert keys(text, "time") == ["18:30"]
    assert keys(text, "name") == ["sarah", "new york", "user0021@example.com"]


def test_the_first_word_of_a_sentence_months_and_i_are_not_names():
    assert keys("Lisbon is nice. In April I went there.", "name") == []


def test_number_key():
    assert number_key("12.60") == number_key("12.6") == "12.6"
    assert number_key("007") == "7"
    assert number_key("abc") is None


RESULT = "From Wednesday, 11 March 2026 (2026-03-11) to Friday, 10 April 2026 (2026-04-10) is 30 days."


@pytest.mark.parametrize("answer", [
    "10 April 2026 is 30 days from today.", "It is Friday, April 10, 2026.", "2026-04-10 is a Friday.",
    "On the 10th.", "In 2026.", "That is 30 days.",
])
def test_values_of_the_result_are_supported(answer):
    assert check(answer, [RESULT]).ok


@pytest.mark.parametrize(("answer", "bad"), [
    ("There are 57 users.", "57"), ("It is 11 April 2026.", "2026-04-11"),
    ("Thursday, 10 April 2026", "thursday"), ("31 days", "31"), ("It is a Saturday.", "saturday"),
])
def test_values_no_source_holds_are_not(answer, bad):
    verdict = check(answer, [RESULT, "What is the date 30 days from today?"])
    assert [value.key for value in verdict.unsupported] == [bad]


def test_the_weekday_of_a_source_date_is_supported():
    assert check("2026-01-01 was a Thursday.", ["SELECT ... 2026-01-01"]).ok
    assert not check("2026-01-01 was a Friday.", ["2026-01-01"]).ok


def test_rounding_a_source_number_is_supported_and_an_integer_supports_only_itself():
    support = Support(["avg(age)\n46.7833\n(1 rows)"])
    assert check("about 46.78, so 46.8 or 47", support).ok
    assert not check("46.9", support).ok
    assert not check("12.5", ["12"]).ok
    assert not check("13", ["12"]).ok


def test_question_values_are_supported():
    assert check("15% of 84 is 12.6", ["What is 15% of 84?", "15 / 100 * 84 = 12.6"]).ok


def test_names_are_checked_only_when_asked_and_then_in_any_case():
    assert check("Toronto has the most.", ["location\nLisbon"], kinds=("number",)).ok
    assert not check("Most live in Toronto.", ["location\nLisbon"]).ok
    assert check("Most live in Lisbon.", ["location\nlisbon"]).ok


def test_a_weekday_between_two_dates_belongs_to_the_one_it_opens():
    sentence = "From Wednesday, 11 March 2026 (2026-03-11) to Friday, 10 April 2026 (2026-04-10) is 30 days."
    assert check(sentence, [sentence]).ok
    assert not check("From 2026-03-11 to Thursday, 10 April 2026", ["2026-03-11", "2026-04-10", "Thursday"]).ok
