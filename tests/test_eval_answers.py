"""The end-to-end answers evaluation on the real default model, on a tiny LoCoMo file: every mode
answers every question, and with memory it says whether recall showed the model the gold words."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from evals.answers import evaluate

pytestmark = pytest.mark.model

TINY = Path(__file__).parent / "data" / "locomo_tiny.json"


def test_three_modes_and_what_recall_showed(default_gguf: Path) -> None:
    answers = io.StringIO()
    report = evaluate(TINY, limit=None, seed=13, max_tokens=24, answers=answers)
    rows = [json.loads(line) for line in answers.getvalue().splitlines()]
    questions = report["questions"]
    assert questions >= 4
    assert sorted({row["mode"] for row in rows}) == ["memory", "memory_off", "pasted_evidence"]
    assert len(rows) == 3 * questions
    with_memory = [row for row in rows if row["mode"] == "memory"]
    assert all("gold_in_memories" in row for row in with_memory)
    assert not any("gold_in_memories" in row for row in rows if row["mode"] != "memory")
    treehouse = next(row for row in with_memory if row["question"] == "What did Ben build for his kids?")
    assert treehouse["gold_in_memories"] is True  # the message that says it was recalled and shown
    shown = sum(row["gold_in_memories"] for row in with_memory) / len(with_memory)
    assert report["memory"]["gold_in_memories"] == round(shown, 4)
    right_when_shown = [row["correct"] for row in with_memory if row["gold_in_memories"]]
    assert report["memory"]["accuracy_gold_shown"] == round(sum(right_when_shown) / len(right_when_shown), 4)
