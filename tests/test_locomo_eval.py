"""The LoCoMo recall harness: evidence parsing, ingestion through the store, the report, the
command line, and the real dev file when it is there."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from evals.locomo import (
    evaluate,
    load_conversations,
    main,
    normalize_evidence,
    question_recall,
    split_of,
    turn_items,
)

from local_agent.memory.index.embedder import Embedder

REPO = Path(__file__).resolve().parent.parent
TINY = REPO / "tests" / "data" / "locomo_tiny.json"
DEV = Path("/work/shared/data/locomo-dev.json")


def test_malformed_evidence_ids_are_split_and_repaired() -> None:
    assert normalize_evidence(["D8:6; D9:17"]) == ["D8:6", "D9:17"]
    assert normalize_evidence(["D:11:26", "D1:3", "D1:3"]) == ["D11:26", "D1:3"]
    assert normalize_evidence(["D", "", None, "D01:02"]) == ["D1:2"]
    assert normalize_evidence([]) == []


def test_loading_keeps_questions_with_evidence_and_image_captions() -> None:
    (conversation,) = load_conversations(TINY)
    assert len(conversation.turns) == 10
    assert "wooden treehouse in an oak tree" in conversation.turns[3].text
    assert len(conversation.questions) == 7  # the one without evidence is skipped
    assert conversation.questions[3].evidence == ["D1:3", "D2:2"]
    assert conversation.questions[4].evidence == ["D2:4"]  # 'D9:9' names no turn
    assert conversation.dropped_evidence == 1


def test_turns_are_stored_with_their_provenance() -> None:
    (conversation,) = load_conversations(TINY)
    items = turn_items(conversation)
    assert all(item.kind == "turn" for item in items)
    first, seventh = items[0].provenance, items[6].provenance
    assert (first.extra["dia_id"], first.speaker, first.date) == ("D1:1", "Ana", "10:05 am on 3 March, 2024")
    assert (seventh.extra["dia_id"], seventh.session) == ("D2:1", "tiny-1/session_2")


def test_question_recall_counts_each_evidence_turn() -> None:
    recalled = ["D1:1", "D2:2", "D1:3", "D4:4"]
    assert question_recall(["D1:3", "D2:2"], recalled, (1, 2, 3)) == {1: 0.0, 2: 0.5, 3: 1.0}


def test_dev_conversations_fall_in_fixed_splits() -> None:
    assert [split_of(f"conv-{n}") for n in (26, 30, 41, 42, 43)] == ["tune"] * 3 + ["check"] * 2
    assert split_of("conv-44") == split_of("tiny-1") == "other"


def test_missing_file_is_an_error_message(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main([str(tmp_path / "nope.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_evaluation_on_the_tiny_file(embedder: Embedder) -> None:
    report = evaluate(TINY, (1, 3, 5), embedder=embedder)
    assert list(report)[:3] == ["recall@1", "recall@3", "recall@5"]
    values = [report[f"recall@{k}"] for k in (1, 3, 5)]
    assert all(0.0 <= value <= 1.0 for value in values) and values == sorted(values)
    assert report["recall@5"] >= 0.7  # ten turns: the right ones must come near the top
    assert report["questions"] == 7 and report["turns"] == 10
    assert set(report["per_category"]) == {"1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop",
                                           "5 adversarial"}
    assert report["per_category"]["1 multi-hop"]["questions"] == 2
    assert report["per_split"]["other"]["questions"] == 7 and report["per_split"]["other"]["recall@5"] == values[2]
    assert report["latency_ms"]["p95"] >= report["latency_ms"]["p50"] > 0


def test_command_line_prints_one_json_document(tmp_path: Path) -> None:
    output = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "eval_locomo.py"), str(TINY), "--k", "1,3", "--output", str(output)],
        capture_output=True, text=True, cwd=REPO, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert list(document)[:2] == ["recall@1", "recall@3"]
    assert json.loads(output.read_text()) == document
    assert "single-hop" in done.stderr and "query latency p50" in done.stderr


@pytest.mark.slow
@pytest.mark.skipif(not DEV.is_file(), reason=f"LoCoMo dev file not at {DEV}")
def test_recall_on_the_first_dev_conversation(embedder: Embedder) -> None:
    report = evaluate(DEV, (5, 10), limit_conversations=1, embedder=embedder)
    assert report["questions"] == 197
    assert report["recall@5"] >= 0.60 and report["recall@10"] >= 0.70
