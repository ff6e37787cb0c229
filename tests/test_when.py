"""Reading dates in questions: exact ranges for a fixed today, words that only look like dates,
year-less dates moved to a year that has memories, and the cost of a question without a date."""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from local_agent.reading.dates import read_dates, with_memories, without_dates

TODAY = datetime(2024, 5, 15, 14, 30)  # a Wednesday


def d(day: str, hour: int = 0) -> datetime:
    return datetime.fromisoformat(day) + timedelta(hours=hour)


POSITIVE = [
    ("What did I tell you yesterday about my trip?", "yesterday", d("2024-05-14"), d("2024-05-15"), "day"),
    ("what did we talk about today?", "today", d("2024-05-15"), d("2024-05-16"), "day"),
    ("what's today's plan", "today's", d("2024-05-15"), d("2024-05-16"), "day"),
    ("the day before yesterday", "the day before yesterday", d("2024-05-13"), d("2024-05-14"), "day"),
    ("What did I eat this morning?", "this morning", d("2024-05-15", 5), d("2024-05-15", 12), "part_of_day"),
    ("what did I say last night", "last night", d("2024-05-14", 18), d("2024-05-15", 6), "part_of_day"),
    ("yesterday evening", "yesterday evening", d("2024-05-14", 17), d("2024-05-15"), "part_of_day"),
    ("plans for tonight", "tonight", d("2024-05-15", 18), d("2024-05-16", 6), "part_of_day"),
    ("What did I cook last Tuesday?", "last Tuesday", d("2024-05-14"), d("2024-05-15"), "day"),
    ("What did I cook on Tuesday?", "on Tuesday", d("2024-05-14"), d("2024-05-15"), "day"),
    ("what happened on Wednesday", "on Wednesday", d("2024-05-08"), d("2024-05-09"), "day"),
    ("this Monday", "this Monday", d("2024-05-13"), d("2024-05-14"), "day"),
    ("next Friday", "next Friday", d("2024-05-17"), d("2024-05-18"), "day"),
    ("Saturday night", "Saturday night", d("2024-05-11", 18), d("2024-05-12", 6), "part_of_day"),
    ("What did we talk about on May 2nd?", "May 2nd", d("2024-05-02"), d("2024-05-03"), "day"),
    ("May 2", "May 2", d("2024-05-02"), d("2024-05-03"), "day"),
    ("What did Melanie do on 7 May 2023?", "7 May 2023", d("2023-05-07"), d("2023-05-08"), "day"),
    ("2 May 2023", "2 May 2023", d("2023-05-02"), d("2023-05-03"), "day"),
    ("on 2023-05-02", "2023-05-02", d("2023-05-02"), d("2023-05-03"), "day"),
    ("on October 13, 2023?", "October 13, 2023", d("2023-10-13"), d("2023-10-14"), "day"),
    ("on 1 February, 2023", "1 February, 2023", d("2023-02-01"), d("2023-02-02"), "day"),
    ("on 8th December, 2023", "8th December, 2023", d("2023-12-08"), d("2023-12-09"), "day"),
    ("the second of May", "the second of May", d("2024-05-02"), d("2024-05-03"), "day"),
    ("on Aug 15th", "Aug 15th", d("2023-08-15"), d("2023-08-16"), "day"),
    ("on June 3", "June 3", d("2023-06-03"), d("2023-06-04"), "day"),  # after today: last year's
    ("two weeks ago", "two weeks ago", d("2024-04-28"), d("2024-05-05"), "week"),
    ("a week ago", "a week ago", d("2024-05-05"), d("2024-05-12"), "week"),
    ("3 days ago", "3 days ago", d("2024-05-12"), d("2024-05-13"), "day"),
    ("a few weeks ago", "a few weeks ago", d("2024-04-14"), d("2024-05-05"), "range"),
    ("last week", "last week", d("2024-05-06"), d("2024-05-13"), "week"),
    ("this week", "this week", d("2024-05-13"), d("2024-05-20"), "week"),
    ("the past week", "the past week", d("2024-05-08"), d("2024-05-16"), "range"),
    ("in the last 3 days", "the last 3 days", d("2024-05-12"), d("2024-05-16"), "range"),
    ("last month", "last month", d("2024-04-01"), d("2024-05-01"), "month"),
    ("What did I read in April?", "in April", d("2024-04-01"), d("2024-05-01"), "month"),
    ("in December", "in December", d("2023-12-01"), d("2024-01-01"), "month"),
    ("in May 2023", "May 2023", d("2023-05-01"), d("2023-06-01"), "month"),
    ("last April", "last April", d("2024-04-01"), d("2024-05-01"), "month"),
    ("last May", "last May", d("2023-05-01"), d("2023-06-01"), "month"),
    ("This May I went to Rome", "This May", d("2024-05-01"), d("2024-06-01"), "month"),
    ("mid-March", "mid-March", d("2024-03-01"), d("2024-04-01"), "month"),
    ("last year", "last year", d("2023-01-01"), d("2024-01-01"), "range"),
    ("in 2022", "in 2022", d("2022-01-01"), d("2023-01-01"), "range"),
    ("over the weekend", "over the weekend", d("2024-05-11"), d("2024-05-13"), "range"),
    ("last weekend", "last weekend", d("2024-05-11"), d("2024-05-13"), "range"),
    ("since April", "since April", d("2024-04-01"), d("2024-05-16"), "range"),
    ("since last Tuesday", "since last Tuesday", d("2024-05-14"), d("2024-05-16"), "range"),
    ("between May 2 and May 5", "May 2 and May 5", d("2024-05-02"), d("2024-05-06"), "range"),
    ("the week before August 3, 2023", "the week before August 3, 2023", d("2023-07-27"), d("2023-08-04"), "range"),
    ("the Sunday before October 25, 2022", "the Sunday before October 25, 2022", d("2022-10-23"), d("2022-10-26"),
     "range"),
    ("two weeks before August 11, 2023", "two weeks before August 11, 2023", d("2023-07-24"), d("2023-08-12"), "range"),
    ("last Friday on 23 January, 2022", "last Friday on 23 January, 2022", d("2022-01-21"), d("2022-01-24"), "range"),
    ("last week, as mentioned on November 6, 2023", "last week, as mentioned on November 6, 2023", d("2023-10-30"),
     d("2023-11-07"), "range"),
]

# Words that only look like dates: none of these names a time.
NOT_DATES = [
    "I may go to the gym", "May I ask you something?", "This may help", "they march every year", "I sat down",
    "the sun is out", "Can I get a second opinion?", "I have a date with Ann", "what are you doing now?",
    "we went home", "wed the ring", "rely on sat nav", "I like fri", "mon ami", "Is Jan coming?", "dinner with May",
    "a photo of May's dog", "in May's garden", "ruby tuesdays", "one-year-old child", "How many weeks passed?",
    "I work on Tuesdays", "a day at the beach", "the first time", "ten days of rain", "2 cats and 3 dogs",
    "call 555-1234", "version 2.3.1", "the 2010s were fun", "a year of my life", "every morning I run",
    "I march 3 people", "Good morning!", "Nice weekend plans?", "It's 3:30 now", "",
]


@pytest.mark.parametrize(("query", "text", "start", "end", "kind"), POSITIVE, ids=[case[0] for case in POSITIVE])
def test_reads_the_range(query: str, text: str, start: datetime, end: datetime, kind: str) -> None:
    assert [(span.text, span.start, span.end, span.kind) for span in read_dates(query, TODAY)] == [
        (text, start, end, kind)]


@pytest.mark.parametrize("query", NOT_DATES)
def test_words_that_only_look_like_dates(query: str) -> None:
    assert read_dates(query, TODAY) == []


@pytest.mark.parametrize(("query", "yearless"), [
    ("on May 2nd", True), ("in April", True), ("the second of May", True), ("2 May 2023", False),
    ("May 2023", False), ("last April", False), ("yesterday", False), ("on 2023-05-02", False),
    ("the day after May 2", True), ("since April", False)])
def test_yearless(query: str, yearless: bool) -> None:
    assert [span.yearless for span in read_dates(query, TODAY)] == [yearless]


def test_several_phrases_in_order() -> None:
    spans = read_dates("what did I say yesterday and on 2 May 2023?", TODAY)
    assert [span.text for span in spans] == ["yesterday", "2 May 2023"]


def test_impossible_dates_are_left_out() -> None:
    assert read_dates("on Feb 30 2023", TODAY) == []
    assert read_dates("the week before", TODAY) == []  # an offset with no day after it


def test_leap_day_is_the_last_one() -> None:
    assert read_dates("on Feb 29", datetime(2025, 3, 10))[0].start == d("2024-02-29")


def test_the_weekend_on_a_weekend_is_this_one() -> None:
    sunday = datetime(2024, 5, 19, 10)
    assert read_dates("the weekend", sunday)[0].start == d("2024-05-18")
    assert read_dates("last weekend", sunday)[0].start == d("2024-05-11")


def test_aware_today_gives_aware_spans() -> None:
    zone = timezone(timedelta(hours=2))
    span = read_dates("yesterday", TODAY.replace(tzinfo=zone))[0]
    assert span.start == datetime(2024, 5, 14, tzinfo=zone) and span.end.tzinfo is zone
    assert span.contains(datetime(2024, 5, 14, 23, 59, tzinfo=zone))


def test_contains_is_half_open() -> None:
    span = read_dates("yesterday", TODAY)[0]
    assert span.contains(d("2024-05-14")) and not span.contains(d("2024-05-15"))


def test_yearless_moves_to_the_latest_year_with_memories() -> None:
    span = read_dates("on May 2nd", TODAY)[0]
    assert with_memories(span, [date(2021, 5, 2), date(2022, 5, 2), date(2024, 1, 1)]).start == d("2022-05-02")
    assert with_memories(span, [date(2022, 5, 2), date(2024, 5, 2)]).start == d("2024-05-02")
    assert with_memories(span, [date(2023, 5, 3)]) == span  # no memories on any May 2nd: the latest
    assert with_memories(span, []) == span
    month = read_dates("in June", TODAY)[0]
    assert with_memories(month, [date(2021, 6, 30)]).start == d("2021-06-01")
    assert with_memories(month, [date(2021, 6, 30)]).end == d("2021-07-01")


def test_yearless_leap_day_skips_years_without_one() -> None:
    span = read_dates("on 29 February", datetime(2025, 3, 1))[0]
    assert with_memories(span, [date(2020, 2, 29), date(2023, 2, 28)]).start == d("2020-02-29")


def test_spans_with_a_year_are_not_moved() -> None:
    span = read_dates("on 2 May 2023", TODAY)[0]
    assert with_memories(span, [date(2021, 5, 2)]) == span


def test_dateparser_is_imported_only_for_a_date_phrase() -> None:
    code = ("import sys, datetime; from local_agent.reading.dates import read_dates; "
            "read_dates('I may go and march, then sat down', datetime.datetime(2024, 5, 15)); "
            "print('dateparser' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code + "; from local_agent.reading.dates import warm_up; warm_up(); "
                             "print('dateparser' in sys.modules)"], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["False", "True"]


def test_a_question_without_a_date_is_cheap() -> None:
    queries = ["What is my sister's name?", "Which book did you recommend to me?", "How many dogs does Maria have?"]
    start = time.perf_counter()
    for _ in range(300):
        for query in queries:
            read_dates(query, TODAY)
    assert (time.perf_counter() - start) / 900 < 0.001


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["on", "the", "May", "may", "2", "2nd", "2023", "last", "week", "weeks", "ago", "a",
                                 "few", "before", "after", "since", "between", "and", "Tuesday", "night", "in",
                                 "of", "second", "weekend", "yesterday", ",", "past", "mid-", "this"]), max_size=9))
def test_never_raises_on_date_like_words(words: list[str]) -> None:
    for span in read_dates(" ".join(words), TODAY):
        assert span.start < span.end


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60))
def test_never_raises_on_any_text(text: str) -> None:
    read_dates(text, TODAY)


@pytest.mark.parametrize(("query", "topic"), [
    ("What dish did Nate make on 9 November, 2022?", "What dish did Nate make?"),
    ("What did I tell you yesterday about my trip?", "What did I tell you about my trip?"),
    ("Where was John between August 11 and August 15 2023?", "Where was John?"),
    ("Where was Tim in the week before 16 November 2023?", "Where was Tim?"),
    ("What did Maria do last weekend before April 10, 2023?", "What did Maria do?"),
    ("Which book did you recommend two weeks ago?", "Which book did you recommend?"),
    ("When did Melanie go camping in July?", "When did Melanie go camping?"),
])
def test_the_topic_is_the_question_without_its_dates(query: str, topic: str) -> None:
    assert without_dates(query, TODAY) == topic


@pytest.mark.parametrize("query", [*NOT_DATES[:12], "yesterday", "on May 2nd", "What about it?"])
def test_a_question_without_dates_or_only_dates_stays_whole(query: str) -> None:
    assert without_dates(query, TODAY) == query


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60))
def test_the_topic_never_raises_and_never_grows(text: str) -> None:
    assert len(without_dates(text, TODAY)) <= len(text)
