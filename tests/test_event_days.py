"""The day an event told in a message happened, read from the day the message was said
(dates/event_days.py; issue 43): every form with the day it means, and look-alikes that name no
day."""

from datetime import date, datetime

import pytest

from local_agent.dates.event_days import event_days, in_past

WEDNESDAY = datetime(2026, 11, 11, 19, 0)  # said on Wednesday 11 November 2026

DAYS = [
    ("I ran the half marathon last Sunday", "last Sunday", date(2026, 11, 8)),
    ("we went to the beach on Saturday", "on Saturday", date(2026, 11, 7)),  # past: the one before
    ("party on Saturday", "on Saturday", date(2026, 11, 14)),  # no past: the one after
    ("I'm excited about Saturday", "Saturday", date(2026, 11, 14)),  # an -ed word after "I'm" is no past
    ("flight to Oslo thursday", "thursday", date(2026, 11, 12)),
    ("the meeting got moved to Monday", "to Monday", date(2026, 11, 16)),  # moved to: ahead
    ("yaw turned 9 today", "today", date(2026, 11, 11)),
    ("Mochi has her first vet visit tomorrow.", "tomorrow", date(2026, 11, 12)),
    ("We adopted a kitten yesterday!", "yesterday", date(2026, 11, 10)),
    ("two days ago I fell off my bike", "two days ago", date(2026, 11, 9)),
    ("got my hair cut this morning", "this morning", date(2026, 11, 11)),
    ("concert tonight at 8", "tonight", date(2026, 11, 11)),
    ("I just now got back", "just now", date(2026, 11, 11)),
    ("the day before yesterday we met", "the day before yesterday", date(2026, 11, 9)),
    ("a week ago Tuesday I quit", "a week ago Tuesday", date(2026, 11, 3)),  # the last Tuesday, a week before
    ("two weeks ago Friday we met", "two weeks ago Friday", date(2026, 10, 23)),
    ("paid the rent on the 3rd", "on the 3rd", date(2026, 11, 3)),
    ("rent is due on the 3rd.", "on the 3rd", date(2026, 12, 3)),
    ("next Thursday is the exam", "next Thursday", date(2026, 11, 12)),
    ("next one is dec 12", "dec 12", date(2026, 12, 12)),  # a date without a year, ahead: this year's
    ("I got married on 2 May", "2 May", date(2026, 5, 2)),
]


@pytest.mark.parametrize(("text", "phrase", "day"), DAYS)
def test_each_form_gets_the_day_it_meant_when_said(text, phrase, day):
    found = event_days(text, WEDNESDAY)
    assert [(d.phrase.strip(), d.span.start.date() if d.span else None) for d in found] == [(phrase, day)]
    assert found[0].one_day


@pytest.mark.parametrize(("text", "start", "kind"), [
    ("he starts in January", date(2027, 1, 1), "month"),  # ahead: next January
    ("we moved in January", date(2026, 1, 1), "month"),  # past: this year's
    ("last week I saw a fox", date(2026, 11, 2), "week"),
])
def test_a_month_or_a_week_is_no_one_day(text, start, kind):
    (found,) = event_days(text, WEDNESDAY)
    assert found.span is not None and found.span.start.date() == start and found.span.kind == kind
    assert not found.one_day


@pytest.mark.parametrize(("text", "weekday"), [
    ("I coach her football team on Wednesdays", "Wednesday"),
    ("every Thursday evening I swim", "Thursday"),
    ("I play badminton every Saturday.", "Saturday"),
])
def test_a_recurring_day_is_a_weekday_not_a_day(text, weekday):
    (found,) = event_days(text, WEDNESDAY)
    assert found.weekday == weekday and found.span is None


@pytest.mark.parametrize("text", [
    "Monday's meeting was long",  # a weekday's thing, not a day told
    "I sat on the sofa",
    "we live on the 3rd floor",
    "I may go",
    "we march on",
    "the sun was out",
    "the past few weeks were hard",
    "I ran the half marathon!",
])
def test_look_alikes_name_no_day(text):
    assert event_days(text, WEDNESDAY) == []


@pytest.mark.parametrize(("text", "past"), [
    ("we went on Saturday", True),
    ("my laptop died on saturday", True),  # a short -ed form
    ("two hundred people on Saturday", False),
    ("I adopted a cat on Monday", True),
    ("party on Saturday", False),
    ("I'm so excited for Friday", False),
    ("we booked it, dinner is on friday", False),  # the clause of the day, not the one before
    ("I need a haircut on Monday", False),  # "need" is no past form
    ("Duchess laid her first egg in weeks on Sunday", True),  # an irregular past form
    ("the hens lay on Sunday", False),
    ("the first class was the day after, on the Friday", True),  # a clause with no tense: its sentence's
    ("See you soon, on Friday", False),
    ("Dinner is booked, on Friday", False),  # "booked" after "is" is no past
    ("It was fun. Lunch on Friday", False),  # another sentence's tense is not this one's
])
def test_the_tense_of_the_clause(text, past):
    at = text.lower().rfind("on ")
    assert in_past(text, at, len(text)) is past


def test_a_weekday_said_with_its_week_is_that_weekday_of_that_week():
    said = datetime(2026, 11, 11, 19)  # a Wednesday
    days = event_days("My grandson Kenji was born on Monday of last week", said)
    assert [(day.phrase, day.span.start.date() if day.span else None) for day in days] == [
        ("on Monday of last week", date(2026, 11, 2))]
    apart = event_days("on Monday, last week was busy", said)  # a comma between: two phrases
    assert len(apart) == 2


@pytest.mark.parametrize(("text", "days"), [
    ("Party is on Saturday 15 August, not Friday.", [date(2026, 8, 15), date(2026, 8, 14)]),  # one day, then another
    ("on Saturday, 15 August we fly", [date(2026, 8, 15)]),
    ("gig on friday, then 15 august is the wedding", [date(2026, 8, 14), date(2026, 8, 15)]),  # two days
])
def test_a_weekday_right_before_a_date_names_that_date(text, days):
    said = datetime(2026, 8, 7, 19)  # a Friday
    assert [day.span.start.date() for day in event_days(text, said) if day.span] == days


def test_a_shortened_weekday_after_on_or_last_is_that_day():
    said = datetime(2026, 12, 5, 19)  # a Saturday
    assert [(d.phrase, d.span.start.date().isoformat()) for d in event_days("took lily 2 the zoo on wed", said)
            if d.span] == [("on wed", "2026-12-02")]
    assert [d.span.start.date().isoformat() for d in event_days("we met last tues", said) if d.span] == ["2026-12-01"]
    assert event_days("this sun is brutal", said) == [] and event_days("rely on sat nav", said) == []  # look-alikes
