"""The date rules read the forms people use, with words, typos and context around them; the
date tool's age, unit counts and yearless dates; and what is not a date question."""

from __future__ import annotations

import datetime as dt

import pytest

from local_agent.tools.date_rules import date_question
from local_agent.tools.dates import make_date

TODAY = dt.date(2025, 3, 14)  # a Friday


def assert_answers(message: str, ending: str) -> None:
    """`message` is read by a rule, and the date tool's answer to it holds `ending`."""
    arguments = date_question(message)
    assert arguments is not None, message
    assert ending in make_date(TODAY)(arguments)


@pytest.mark.parametrize(("message", "ending"), [
    ("whats the date in two weeks", "(2025-03-28)."), ("what was the date 3 days ago?", "(2025-03-11)."),
    ("a fortnight from now, what day is it?", "(2025-03-28)."), ("date 5 months from today", "(2025-08-14)."),
    ("what day was 9 days before 2025-04-01?", "(2025-03-23)."), ("in 3 days, what's the date?", "(2025-03-17)."),
    ("My visa runs out in 10 weeks; on which date?", "(2025-05-23)."),
    ("which weekday is 4 July 2025?", "is a Friday."), ("what day of the week was March 1st, 2024?", "is a Friday."),
    ("wat weekday is 2025-12-24", "is a Wednesday."), ("what day of the week is Halloween 2025?", "is a Friday."),
    ("how many days from 1 January 2025 to 2025-02-01?", "is 31 days."),
    ("how many weeks until 2025-04-11?", "is 28 days (4 weeks)."),
    ("how many days since 2025-03-01?", "is 13 days."), ("days left until April 1?", "is 18 days."),
    ("How old is someone born on 2000-03-15?", "is 24 years old on Friday, 14 March 2025 (2025-03-14)."),
    ("my son was born 12 June 2010. how old is he?", "is 14 years old on"),
    ("what's today's date", "Today is Friday, 14 March 2025 (2025-03-14)."),
    ("what day was yesterday?", "(2025-03-13) is a Thursday."),
])
def test_forms(message: str, ending: str):
    assert_answers(message, ending)


@pytest.mark.parametrize("message", [
    "Hi! How are you doing today?", "I turned 30 today", "The meeting got moved to 2025-04-02.",
    "I ran 5 km in 28 minutes", "We were married 10 years ago and still happy!", "What is 17 * 23?",
])
def test_not_date_questions(message: str):
    assert date_question(message) is None


def test_a_yearless_date_counted_until_is_the_next_one():
    arguments = date_question("how many days until Christmas?")
    assert arguments == {"operation": "between", "date": "today", "other": "--12-25", "unit": "days"}
    assert make_date(dt.date(2025, 12, 26))(arguments).endswith("(2026-12-25) is 364 days.")


def test_age_on_a_date_before_the_birth_is_an_error():
    from local_agent.errors import ToolError

    with pytest.raises(ToolError, match="before the birth date"):
        make_date(TODAY)({"operation": "age", "date": "2030-01-01"})


@pytest.mark.parametrize(("message", "ending"), [
    ("What's the date next Friday?", "(2025-03-21) is a Friday."),  # today is a Friday: the next one
    ("when is next tuesday", "(2025-03-18) is a Tuesday."),
    ("What was the date last Saturday?", "(2025-03-08) is a Saturday."),
    ("what date is it 2 weeks from Monday?", "(2025-03-31)."),
    ("how many days until sunday?", "is 2 days."),
    ("How many days left in this year?", "(2025-12-31) is 292 days."),
    ("how many weeks are left in the year", "is 292 days (41 weeks and 5 days)."),
    ("days till the end of the month?", "(2025-03-31) is 17 days."),
    ("how many days in June", "June 2025 has 30 days."),
    ("How many days does February 2028 have?", "February 2028 has 29 days."),
    ("Is 2028 a leap year?", "2028 is a leap year: it has 366 days, and February has 29."),
    ("was 1900 a leap year", "1900 is not a leap year"),
    ("what day is the day after tomorrow?", "is Sunday, 16 March 2025 (2025-03-16)."),
])
def test_named_days_period_ends_and_the_calendar(message: str, ending: str):
    assert_answers(message, ending)


@pytest.mark.parametrize("message", [
    "Last Friday, I made a dessert. Got any favs when it comes to desserts?",
    "See you on Monday!", "I love Saturdays at the lake, what about you?",
])
def test_a_weekday_named_in_passing_is_no_date_question(message: str):
    assert date_question(message) is None


def test_weekday_words_of_the_date_tool():
    tool = make_date(TODAY)
    assert tool({"operation": "weekday", "date": "fri"}).startswith("21 March 2025")  # never today itself
    assert tool({"operation": "weekday", "date": "last-fri"}).startswith("7 March 2025")
    assert tool({"operation": "weekday", "date": "month-end"}).startswith("31 March 2025")


def test_a_weekday_beside_a_written_date_is_not_a_second_date():
    arguments = date_question("Quick one: what was the weekday on 2000-01-01? My dad says it was a Sunday.")
    assert arguments == {"operation": "weekday", "date": "2000-01-01"}


@pytest.mark.parametrize(("message", "expected"), [
    ("Is 10000 a leap year?", None), ("was 2024 or 2025 a leap year", None),
    ("is this year a leap year?", {"operation": "leap_year", "date": "today"}),
    ("is next year a leap year?", {"operation": "leap_year", "date": "today", "amount": 1}),  # the year after today's
    ("was last year a leap year", {"operation": "leap_year", "date": "today", "amount": -1}),
])
def test_a_leap_year_question_is_read_only_for_one_year_it_names(message: str, expected: object):
    assert date_question(message) == expected


@pytest.mark.parametrize(("message", "ending"), [
    ("what day of the year is it today", "is day 73 of 2025, in week 11 of 2025 (ISO weeks)."),
    ("What week number is it?", "in week 11 of 2025"),
    ("how many days has it been since the start of the year", "(2025-03-14) is 72 days."),
    ("Which day of the week is the last day of this month?", "(2025-03-31) is a Monday."),
    ("how many days are left in March", "(2025-03-31) is 17 days."),
])
def test_day_of_year_and_period_bounds(message: str, ending: str):
    assert_answers(message, ending)


def test_counting_a_weekday_is_not_read_as_counting_days():
    arguments = date_question("How many Fridays until the end of the month?")
    assert arguments == {"operation": "count_weekdays", "date": "today", "other": "month-end", "weekday": "fri"}


WEDNESDAY = dt.date(2026, 3, 11)


@pytest.mark.parametrize(("message", "ending"), [
    ("What date is the second Tuesday of April 2026?", "is Tuesday, 14 April 2026 (2026-04-14)."),
    ("what's the 1st monday in september 2026", "is Monday, 7 September 2026 (2026-09-07)."),
    ("when is the last Friday of this month?", "is Friday, 27 March 2026 (2026-03-27)."),
    ("When is the third Sunday of May?", "is Sunday, 17 May 2026 (2026-05-17)."),
    ("what's the first monday of february", "is Monday, 1 February 2027 (2027-02-01)."),  # the coming February
    ("How many working days are there from Monday 16 March to Friday 27 March 2026?", "there are 10 working days"),
    ("how many weekdays in April 2026?", "there are 22 working days"),
    ("how many Mondays are left this month?", "there are 3 Mondays: 16 March, 23 March, 30 March."),
    ("How many Sundays are left in the year", "(2026-12-31), both counted, there are 42 Sundays."),
    ("how many tuesdays until June 3?", "there are 12 Tuesdays."),
    ("How many business days from today until 2026-04-03?", "there are 18 working days"),
    ("count the tuesdays in june 2026", "there are 5 Tuesdays"),
    ("How many Saturdays are left in 2026?", "(2026-12-31), both counted, there are 42 Saturdays."),
    ("how many working days does April 2026 have?", "there are 22 working days"),
    ("Someone born on 14 August 1990, how old will they turn this year?", "is 36 years old on Thursday, 31 December"),
    ("how old will someone born 1 May 2000 turn in 2030", "is 30 years old on Tuesday, 31 December 2030"),
    ("how old will someone born on 1 May 2000 be on 2030-03-01?", "is 29 years old on Friday, 1 March 2030"),
    ("What week number is it today?", "in week 11 of 2026 (ISO weeks)."),
    ("How many days are there between Christmas and New Year?", "(2027-01-01) is 7 days."),  # the New Year after
    ("How many days old is someone born on 1 Jan 2000?", "(2026-03-11) is 9566 days."),
])
def test_weekday_forms_ages_to_come_and_week_numbers(message: str, ending: str):
    arguments = date_question(message)
    assert arguments is not None, message
    assert ending in make_date(WEDNESDAY)(arguments)


@pytest.mark.parametrize("message", [
    "when is the 3rd friday of next month",  # which month, the rule cannot place: not the coming Friday either
    "what was the first monday of february",  # a February gone by, in a year not said
    "How many business days until the deadline?", "how many working days in april",  # no span, no year
    "how many mondays from 2026-03-02",  # a start and no end
    "How many days until the second Friday of May?",  # a count of days, not the date
    "How old would someone born on March 3, 2000 be next year?",  # not today's age

    "how old will someone born on 1990-08-14 be next year?",  # on which day of next year?
    "I met her on the first Monday of the month and we talked for hours",  # a statement
])
def test_weekday_and_age_look_alikes_are_not_read_as_such(message: str):
    arguments = date_question(message)
    assert arguments is None or arguments["operation"] not in ("nth_weekday", "count_weekdays", "age"), arguments


@pytest.mark.parametrize("message", [
    "How many months until my 40th birthday if I was born on 3 May 1990?",  # not the months since the birth
    "How many hours until Friday?",  # hours: not a count of days
    "What's the date of Easter 2026?", "What's the date of the next full moon?",  # not today's date
])
def test_a_question_a_rule_reads_only_in_part_is_not_read(message: str):
    assert date_question(message) is None


@pytest.mark.parametrize(("message", "ending"), [
    ("what's the last day of this month", "31 March 2025 (2025-03-31) is a Monday."),
    ("what is the first day of the year?", "1 January 2025 (2025-01-01) is a Wednesday."),
    ("How many days until the weekend?", "(2025-03-15) is 1 days."),
])
def test_period_bounds_and_the_weekend_asked_by_name(message: str, ending: str):
    assert_answers(message, ending)


@pytest.mark.parametrize(("message", "unit"), [
    ("how long ago was 2019-09-01 in years?", "years"),  # the unit said at the end
    ("how long until 2027-01-15 in weeks", "weeks"),
    ("how long until 2027-01-15?", "days"),  # none said: days
])
def test_a_span_is_counted_in_the_unit_the_question_says(message: str, unit: str):
    arguments = date_question(message)
    assert arguments is not None and arguments["unit"] == unit


def test_a_holiday_written_beside_its_date_names_one_day():
    asked = date_question("the kids ask how long till Halloween (Oct 31 this year). how many days is that from today?")
    assert asked == {"operation": "between", "date": "today", "other": "--10-31", "unit": "days"}
    twice = date_question("how many days between Oct 31 and Oct 31?")  # written twice: two dates
    assert twice is not None and (twice["date"], twice["other"]) == ("--10-31", "--10-31")
