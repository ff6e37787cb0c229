"""Durations and clock times read exactly (reading/problems/times.py): each form, and the
look-alikes it must leave alone."""

from __future__ import annotations

import pytest

from local_agent.reading.problems import reply
from local_agent.reading.problems.times import clock_text, duration_text, durations, read_times


@pytest.mark.parametrize(("message", "answer"), [
    ("I worked 3 hours 40 minutes on Monday and 2 hours 35 minutes on Tuesday, how long is that altogether?",
     "6 hours 15 minutes (375 minutes)"),
    ("3h 40m and 2h 35m, total?", "6 hours 15 minutes (375 minutes)"),
    ("The first film is ninety minutes and the other is one hour and 50 minutes. How long in total?",
     "3 hours 20 minutes (200 minutes)"),
    ("A movie starts at 7:45 pm and is 2 hours 20 minutes long. When does it end?", "10:05 pm"),
    ("My flight leaves at 23:10 and takes 3h 5m. What time do I land?", "02:15 the next day"),
    ("The cake went in at 3:15 pm and needs forty minutes. When is it done?", "3:55 pm"),
    ("I need to be there at 9:00 and the drive takes 45 minutes. When should I leave?",
     "08:15. I read this as 9:00 - 45 minutes."),
    ("The shop opens at 9:15 am and closes at 5:30 pm. How long is it open?", "8 hours 15 minutes"),
    # the duration's own direction word settles which way, whatever the question's verb
    ("my flight is at 6:40am and I need to be there 2 hours early, when should I arrive", "4:40 am"),
    ("The talk is at 14:00. I want to get there 30 minutes before, what time do I arrive?", "13:30"),
    ("We land at 8:15 pm and the shuttle comes an hour later. When does it arrive?", "9:15 pm"),
    ("The night shift runs from 10 pm to 6 am. How many hours is that?", "8 hours"),
])
def test_durations_and_clock_times_are_read_exactly(message: str, answer: str) -> None:
    said = reply(message)
    assert said is not None and said.outcome == "answer"
    assert answer in said.text, said.text


def test_a_start_is_found_by_going_back() -> None:
    timed = read_times("I need to be there at 9:00 and the drive takes 45 minutes. When should I leave?")
    assert timed is not None and timed.answer == "08:15"


@pytest.mark.parametrize("message", [
    # a question for one of the durations, not their sum
    "I worked 3 hours 40 minutes on Monday and 2 hours 35 minutes on Tuesday, how long did I work on Tuesday?",
    "I ran 5 km in 28 minutes and 3 km in 17 minutes, how long altogether?",  # other numbers: no sum of times
    "A train leaves at 9 and travels at 80 km/h. When does it arrive?",  # no duration
    "I have meetings at 9:00 and 14:00, what time is lunch?",  # no length asked
    "The movie is 2 hours long, when does it end?",  # no clock time
    "It ends at 7:45 pm and is 2 hours long. When does it end?",  # an end asked of an end
    "I slept 8 hours last night.",  # nothing asked
    "The film starts at 7:50 pm and is 2 hours long, we got there early. When do we leave?",  # early, not the film's
])
def test_look_alikes_are_not_read(message: str) -> None:
    assert read_times(message) is None


def test_the_parts_of_a_duration_fall_in_size() -> None:
    assert [d.seconds for d in durations("2 hours 20 minutes, then 5 minutes 1 hour")] == [8400, 300, 3600]


def test_the_answers_are_written_as_people_write_them() -> None:
    assert duration_text(22500) == "6 hours 15 minutes" and duration_text(3600) == "1 hour"
    assert clock_text(79500, "12") == "10:05 pm" and clock_text(-900, "24") == "23:45 the day before"


@pytest.mark.parametrize(("message", "answer"), [
    ("movie starts 7:50pm and its 2h 25m long, when dose it end", "10:15 pm"),  # the start said before the ask
    (("A train leaves at nine forty-five in the morning and the trip takes two hours and thirty-five minutes. "
      "What time does it arrive?"), "12:20 pm"),  # a clock time in words, "in the morning"
    ("The show starts at 7 in the evening and lasts 90 minutes. When does it end?", "8:30 pm"),
    ("5k run in 27:30. pace per km?", "5:30 per km"),
    ("I ran 10 miles in 1:32:30, what was my pace?", "9:15 per mile"),
])
def test_clock_times_in_words_paces_and_a_start_said_before_the_question(message: str, answer: str) -> None:
    found = read_times(message)
    assert found is not None and found.answer == answer


@pytest.mark.parametrize("message", [
    "We met at 9 45 people in the hall and talked for 2 hours. When did it end?",  # "9 45 people" is no clock time
    "I ran 5k in 27:30 today!",  # no pace asked
    "ran 5k in 27:30 with 3 friends, pace per km?",  # a number neither the distance nor the time
])
def test_clock_and_pace_look_alikes_are_not_read(message: str) -> None:
    assert read_times(message) is None


@pytest.mark.parametrize(("message", "answer"), [
    ("The meeting starts at ten thirty in the morning and runs for an hour and a half. When does it end?", "12:00 pm"),
    ("The film starts at 8 pm and lasts two and a half hours. When does it end?", "10:30 pm"),
])
def test_a_half_hour_more_is_read(message: str, answer: str) -> None:
    found = read_times(message)
    assert found is not None and found.answer == answer


def test_a_compact_duration_and_getting_in_are_read():
    said = read_times("the train leaves 8:50 and the trip takes 1h35. when do we get in?")
    assert said is not None and said.answer == "10:25"
