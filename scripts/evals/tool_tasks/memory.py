"""Remembered-fact tasks: a few facts about the user are stored first, then one is asked for."""

from __future__ import annotations

import random

from .common import Task

NAMES = ["Maya", "Tomas", "Priya", "Oskar", "Lena", "Kofi", "Ines", "Hiro", "Sofia", "Dmitri", "Amara", "Jonas"]
VALUES = {
    "sister": NAMES, "manager": NAMES,
    "dog": ["Biscuit", "Pepper", "Juno", "Rocket", "Mochi", "Bruno"],
    "city": ["Lisbon", "Toronto", "Nairobi", "Osaka", "Krakow", "Valparaiso", "Tallinn", "Porto"],
    "job": ["nurse", "carpenter", "data analyst", "teacher", "pilot", "pharmacist", "architect"],
    "food": ["ramen", "paella", "dumplings", "lasagna", "falafel", "pho", "tacos"],
    "allergy": ["peanuts", "shellfish", "penicillin", "cats", "pollen", "latex"],
    "car": ["a blue Volvo", "a red Fiat", "a grey Toyota", "a green Skoda", "a white Tesla"],
    "instrument": ["cello", "trumpet", "banjo", "piano", "violin", "drums"],
}
TEMPLATES = {  # fact, questions; {v} is the value
    "sister": ("The user's sister is called {v}.",
               ["What is my sister's name?", "Do you remember what my sister is called?"]),
    "manager": ("The user's manager is {v}.",
                ["Who is my manager?", "What did I tell you about my manager's name?"]),
    "dog": ("The user's dog is named {v}.", ["What is my dog's name?", "Do you remember what my dog is called?"]),
    "city": ("The user lives in {v}.", ["Which city do I live in?", "What did I tell you about where I live?"]),
    "job": ("The user works as a {v}.", ["What do I do for a living?", "Do you remember what my job is?"]),
    "food": ("The user's favourite food is {v}.",
             ["What is my favourite food?", "What did I tell you my favourite food is?"]),
    "allergy": ("The user is allergic to {v}.", ["What am I allergic to?", "Do you remember what I'm allergic to?"]),
    "car": ("The user drives {v}.", ["What car do I drive?", "What did I tell you about my car?"]),
    "instrument": ("The user plays the {v}.",
                   ["Which instrument do I play?", "Do you remember which instrument I play?"]),
}


def _answer(kind: str, value: str) -> str:
    return value.removeprefix("a ") if kind == "car" else value


def memory_tasks(rng: random.Random, count: int, today: str) -> list[Task]:
    """Each task stores the asked fact among four others (other subjects, random values)."""
    kinds = sorted(TEMPLATES)
    tasks = []
    for index in range(count):
        kind = kinds[index % len(kinds)]
        value = rng.choice(VALUES[kind])
        others = rng.sample([k for k in kinds if k != kind], 4)
        facts = [TEMPLATES[k][0].format(v=rng.choice(VALUES[k])) for k in others]
        facts.insert(rng.randint(0, len(facts)), TEMPLATES[kind][0].format(v=value))
        question = TEMPLATES[kind][1][(index // len(kinds)) % 2]
        tasks.append(Task(f"memory-{index:03d}", "memory", question, _answer(kind, value), ("memory_search",),
                          today, memories=tuple(facts)))
    return tasks
