#!/usr/bin/env python
"""Write scripts/evals/problem_contrasts_generated.jsonl: everyday word problems for the ranker
of local_agent/reading/problems, each body asked two or three ways (what is asked swapped, so
that the ranker must read the question): comparisons ("5 more than Kai", asked about either
person), a price shared out or multiplied, boxes filled, needed or left over, two parts added
or compared, things taken away or brought in, and a daily rate. Names, nouns and numbers are
drawn with a fixed seed; none of the nouns of the issue's five test questions is used.

    python scripts/make_problem_contrasts.py [--seed 7] [--per-shape 8]
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent / "evals" / "problem_contrasts_generated.jsonl"
NAMES = ["Rosa", "Kai", "Mina", "Omar", "Lena", "Jonas", "Priya", "Tariq", "Ines", "Hugo", "Noor", "Felix"]
THINGS = ["shells", "marbles", "cards", "stamps", "coins", "beads", "pebbles", "badges", "comics", "plants"]
ITEMS = [("book", "books"), ("mug", "mugs"), ("pen", "pens"), ("lamp", "lamps"), ("towel", "towels"),
         ("plate", "plates"), ("scarf", "scarves"), ("cushion", "cushions")]
CURRENCIES = ["dollars", "euros", "pounds"]
CONTAINERS = [("crate", "crates", "bottles"), ("bag", "bags", "apples"), ("tray", "trays", "cupcakes"),
              ("carton", "cartons", "muffins"), ("van", "vans", "people"), ("shelf", "shelves", "books")]
Row = tuple[str, float]


def compare(r: random.Random) -> list[Row]:
    a, b = r.sample(NAMES, 2)
    things = r.choice(THINGS)
    x, d = r.randint(12, 60), r.randint(2, 11)
    if r.random() < 0.5:
        body = f"{a} has {x} {things}, which is {d} more than {b} has."
        return [(f"{body} How many {things} does {b} have?", x - d),
                (f"{body} How many {things} do {a} and {b} have together?", 2 * x - d)]
    body = f"{a} has {x} {things}, {d} fewer than {b}."
    return [(f"{body} How many {things} does {b} have?", x + d),
            (f"{body} How many {things} do they have altogether?", 2 * x + d)]


def compare_stated(r: random.Random) -> list[Row]:
    a, b = r.sample(NAMES, 2)
    things = r.choice(THINGS)
    y, d = r.randint(8, 40), r.randint(2, 9)
    body = f"{a} has {d} more {things} than {b}. {b} has {y} {things}."
    return [(f"{body} How many {things} does {a} have?", y + d),
            (f"{body} How many {things} do they have in all?", 2 * y + d)]


def price(r: random.Random) -> list[Row]:
    (one, many), money = r.choice(ITEMS), r.choice(CURRENCIES)
    n, each = r.randint(3, 9), r.randint(2, 15)
    who = r.choice(["I", "We", "She", "He"])
    rows: list[Row] = [(f"{who} paid {n * each} {money} for {n} {many}. How much was each {one}?", each),
                       (f"{who} paid {n * each} {money} for {n} {many}. How much does one {one} cost?", each)]
    rows.append((f"Each {one} costs {each} {money}. {who} bought {n} {many}. How much was that in total?", n * each))
    return rows


def containers(r: random.Random) -> list[Row]:
    one, many, things = r.choice(CONTAINERS)
    k = r.randint(4, 12)
    n = k * r.randint(3, 9) + r.randint(1, k - 1)
    who = r.choice(["I", "We", "They"])
    body = f"A {one} holds {k} {things}. {who} have {n} {things}."
    return [(f"{body} How many {many} can {who.lower() if who != 'I' else 'I'} fill completely?", n // k),
            (f"{body} How many {many} are needed for all the {things}?", -(-n // k)),
            (f"{body} How many {things} are left over?", n % k)]


def parts(r: random.Random) -> list[Row]:
    verb, noun = r.choice([("sold", "tickets"), ("picked", "apples"), ("read", "pages"), ("ran", "laps"),
                           ("baked", "cookies"), ("collected", "cans")])
    part1, part2, whole = r.choice([("morning", "afternoon", "that day"),
                                    ("first week", "second week", "over the fortnight"),
                                    ("first round", "second round", "in the contest"),
                                    ("Saturday", "Sunday", "over the weekend")])
    x, y = r.randint(10, 40), r.randint(41, 80)
    who = r.choice(["We", "They", "Our class"])
    body = f"{who} {verb} {x} {noun} on {part1} and {y} on {part2}." if part1 == "Saturday" else \
        f"{who} {verb} {x} {noun} in the {part1} and {y} in the {part2}."
    subject = "we" if who == "We" else "they"
    return [(f"{body} How many {noun} were {verb} in all?", x + y),
            (f"{body} How many {noun} did {subject} {_present(verb)} {whole}?", x + y),
            (f"{body} How many more {noun} in the {part2} than in the {part1}?", y - x)]


def _present(verb: str) -> str:
    return {"sold": "sell", "picked": "pick", "read": "read", "ran": "run", "baked": "bake",
            "collected": "collect"}[verb]


def takeaway(r: random.Random) -> list[Row]:
    noun, place = r.choice([("bikes", "shed"), ("boats", "harbour"), ("cows", "field"), ("books", "box"),
                            ("plates", "cupboard")])
    x, y = r.randint(20, 60), r.randint(3, 19)
    body = f"There were {x} {noun} in the {place}."
    return [(f"{body} {y} were taken out. How many {noun} are left in the {place}?", x - y),
            (f"{body} {y} more were put in. How many {noun} are in the {place} now?", x + y)]


def rate(r: random.Random) -> list[Row]:
    a = r.choice(NAMES)
    noun = r.choice(["pages", "kilometres", "emails", "letters"])
    x, n = r.randint(3, 25), r.randint(3, 12)
    return [(f"{a} does {x} {noun} every day. How many {noun} does {a} do in {n} days?", x * n),
            (f"{a} did {x * n} {noun} in {n} days, the same number each day. How many {noun} a day is that?", x)]


SHAPES: tuple[Callable[[random.Random], list[Row]], ...] = (compare, compare_stated, price, containers, parts,
                                                            takeaway, rate)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--per-shape", type=int, default=8)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows = [row for shape in SHAPES for _ in range(args.per_shape) for row in shape(rng)]
    text = "".join(json.dumps({"text": t, "answer": a}) + "\n" for t, a in rows)
    temporary = OUTPUT.with_suffix(".tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(OUTPUT)
    print(f"{len(rows)} rows -> {OUTPUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
