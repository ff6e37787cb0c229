"""Start-up: what `ask --no-memory` loads (the CLI, the runtime, the agent, the memory store's
modules) imports neither bm25s nor scipy, faiss or jsonschema; they load when used."""

from __future__ import annotations

import subprocess
import sys

MODULES = ("local_agent.cli.group", "local_agent.cli.chat", "local_agent.app", "local_agent.turn.agent",
           "local_agent.memory.store", "local_agent.memory.index.lexical", "local_agent.memory.store.forgetting")
HEAVY = ("bm25s", "scipy", "faiss", "jsonschema")
PROGRAM = """
import sys
for name in {modules!r}:
    __import__(name)
print(" ".join(sorted(name for name in {heavy!r} if name in sys.modules)))
"""


def test_the_modules_ask_needs_import_no_heavy_library() -> None:
    done = subprocess.run([sys.executable, "-c", PROGRAM.format(modules=MODULES, heavy=HEAVY)],
                          capture_output=True, text=True, check=True, timeout=120)
    assert done.stdout.strip() == ""
