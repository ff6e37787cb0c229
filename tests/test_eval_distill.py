"""The distill evaluation: metrics on a tiny hand-made fixture with a scripted model, and the
front end end to end with the real default model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from evals.distill import evaluate_file, load_examples

from local_agent.errors import InputError
from local_agent.memory.distill import Distiller

from .fakes import ScriptedBackend

TINY = Path(__file__).parent / "data" / "distill_tiny.jsonl"
ROOT = Path(__file__).resolve().parent.parent
BICYCLES = json.dumps({"memories": ["The user fixes up old bicycles most evenings."], "save": True})


def test_metrics_on_tiny_fixture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    backend = ScriptedBackend([BICYCLES])
    output = tmp_path / "report.json"
    report = evaluate_file(TINY, output=output, progress=False, distiller=Distiller(backend))
    # 5 positives: 4 saved (mondays has no statement); 4 negatives: the dog remark is saved.
    assert (report["tp"], report["fp"], report["fn"]) == (4, 1, 1)
    assert report["precision"] == pytest.approx(0.8) and report["recall"] == pytest.approx(0.8)
    assert report["tail_rate"] == pytest.approx(3 / 4)  # the bakery fact does not say "bread"
    assert report["model_calls"] == 1 and report["valid_json_rate"] == 1.0
    assert report["by_source"]["hand-reaction"]["fp"] == 1
    assert report["by_source"]["hand-request"]["saved"] == 0
    assert report["latency"]["all"]["n"] == 9 and report["latency"]["model"]["n"] == 1
    assert json.loads(output.read_text()) == report
    table = capsys.readouterr().err
    assert "hand-positive" in table and "latency (all)" in table


def test_invalid_model_answer_lowers_valid_json_rate(tmp_path: Path) -> None:
    report = evaluate_file(TINY, progress=False, distiller=Distiller(ScriptedBackend(["{not json"])))
    assert report["valid_json_rate"] == 0.0
    assert report["model_saves"] == 0 and report["rule_saves"] == 5  # the user's own words kept instead


def test_limit_and_bad_lines(tmp_path: Path) -> None:
    assert len(load_examples(TINY, limit=3)) == 3
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"text": "hi", "save": true}\n{"text": "no label"}\n')
    with pytest.raises(InputError, match=r"broken\.jsonl:2"):
        load_examples(broken)


@pytest.mark.model
def test_eval_script_with_the_default_model(tmp_path: Path, default_gguf: Path) -> None:
    output = tmp_path / "out.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "eval_distill.py"), str(TINY), "--output", str(output)],
        capture_output=True, text=True, timeout=600, cwd=ROOT, check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert json.loads(output.read_text()) == report
    for name in ("precision", "recall", "tail_rate", "valid_json_rate"):
        assert 0.0 <= report[name] <= 1.0
    assert report["valid_json_rate"] == 1.0  # constrained decoding never leaves broken JSON
    assert "precision" in done.stderr and "latency" in done.stderr
