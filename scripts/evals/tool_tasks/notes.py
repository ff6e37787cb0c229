"""Notes tasks: a generated folder of markdown and text notes, and questions only one note
answers. Notes without questions stand around them as distractors."""

from __future__ import annotations

import random
from pathlib import Path

from .common import Task

FIRST = ["Alvarez", "Brennan", "Chen", "Dubois", "Eriksen", "Fofana", "Gallo", "Haddad"]
CITIES = ["Lisbon", "Reykjavik", "Seoul", "Montreal", "Cape Town", "Vienna", "Hanoi"]
PLANTS = ["tomatoes", "basil", "sunflowers", "courgettes", "lavender", "chillies"]
BOOKS = [("The Glass Orchard", "Mira Solen"), ("North of Quiet", "Ada Penrose"), ("Salt Roads", "T. Okafor")]
FILLER = [
    "Remember to buy light bulbs and batteries.", "Ideas for the weekend: hike, museum, call grandma.",
    "The kitchen tap drips again; maybe replace the washer.", "Podcast recommendations from work: history, science.",
]


NOTES = (  # file, text, [(question, the value that answers it)]
    ("health/dentist.md", "# Dentist\nAppointment with Dr. {dentist} on {day} at {time}.\nBring the insurance card.",
     [("When is my dentist appointment according to my notes?", "day"),
      ("What is my dentist's name in my notes?", "dentist")]),
    ("home/wifi.txt", "Guest wifi network: {ssid}\nPassword: {password}\nRouter is behind the bookshelf.",
     [("What is the guest wifi password in my notes?", "password"),
      ("What is the guest wifi network called in my notes?", "ssid")]),
    ("travel/trip.md", "# Trip\nFlight to {city} departs at {flight} from gate {gate}.\nPack the adapter.",
     [("Which gate does my flight leave from, according to my notes?", "gate"),
      ("Where am I flying to, according to my notes?", "city")]),
    ("garden.md", "Planted {plant} this spring. Water them every {every} days.",
     [("How often should I water the plants, according to my notes?", "every_days"),
      ("What did I plant, according to my notes?", "plant")]),
    ("reading.md", "Currently reading {book} by {author}. Next: something about the sea.",
     [("Which book am I reading, according to my notes?", "book"),
      ("Who wrote the book I'm reading, according to my notes?", "author")]),
    ("work/project.md", "# Project Heron\nDeadline: {deadline}\nBudget: {budget} dollars\nOwner: me",
     [("What is the budget of project Heron in my notes?", "budget"),
      ("When is the project Heron deadline in my notes?", "deadline")]),
    ("recipes/pancakes.md", "# Pancakes\n{eggs} eggs, {flour} grams of flour, 300 ml milk, a pinch of salt.",
     [("How many eggs go into the pancakes in my notes?", "eggs"),
      ("How much flour do my pancake notes say?", "flour_grams")]),
)


def _day(rng: random.Random) -> str:
    return f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"


def _time(rng: random.Random) -> str:
    return f"{rng.randint(8, 17)}:{rng.choice(['00', '15', '30', '45'])}"


def _values(rng: random.Random) -> dict[str, str]:
    book, author = rng.choice(BOOKS)
    values = {
        "dentist": rng.choice(FIRST), "day": _day(rng), "time": _time(rng), "ssid": f"Home-{rng.randint(100, 999)}",
        "password": f"{rng.choice(['amber', 'cobalt', 'maple'])}-{rng.randint(1000, 9999)}",
        "city": rng.choice(CITIES), "flight": _time(rng), "gate": f"{rng.choice('ABCD')}{rng.randint(1, 40)}",
        "plant": rng.choice(PLANTS), "every": str(rng.randint(2, 5)), "book": book, "author": author,
        "deadline": _day(rng), "budget": str(rng.randint(20, 90) * 1000), "eggs": str(rng.randint(2, 4)),
        "flour": str(rng.choice([150, 200, 250, 300])),
    }
    values.update(every_days=f"{values['every']} days", flour_grams=f"{values['flour']} grams")
    return values


def write_notes(folder: Path, rng: random.Random) -> list[tuple[str, str, str]]:
    """Write the notes folder; returns (question, answer, file) for every question."""
    values = _values(rng)
    questions = []
    for relative, text, asked in NOTES:
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.format(**values) + "\n", encoding="utf-8")
        questions += [(question, values[key], relative) for question, key in asked]
    for index, text in enumerate(FILLER):
        (folder / f"misc-{index}.txt").write_text(text + "\n", encoding="utf-8")
    return questions


def notes_tasks(folder: Path, rng: random.Random, today: str) -> list[Task]:
    return [Task(f"notes-{index:03d}", "notes", question, answer, ("notes_search",), today,
                 extra={"note": note}) for index, (question, answer, note) in enumerate(write_notes(folder, rng))]
