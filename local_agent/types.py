"""Plain data shared by every layer: messages, generation settings, memory records."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

Role = Literal["system", "user", "assistant"]
MemoryKind = Literal["fact", "turn"]
# The model runtimes, named once: config, the CLI and the probe check names against this
# list, and backends/registry.py maps each to the code that loads it.
BACKEND_NAMES: tuple[str, ...] = ("llama-cpp", "transformers", "transformers-4bit")


@dataclass(frozen=True)
class Message:
    role: Role
    content: str

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class GenerationSettings:
    max_tokens: int = 256
    temperature: float = 0.0
    top_p: float = 0.95
    repeat_penalty: float = 1.0  # 1.0: off; chat answers use Settings.repeat_penalty
    seed: int = 0
    stop: tuple[str, ...] = ()

    @property
    def greedy(self) -> bool:
        return self.temperature <= 0.0


@dataclass(frozen=True)
class Completion:
    """A finished generation with its token counts and timings (seconds)."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str = "stop"
    first_token_s: float = 0.0
    total_s: float = 0.0


@dataclass
class MemoryRecord:
    """One stored memory. `key` is an optional (subject, attribute) pair such as
    ("user", "home city") that lets a later fact about the same thing supersede this one."""

    id: str
    kind: MemoryKind
    text: str
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    provenance: dict[str, Any] = field(default_factory=dict)
    decision: dict[str, Any] = field(default_factory=dict)
    key: tuple[str, str] | None = None
    superseded_by: str | None = None
    supersedes: str | None = None

    @property
    def active(self) -> bool:
        return self.superseded_by is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "text": self.text,
            "created": self.created,
            "updated": self.updated,
            "provenance": self.provenance,
            "decision": self.decision,
            "key": list(self.key) if self.key else None,
            "superseded_by": self.superseded_by,
            "supersedes": self.supersedes,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MemoryRecord":
        key = data.get("key")
        return cls(
            id=data["id"],
            kind=data["kind"],
            text=data["text"],
            created=float(data.get("created", 0.0)),
            updated=float(data.get("updated", data.get("created", 0.0))),
            provenance=dict(data.get("provenance") or {}),
            decision=dict(data.get("decision") or {}),
            key=(str(key[0]), str(key[1])) if key else None,
            superseded_by=data.get("superseded_by"),
            supersedes=data.get("supersedes"),
        )


@dataclass
class RecallHit:
    """A recalled record. Scores follow one convention everywhere: higher means closer."""

    record: MemoryRecord
    score: float
    dense: float = 0.0
    lexical: float = 0.0


@dataclass
class FactCandidate:
    """A fact the distiller proposes to save, before the store decides add/refresh/supersede."""

    text: str
    route: Literal["model", "rule", "user"]
    key: tuple[str, str] | None = None
    rule: str | None = None  # the rule that made it (None for the model route)


@dataclass
class DistillResult:
    candidates: list[FactCandidate] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (text, reason)
    raw_json: str | None = None
    valid_json: bool | None = None  # None: the model was not asked
    model_called: bool = False
    seconds: float = 0.0
