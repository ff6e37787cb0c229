#!/usr/bin/env python
"""Train the answer chooser (local_agent/turn/choose.py) and write its weights, least probability
and margin to local_agent/data/answer_chooser.json.

    python scripts/train_answer_chooser.py [--locomo /work/shared/data/locomo-dev.json] [--limit 300]

Data: the live set's dev split (scripts/evals/sets/live-people.jsonl; never its held-out rows)
and LoCoMo dev questions with a short answer (Maharana et al., ACL 2024; CC BY-NC 4.0; read from
the shared data folder, never copied into the repository). Each question part's candidates
come from its records (the person's messages; the question's LoCoMo evidence turns and the turns
next to them), a candidate is right when it holds the gold answer or the gold answer holds it,
and the model's scores come from the default model (llama.cpp, greedy logits).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from local_agent.turn.choose import ChooserWeights, Scored, choose_part, feature_names, scored, with_model  # noqa: E402
from local_agent.turn.evidence import Candidate, from_memory  # noqa: E402
from local_agent.turn.told import parts, subjects_of  # noqa: E402

LIVE = ROOT / "scripts" / "evals" / "sets" / "live-people.jsonl"
OUT = ROOT / "local_agent" / "data" / "answer_chooser.json"
Example = tuple[Scored, list[str] | None, str]  # a part's candidates, its gold alternatives (None: never told), source


def said(day: str, text: str) -> Candidate:
    return from_memory(f"({day}) You said: {text}")


def live_examples() -> list[tuple[str, list[Candidate], list[str] | None]]:
    """(question part, records, gold alternatives) of the live set's dev split, one part each."""
    found = []
    for line in LIVE.read_text(encoding="utf-8").splitlines():
        person = json.loads(line)
        if person["split"] != "dev":
            continue
        records = [said(f"{datetime.fromisoformat(day['date']):%-d %B %Y}", message)
                   for day in reversed(person["days"]) for message in day["messages"]]
        for question in person["questions"]:
            pieces, gold = parts(question["ask"]), question["gold"]
            if gold is None or len(pieces) == len(gold):
                for number, piece in enumerate(pieces):
                    found.append((piece, records, None if gold is None else gold[number].split("|")))
    return found


def _session_day(text: str) -> str:
    match = re.search(r"(\d{1,2}) (\w+),? (\d{4})", text)
    return f"{int(match[1])} {match[2]} {match[3]}" if match else ""


def locomo_examples(path: Path, limit: int) -> list[tuple[str, list[Candidate], list[str] | None]]:
    """LoCoMo single- and multi-hop questions with an answer of at most four words: the
    evidence turns and the turns either side of each, as records."""
    found: list[tuple[str, list[Candidate], list[str] | None]] = []
    for sample in json.loads(path.read_text(encoding="utf-8")):
        talk = sample["conversation"]
        turns = {}
        for key, value in talk.items():
            if re.fullmatch(r"session_\d+", key):
                day = _session_day(talk.get(f"{key}_date_time", ""))
                turns.update({turn["dia_id"]: (day, f"{turn['speaker']}: {turn['text']}") for turn in value})
        ids = list(turns)
        for qa in sample["qa"]:
            answer = str(qa.get("answer", ""))
            if qa.get("category") not in (1, 4) or not answer or len(answer.split()) > 4:
                continue
            near = {ids[at + step] for cited in qa["evidence"] if cited in turns
                    for at in [ids.index(cited)] for step in (-1, 0, 1) if 0 <= at + step < len(ids)}
            records = [said(*turns[key]) for key in ids if key in near]
            if records:
                found.append((qa["question"], records, [answer]))
    return found[:limit]


def holds(text: str, gold: list[str]) -> bool:
    said_lower = text.lower()
    return any(re.search(r"(?<!\w)" + re.escape(option.lower()), said_lower) or
               (len(said_lower) > 2 and re.search(r"(?<!\w)" + re.escape(said_lower) + r"(?!\w)", option.lower()))
               for option in gold)


def matrix(found: Scored, names: list[str]) -> np.ndarray:
    return np.array([[named.get(name, 0.0) for name in names] for named in found.features])


def train(examples: list[Example], names: list[str], l2: float = 0.1) -> np.ndarray:
    """A conditional logit (one softmax over each part's candidates), fitted by L-BFGS."""
    from scipy.optimize import minimize  # type: ignore[import-untyped]

    groups = [(matrix(found, names), np.array([holds(c.text, gold) for c in found.candidates], float))
              for found, gold, _ in examples if gold is not None and found.candidates]
    groups = [(x, y / y.sum()) for x, y in groups if y.sum() > 0]

    def loss(weights: np.ndarray) -> tuple[float, np.ndarray]:
        total, gradient = l2 * float(weights @ weights) / 2, l2 * weights
        for x, y in groups:
            scores = x @ weights
            top = scores.max()
            chance = np.exp(scores - top)
            norm = chance.sum()
            chance /= norm
            total -= float(y @ scores) - top - float(np.log(norm))
            gradient = gradient - x.T @ (y - chance)
        return total / len(groups), gradient / len(groups)

    return minimize(loss, np.zeros(len(names)), jac=True, method="L-BFGS-B").x


def outcomes(examples: list[Example], weights: ChooserWeights) -> list[tuple[float, float, bool | None]]:
    """Each part's (probability, runner-up, right: None for a never-told part)."""
    found = []
    for scored_part, gold, _ in examples:
        choice = choose_part(scored_part, weights)
        if choice.best is None:
            continue
        found.append((choice.probability, choice.runner_up, None if gold is None else holds(choice.best.text, gold)))
    return found


def pick_margin(rows: list[tuple[float, float, bool | None]], wrong_share: float) -> tuple[float, float]:
    """The least probability and margin that answer the most parts right with at most
    `wrong_share` of the parts answered wrong (a never-told part answered counts as wrong)."""
    best = (0, 1.0, 1.0)
    for least in np.arange(0.2, 1.0, 0.05):
        for margin in np.arange(0.0, 0.8, 0.05):
            taken = [right for chance, second, right in rows if chance >= least and chance - second >= margin]
            wrong = sum(right is not True for right in taken)
            if wrong <= wrong_share * len(taken) and sum(right is True for right in taken) > best[0]:
                best = (sum(right is True for right in taken), float(least), float(margin))
    return round(best[1], 2), round(best[2], 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=Path("/work/shared/data/locomo-dev.json"))
    parser.add_argument("--limit", type=int, default=300, help="LoCoMo questions at most")
    parser.add_argument("--wrong", type=float, default=0.1, help="share of the parts answered that may be wrong")
    args = parser.parse_args()
    if not args.locomo.is_file():
        print(f"error: no LoCoMo file at {args.locomo}", file=sys.stderr)
        return 2
    from local_agent.backends.llama_cpp import LlamaCppBackend
    from local_agent.config import CHECKOUT_MODELS_DIR

    backend = LlamaCppBackend(CHECKOUT_MODELS_DIR / "SmolLM2-135M-Instruct.Q4_1.gguf", model_name="smollm2",
                              context_size=2048, threads=2)
    sources = [(*row, "live") for row in live_examples()] + \
        [(*row, "locomo") for row in locomo_examples(args.locomo, args.limit)]
    examples: list[Example] = []
    for part, records, gold, source in sources:
        examples.append((with_model(scored(part, records, subjects_of(records, part)), backend), gold, source))
    backend.close()
    names = feature_names()
    weights = ChooserWeights(dict(zip(names, map(float, train(examples, names)))), 1.0, 1.0, {})
    least, margin = pick_margin(outcomes(examples, weights), args.wrong)
    meta = {"data": "live-people dev split; LoCoMo dev (CC BY-NC 4.0), single- and multi-hop, answers of <= 4 words",
            "parts": {source: sum(e[2] == source for e in examples) for source in ("live", "locomo")}}
    final = ChooserWeights({k: round(v, 4) for k, v in weights.weights.items()}, least, margin, meta)
    report(examples, final)
    with tempfile.NamedTemporaryFile("w", dir=OUT.parent, delete=False, encoding="utf-8") as handle:
        json.dump(final.to_json(), handle, indent=1)
        handle.write("\n")
    os.replace(handle.name, OUT)
    return 0


def report(examples: list[Example], weights: ChooserWeights) -> None:
    for source in ("live", "locomo"):
        rows = outcomes([e for e in examples if e[2] == source], weights)
        taken = [right for chance, second, right in rows
                 if chance >= weights.least and chance - second >= weights.margin]
        print(json.dumps({"source": source, "parts": len(rows), "answered": len(taken),
                          "right": sum(r is True for r in taken), "wrong": sum(r is not True for r in taken),
                          "least": weights.least, "margin": weights.margin}))


if __name__ == "__main__":
    sys.exit(main())
