"""The eval_answers dev set from LoCoMo: histories that import cleanly with their dates, a
balanced seeded sample, and keyword scoring of answers."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest
from evals.answers_data import (
    AnswerQuestion,
    build_answer_set,
    gold_keywords,
    is_correct,
    parse_session_date,
    sample_questions,
)

from local_agent.conversations.chat_import import parse_chats
from local_agent.errors import InputError

TINY = Path(__file__).parent / "data" / "locomo_tiny.json"


def test_history_imports_with_names_roles_sessions_and_dates() -> None:
    history = build_answer_set(TINY).histories[0]
    assert (history.user, history.assistant) == ("Ana", "Ben")
    result = parse_chats(history.jsonl())
    assert result.problems == () and len(result.messages) == 10
    first, photo, later = result.messages[0], result.messages[3], result.messages[6]
    assert (first.session, first.position, first.role, first.content) == (
        "tiny-1-s1", 0, "user", "Ana: Hi Ben! How was your weekend?")
    assert first.date == datetime(2024, 3, 3, 10, 5)
    assert photo.role == "assistant"
    assert photo.content == "Ben: Look at this! [shares a photo of a wooden treehouse in an oak tree]"
    assert (later.session, later.position, later.role, later.date) == ("tiny-1-s2", 0, "assistant",
                                                                       datetime(2024, 4, 17, 18, 40))
    assert history.today == datetime(2024, 4, 18)


def test_questions_keep_categories_one_to_four_with_known_evidence() -> None:
    questions = build_answer_set(TINY).questions
    assert [(q.category, q.evidence) for q in questions] == [
        (4, ("D1:2",)), (4, ("D1:6",)), (2, ("D2:1",)), (1, ("D1:3", "D2:2")), (1, ("D2:4",)), (3, ("D1:4",))]
    assert questions[0].answer == "A treehouse" and questions[0].keywords == ("treehouse",)
    assert questions[2].keywords == ("tuesday", "17", "april", "2024")


def test_evidence_lines_for_the_ceiling() -> None:
    answer_set = build_answer_set(TINY)
    history, question = answer_set.histories[0], answer_set.questions[3]
    assert history.evidence(question.evidence) == [
        "(3 March 2024) Ana: Wow! I spent mine learning to play the cello.",
        "(17 April 2024) Ana: Lovely. My cello teacher says I can join the community orchestra."]


def test_sample_is_balanced_seeded_and_in_file_order() -> None:
    questions = [AnswerQuestion("c", f"q{n}", "a", category, ("D1:1",), ("a",))
                 for n, category in enumerate([1] * 50 + [2] * 50 + [3] * 5 + [4] * 100)]
    sample = sample_questions(questions, 60, seed=1)
    assert Counter(q.category for q in sample) == {1: 19, 2: 18, 3: 5, 4: 18}
    assert sample == sample_questions(questions, 60, seed=1)
    assert sample != sample_questions(questions, 60, seed=2)
    assert sample == sorted(sample, key=questions.index)
    assert len(sample_questions(questions, 1000, seed=1)) == len(questions)


def test_small_sample_of_tiny() -> None:
    sample = build_answer_set(TINY, size=4, seed=3).questions
    assert Counter(q.category for q in sample) == {1: 1, 2: 1, 3: 1, 4: 1}


@pytest.mark.parametrize(("text", "moment"), [
    ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56)),
    ("10:05 am on 3 March, 2024", datetime(2024, 3, 3, 10, 5)),
    ("12:09 am on 13 September, 2023", datetime(2023, 9, 13, 0, 9)),
    ("12:30 pm on 1 January 2022", datetime(2022, 1, 1, 12, 30)),
])
def test_session_dates(text: str, moment: datetime) -> None:
    assert parse_session_date(text) == moment


@pytest.mark.parametrize("text", ["8 May 2023", "13:56 pm on 8 May, 2023", "1:56 pm on 31 February, 2023", ""])
def test_bad_session_dates(text: str) -> None:
    with pytest.raises(ValueError, match="not a LoCoMo session date"):
        parse_session_date(text)


@pytest.mark.parametrize(("answer", "keywords"), [
    ("7 May 2023", ["7", "may", "2023"]),
    ("Psychology, counseling certification", ["psychology", "counseling", "certification"]),
    ("The week before 9 June 2023", ["week", "9", "june", "2023"]),
    ("Pachelbel's Canon", ["pachelbel", "canon"]),
    ("two dogs", ["2", "dogs"]),
    ("Yes, since she collects classic children's books", ["yes", "collects", "classic", "children", "books"]),
    ("São Jorge", ["sao", "jorge"]),
    ("2022", ["2022"]),
    ("the the", []),
])
def test_gold_keywords(answer: str, keywords: list[str]) -> None:
    assert gold_keywords(answer) == keywords


@pytest.mark.parametrize(("said", "gold", "correct"), [
    ("She went on May 7th, 2023.", "7 May 2023", True),
    ("She went on May 8, 2023.", "7 May 2023", False),
    ("Psychology and counseling.", "Psychology, counseling certification", False),
    ("A counseling certification in psychology", "Psychology, counseling certification", True),
    ("Her kids love dinosaur books and nature walks.", "dinosaurs, nature", True),
    ("She has 2 dogs.", "two dogs", True),
    ("It's Pachelbel\u2019s Canon!", "Pachelbel's Canon", True),
    ("the treehouse", "A treehouse", True),
    ("a tree house", "A treehouse", True),  # words the gold runs together match apart
    ("She likes watching movies.", "Writing, watchingmovies", False),
    ("Writing and watching movies.", "Writing, watchingmovies", True),
    ("To destress.", "To de-stress", True),
    ("On May 7.", "7 May 2023", True),  # a year-less date with the gold's month and day
    ("On May 7, 2022.", "7 May 2023", False),
    ("On 2023-05-07 at noon.", "7 May 2023", True),  # the ISO date the prompt shows
    ("On 2023-05-08.", "7 May 2023", False),
    ("Aug 4th", "August 4, 2023", True),
    ("In May.", "2022", False),  # a year alone is always required
    ("anything", "the", False),
])
def test_is_correct(said: str, gold: str, correct: bool) -> None:
    assert is_correct(said, gold_keywords(gold)) is correct


def test_not_locomo(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text(json.dumps([{"conversation": {"speaker_a": "A"}}]))
    with pytest.raises(InputError, match="conversation 1 is not in LoCoMo's shape"):
        build_answer_set(path)
    path.write_text("{")
    with pytest.raises(InputError, match="not a JSON file"):
        build_answer_set(path)
