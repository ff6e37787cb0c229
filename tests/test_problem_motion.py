"""Distance, speed and time read exactly (reading/problems/motion.py), and the look-alikes it
leaves alone."""

from __future__ import annotations

import pytest

from local_agent.reading.problems import reply
from local_agent.reading.problems.motion import read_motion


@pytest.mark.parametrize(("message", "answer"), [
    ("A train travels 300 km in 2.5 hours. What is its average speed?", "120 km/h"),
    ("if a car goes 60 mph for 2.5 hours how far does it go", "150 miles"),
    ("I walk 4 km an hour. How long to walk 10 km?", "2 hours 30 minutes"),
    ("I drove 120 miles in 2 hours 30 minutes, how fast was I going?", "48 mph"),
])
def test_distance_speed_and_time_are_read_exactly(message: str, answer: str) -> None:
    said = reply(message)
    assert said is not None and said.outcome == "answer" and said.text.startswith(f"{answer}. I read this as")


@pytest.mark.parametrize("message", [
    "How long will it take me to drive to Chicago at 65 mph?",  # no distance
    "We drove 300 miles in 5 hours",  # nothing asked
    "The trip is 150 km and I drive at 60 miles per hour, how long?",  # km at miles per hour
    "how long does it take to walk 5 km at 5 km/h with 2 kids?",  # a number that is none of them
])
def test_motion_look_alikes_are_not_read(message: str) -> None:
    assert read_motion(message) is None


@pytest.mark.parametrize(("message", "answer"), [
    ("If I cycle at 18 km/h, how many minutes will a 27 km ride take?", "90 minutes"),
    ("how many hours to drive 150 km at 60 km/h", "2.5 hours"),
    ("how long to drive 150 km at 60 km/h", "2 hours 30 minutes"),  # no unit asked: hours and minutes
])
def test_a_time_is_said_in_the_unit_the_question_asks_for(message: str, answer: str) -> None:
    said = reply(message)
    assert said is not None and said.text.startswith(f"{answer}.")
