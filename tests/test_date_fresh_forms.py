"""Date forms written by strangers to the code (issue 42): the last day of a month with its
year (in words too), day N of a span that counts its first date as day 1, and a count asked
for that a reading giving a date leaves out; each with a look-alike."""

from __future__ import annotations

import datetime as dt

import pytest

from local_agent.reading import read
from local_agent.tools.coverage import date_left_out, unused_numbers
from local_agent.tools.date_rules import date_question
from local_agent.tools.dates import DateTool

TODAY = dt.date(2026, 3, 11)


def answer(message: str) -> str:
    arguments = date_question(message)
    assert arguments is not None and date_left_out(message, arguments) is None, arguments
    return DateTool(TODAY)(**arguments)


@pytest.mark.parametrize(("message", "date"), [
    ("What is the last day of February in twenty twenty-eight?", "2028-02-29"),
    ("what's the last day of february 2027", "2027-02-28"),
    ("What is the last day of April?", "2026-04-30"),
    (("I started a 90-day fitness challenge on February 1st this year. On what date is the last day, "
      "counting Feb 1 as day 1?"), "2026-05-01"),
    ("Counting March 3 as day 1, what date is day 10?", "2026-03-12"),
])
def test_the_date_of_a_named_day(message: str, date: str):
    said = answer(message)
    assert f"({date})" in said and said.count("(") <= 2  # the day itself, and for day N the day 1


@pytest.mark.parametrize("message", [
    "What is the last day of February?",  # which year's February, the question does not say
    "I started a 90-day fitness challenge on February 1st. When does it end?",  # day 90 or the day after?
])
def test_look_alikes_are_not_read_as_a_named_day(message: str):
    arguments = date_question(message)
    assert arguments is None or (arguments.get("operation") != "day_n" and "-02-2" not in str(arguments))


def test_a_count_asked_for_is_not_answered_with_a_date():
    message = ("My passport expires sometime next year and the embassy wants six months of validity for my trip. "
               "How many days do I have before I must renew?")
    assert date_left_out(message, date_question(message)) == "a count, not a date"
    shift = "the project is 6 months long starting today, what date does it end?"  # a date asked: answered
    arguments = date_question(shift)
    assert arguments is not None and arguments["operation"] == "add" and date_left_out(shift, arguments) is None


def test_day_n_needs_a_day_of_the_span():
    with pytest.raises(Exception, match="day_n needs amount 1 or more"):
        DateTool(TODAY)("day_n", "2026-02-01", 0)


def test_a_year_said_in_words_is_the_year_the_reading_holds():
    message = "What is the last day of February in twenty twenty-eight?"
    numbers = read(message, dt.datetime(2026, 3, 11, 12)).numbers
    assert unused_numbers(numbers, date_question(message) or {}) == []
    assert unused_numbers(numbers, {"operation": "weekday", "date": "2020-02-29"}) == ["20", "28"]


@pytest.mark.parametrize(("message", "part"), [
    ("What's the date two weeks after the exam?", "the date of the exam"),
    ("What date is 100 days after my start date?", "the date of my start date"),
    ("How many days between my birthday and Christmas?", "the date of my birthday"),
    ("How many days between Christmas and my birthday?", "the date of my birthday"),
    ("I was hired on March 2 last year; how many days have I worked here?", "the year of the date"),
    ("I was hired on March 2; how many days have I worked here?", "whether the date is past or to come"),
    ("what's the date 5 days after I get back?", "when I get back"),
    ("What date will it be 45 days after I arrive?", "when I arrive"),
])
def test_a_day_the_question_counts_from_that_the_reading_cannot_know(message: str, part: str):
    assert date_left_out(message, date_question(message)) == part


@pytest.mark.parametrize("message", [
    "what's the date 3 weeks from tomorrow", "how many days until the end of the month?",
    "what date is two weeks after next Monday?", "how many days until the weekend?",
    "how many days until my birthday on June 3?", "how many days until my birthday, June 3?",
    "How many days until June 20 this year?", "How many days have I got left until June 3?",
    "how many days until my flight on friday", "how many days until we leave for Paris on June 3?",
])
def test_days_the_rules_read_or_the_question_dates_are_no_unknown_event(message: str):
    assert date_left_out(message, date_question(message)) is None


@pytest.mark.parametrize(("message", "amount"), [
    ("when I come back in 3 weeks, what date will it be?", 3),  # back from a trip: ahead
    ("what was the date 3 weeks back?", -3),
])
def test_back_goes_back_only_after_a_span(message: str, amount: int):
    arguments = date_question(message)
    assert arguments is not None and arguments["amount"] == amount and date_left_out(message, arguments) is None


def test_a_short_misspelled_question_word_is_read():
    assert "(2030-01-01) is a Tuesday" in answer("wat day of the wek is 1 jan 2030")
    assert date_question("wat a day!") is None


@pytest.mark.parametrize(("message", "said"), [
    ("How many days are between Christmas and New Year's Eve?", "is 6 days"),  # not also new year's day
    ("is it a leap year this year", "2026 is not a leap year"),
])
def test_holidays_that_contain_another_and_a_yes_no_opening(message: str, said: str):
    assert said in answer(message)


def test_a_yes_no_opening_alone_is_no_date_question():
    assert date_question("is the meeting on friday") is None


def test_full_months_are_counted_in_months():
    assert "(8 months)" in answer("How many full months until 2026-12-01?")


@pytest.mark.parametrize(("message", "part"), [
    ("Which is later: 90 days from now or the end of June?", "a comparison of two dates"),
    ("what comes first, easter or my birthday?", "a comparison of two dates"),
    ("When's the next leap year?", "the next or last leap year"),
])
def test_forms_no_rule_reads_are_said_back(message: str, part: str):
    assert date_left_out(message, date_question(message)) == part


def test_a_count_of_days_counting_both_ends_counts_the_first_day():
    asked = date_question("How many days is from today until 20 March, counting both the days?")
    assert asked is not None and asked["inclusive"] is True
    said = DateTool(TODAY)(**asked)
    assert "is 10 days" in said and "counting both days" in said
    plain = date_question("How many days from today until 20 March?")  # look-alike: the usual count
    assert plain is not None and "inclusive" not in plain and "is 9 days" in DateTool(TODAY)(**plain)


@pytest.mark.parametrize(("message", "part"), [
    ("My driving test is on a Tuesday next month. How many days do I have left to practise?",
     "a weekday that could be any of several"),
    ("my gran was born 14 feb, what weekday was that", "the year of the birth"),
])
def test_a_day_the_question_leaves_open_is_said_back(message: str, part: str):
    assert date_left_out(message, date_question(message)) == part


@pytest.mark.parametrize("message", ["I was born on 14 Feb 1990, what weekday was that?",
                                     "how many days until Tuesday?",
                                     "My birthday's on 30 October, what weekday is it this year? Hoping for a Friday!"])
def test_a_day_the_question_names_whole_is_read(message: str):
    assert date_left_out(message, date_question(message)) is None


def test_a_count_not_counting_today_starts_tomorrow():
    message = "Not counting today, how many working days are left until the end of March?"
    asked = date_question(message)
    assert asked is not None and asked["date"] == "tomorrow" and "14 working days" in answer(message)
    plain = date_question("how many working days are left until the end of March?")  # look-alike: today counts
    assert plain is not None and plain["date"] == "today"


def test_an_age_left_open_after_a_birth_is_asked():
    assert date_question("I was born 14 March 1990 so I am now?") == {"operation": "age", "date": "1990-03-14"}
    assert date_question("I was born 14 March 1990 and I am now living in Leeds") is None  # look-alike
