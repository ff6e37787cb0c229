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


OPEN_A_STORE = """
import sys
from pathlib import Path
from local_agent.memory.store import MemoryStore
from tests.reliability import HashEmbedder
folder = Path(sys.argv[1])
if sys.argv[2] == "write":
    with MemoryStore.open(folder, HashEmbedder()) as store:
        store.add("The user's dog is called Biscuit.", "fact")
        store.compact()
else:
    with MemoryStore.open(folder, HashEmbedder()) as store:
        assert len(store.records()) == 1
    print(" ".join(sorted(name for name in ("bm25s", "scipy") if name in sys.modules)))
"""


def test_opening_a_saved_store_imports_no_bm25_library(tmp_path) -> None:
    """A command that never searches by words (memory list, forget by id) does not pay for
    bm25s and scipy (0.13 s): a saved lexical index is read when first searched."""
    for step in ("write", "read"):
        done = subprocess.run([sys.executable, "-c", OPEN_A_STORE, str(tmp_path), step], capture_output=True,
                              text=True, check=True, timeout=120)
    assert done.stdout.strip() == ""
