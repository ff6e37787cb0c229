"""Arithmetic tasks: bare expressions, spoken operators, percentages and short word problems."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction

from .common import Task, number_text

Maker = Callable[[random.Random], tuple[str, Fraction]]


def _product(rng: random.Random) -> tuple[str, Fraction]:
    a, b = rng.randint(12, 99), rng.randint(12, 99)
    return rng.choice([f"What is {a} * {b}?", f"what's {a} times {b}", f"Calculate {a} x {b}"]), Fraction(a * b)


def _sum_difference(rng: random.Random) -> tuple[str, Fraction]:
    a, b, c = rng.randint(100, 9999), rng.randint(100, 9999), rng.randint(10, 999)
    return rng.choice([f"What is {a} + {b} - {c}?", f"How much is {a} plus {b} minus {c}?"]), Fraction(a + b - c)


def _division(rng: random.Random) -> tuple[str, Fraction]:
    b = rng.choice([2, 4, 5, 8, 16, 25])
    a = rng.randint(100, 5000)
    return rng.choice([f"What is {a} / {b}?", f"What is {a} divided by {b}?"]), Fraction(a, b)


def _percent(rng: random.Random) -> tuple[str, Fraction]:
    p, n = rng.choice([5, 10, 12, 15, 20, 25, 30, 75]), rng.randint(2, 80) * 10
    return rng.choice([f"What is {p}% of {n}?", f"{p}% of {n}", f"what is {p} percent of {n}"]), Fraction(p * n, 100)


def _power(rng: random.Random) -> tuple[str, Fraction]:
    base, exponent = rng.randint(2, 12), rng.randint(2, 6)
    message = rng.choice([f"What is {base}^{exponent}?", f"what is {base} to the power of {exponent}"])
    return message, Fraction(base**exponent)


def _parentheses(rng: random.Random) -> tuple[str, Fraction]:
    a, b, c = rng.randint(2, 50), rng.randint(2, 50), rng.randint(2, 9)
    return f"What is ({a} + {b}) * {c}?", Fraction((a + b) * c)


def _word_problem(rng: random.Random) -> tuple[str, Fraction]:
    count, price = rng.randint(2, 9), Fraction(rng.randint(150, 2500), 100)
    price_text = f"{float(price):.2f}"
    return (f"I bought {count} tickets at {price_text} dollars each. How much did I pay in total?",
            count * price)


def _split_bill(rng: random.Random) -> tuple[str, Fraction]:
    people, bill = rng.choice([2, 4, 5, 8]), rng.randint(40, 400)
    message = f"Our dinner cost {bill} dollars and we are {people} people. How much does each of us pay?"
    return message, Fraction(bill, people)


MAKERS: tuple[Maker, ...] = (_product, _sum_difference, _division, _percent, _power, _parentheses,
                             _word_problem, _split_bill)


def arithmetic_tasks(rng: random.Random, count: int, today: str) -> list[Task]:
    tasks = []
    for index in range(count):
        message, value = MAKERS[index % len(MAKERS)](rng)
        answer = number_text(float(value))
        accept = (f"{float(value):.2f}",) if value.denominator != 1 else ()
        tasks.append(Task(f"arithmetic-{index:03d}", "arithmetic", message, answer, ("calculator",), today, accept))
    return tasks
