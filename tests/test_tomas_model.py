"""The Tomás conversation of issue 43 on the real default model, as a new user has it: told in
one process, asked in later ones. What the assistant says about him comes from what he said,
or it says it was not told."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from local_agent.memory.index.person import addressed
from local_agent.turn.evidence import from_dialogue
from local_agent.turn.quotes import quotes, verbatim
from tests.test_integration import cli

pytestmark = pytest.mark.model

INTRO = ("Hi, I'm Tomás. I moved to Ghent last spring and I teach chemistry at a secondary school. "
         "My partner Jonas is a nurse and we have a cat called Pixel.")
# Jobs nobody in the conversation has: an answer naming one invented it.
UNSAID_JOBS = re.compile(r"\b(?:doctor|physician|piano|lawyer|engineer|dentist|accountant|musician|pilot|chef|"
                         r"surgeon|pharmacist|firefighter|plumber|electrician)\b", re.IGNORECASE)


def _ask(question: str, data_dir: Path) -> dict:
    done = cli("ask", "--json", "--no-server", "--max-tokens", "64", "--today", "2026-11-09T20:00", question,
               data_dir=data_dir)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _told(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps({"session": "intro", "input": INTRO, "date": "2026-11-02T19:00"}) + "\n",
                    encoding="utf-8")
    told = cli("batch", str(path), "--quiet", "--max-tokens", "64", data_dir=data_dir)
    assert told.returncode == 0, told.stderr


def test_the_tomas_conversation(tmp_path, isolated_dirs):
    _told(tmp_path, isolated_dirs)
    cat = _ask("What's my cat's name?", isolated_dirs)
    assert "Pixel" in cat["answer"] or "haven't told" in cat["answer"], cat["answer"]
    assert not cat["answer"].startswith("Nice to meet you")  # a canned reply never answers a question

    both = _ask("Where do I live and what does Jonas do?", isolated_dirs)
    assert "Ghent" in both["answer"] and "nurse" in both["answer"].lower(), both["answer"]
    assert both["outcome"] in ("answer", "not_told")

    cook = _ask("What does Jonas like to cook?", isolated_dirs)
    assert "haven't told" in cook["answer"] and cook["outcome"] == "not_told", cook["answer"]
    for answer in (cat, both, cook):
        said = [from_dialogue(INTRO), *(from_dialogue(addressed(m["text"])) for m in answer["memories_recalled"])]
        assert not UNSAID_JOBS.search(answer["answer"]), answer["answer"]
        assert all(verbatim(quote, said) for quote in quotes(answer["answer"])), answer["answer"]  # no quote invented
    # Not asserted: "Can you suggest a weekend day trip from where I live?" is an open request,
    # streamed unchecked; one run of two answered "as a piano teacher, I ..." (docs/answers.md).
