"""The store room: memory records on disk and their lifecycle.

The journal, snapshot and vector files (layout.py), loading them and keeping up with other
processes (loading.py, sync.py), compaction, validation of records read from files, the doctor
and its repairs, export and import, forgetting, and the data dir's marker and privacy.
`MemoryStore` (memory_store.py) is the one class callers use.

Imported lazily, so that a module of this room (the data dir's marker, say) can be used without
loading the search indexes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .health import doctor
    from .memory_store import MemoryStore

__all__ = ["MemoryStore", "doctor"]


def __getattr__(name: str) -> Any:
    if name == "MemoryStore":
        from .memory_store import MemoryStore

        return MemoryStore
    if name == "doctor":
        from .health import doctor

        return doctor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
