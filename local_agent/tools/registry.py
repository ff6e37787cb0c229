"""Every tool, registered in one place: its name, what it needs, and how it is built."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from ..errors import ConfigError
from .base import Tool
from .calculator import make_calculator
from .dates import Today, make_date
from .memory_search import RecallFunction, make_memory_search
from .notes_index import EmbedFunction
from .notes_search import make_notes_search
from .sql import make_sql_query, make_sql_schema

T = TypeVar("T")


@dataclass(frozen=True)
class ToolSources:
    """What the tools read. A tool whose source is missing is not available."""

    today: Today
    notes_dir: Path | None = None
    db_file: Path | None = None
    recall: RecallFunction | None = None
    embed: EmbedFunction | None = None
    embedder_id: str = ""
    cache_dir: Path | None = None  # private folder for the notes index cache
    sql_time_limit: float = 5.0
    notes_index_time: float | None = None  # seconds of indexing one notes search may do


@dataclass(frozen=True)
class ToolSpec:
    name: str
    needs: str  # the source it needs, in words, or "" for none
    available: Callable[[ToolSources], bool]
    build: Callable[[ToolSources], Tool]


def _needs(value: T | None, what: str) -> T:
    if value is None:
        raise ConfigError(f"this tool needs {what}")
    return value


def _notes(sources: ToolSources) -> Tool:
    return make_notes_search(_needs(sources.notes_dir, "a notes folder"),
                             _needs(sources.cache_dir, "a cache folder for its index"),
                             sources.embed, sources.embedder_id, index_time=sources.notes_index_time)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("calculator", "", lambda s: True, lambda s: make_calculator()),
    ToolSpec("date", "", lambda s: True, lambda s: make_date(s.today)),
    ToolSpec("memory_search", "the memory store", lambda s: s.recall is not None,
             lambda s: make_memory_search(_needs(s.recall, "the memory store"))),
    ToolSpec("notes_search", "a notes folder (--notes DIR)", lambda s: s.notes_dir is not None, _notes),
    ToolSpec("sql_schema", "a database (--db FILE)", lambda s: s.db_file is not None,
             lambda s: make_sql_schema(_needs(s.db_file, "a database"), s.sql_time_limit)),
    ToolSpec("sql_query", "a database (--db FILE)", lambda s: s.db_file is not None,
             lambda s: make_sql_query(_needs(s.db_file, "a database"), s.sql_time_limit)),
)
TOOL_NAMES: tuple[str, ...] = tuple(spec.name for spec in TOOLS)


def build_tools(sources: ToolSources, enabled: Sequence[str] | None = None) -> list[Tool]:
    """The tools named in `enabled` (every available one when None), in registry order.
    ConfigError for an unknown name or a tool whose source is missing."""
    specs = {spec.name: spec for spec in TOOLS}
    if enabled is None:
        return [spec.build(sources) for spec in TOOLS if spec.available(sources)]
    unknown = [name for name in enabled if name not in specs]
    if unknown:
        raise ConfigError(f"unknown tool {unknown[0]!r} (choose from {', '.join(TOOL_NAMES)})")
    for name in enabled:
        if not specs[name].available(sources):
            raise ConfigError(f"the {name} tool needs {specs[name].needs}")
    return [spec.build(sources) for spec in TOOLS if spec.name in enabled]
