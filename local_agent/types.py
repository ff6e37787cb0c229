"""Plain data shared by every layer: messages, generation settings, memory records."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal, cast, get_args

Role = Literal["system", "user", "assistant"]
MemoryKind = Literal["fact", "turn", "digest"]
MEMORY_KINDS: tuple[str, ...] = get_args(MemoryKind)
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


@dataclass(frozen=True)
class Provenance:
    """Where a memory came from: the session and turn, who said it (`role`, or a `speaker`
    named in an imported conversation), their words, and the day. A digest's conversation runs
    from `date` to `until`. A fact said again counts how often in `seen` (None: said once) and
    keeps the latest mention as `last_seen`. `full_text` is the whole text of a memory the
    doctor cut to the length limit; `import_key` the dedupe key of an imported message. `extra`
    keeps every other field as it was written: `via` (a command), an evaluation's own ids.

    `to_dict()` is the record's "provenance" object as stored. A file read and written again
    stays the same: keys keep their order (`key_order`), and a field whose value has another
    type than the one declared here stays in `extra`, untouched.
    """

    session: str | None = None
    turn_index: int | None = None
    role: str | None = None
    speaker: str | None = None
    source_text: str | None = None
    date: str | None = None
    until: str | None = None
    seen: int | None = None
    last_seen: Provenance | None = None
    full_text: str | None = None
    import_key: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    key_order: tuple[str, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        for name, kind in _PROVENANCE_FIELDS.items():
            value = getattr(self, name)
            if value is not None and not _is_a(value, Provenance if kind is dict else kind):
                raise TypeError(f"provenance {name} must be {kind.__name__} or None, got {value!r}")
            if value is not None and name in self.extra:
                raise ValueError(f"provenance {name} is given twice (as a field and in extra)")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Provenance:
        typed = {name: _field_value(name, value) for name, value in data.items()
                 if name in _PROVENANCE_FIELDS and _is_a(value, _PROVENANCE_FIELDS[name])}
        extra = {name: value for name, value in data.items() if name not in typed}
        return cls(**typed, extra=extra, key_order=tuple(data))

    @classmethod
    def from_saved(cls, data: Mapping[str, Any]) -> Provenance:
        """`from_dict` for the store's own checksummed files: the same object, built without
        the frozen dataclass's per-field checks (a large store has a hundred thousand). Records
        without provenance share one empty instance (it is immutable)."""
        if not data:
            return _NO_PROVENANCE
        values: dict[str, Any] = dict.fromkeys(_PROVENANCE_FIELDS)
        extra = {}
        for name, value in data.items():
            kind = _PROVENANCE_FIELDS.get(name)
            if type(value) is kind:  # JSON gives exact types (no bool for int)
                values[name] = cls.from_saved(cast(Mapping[str, Any], value)) if kind is dict else value
            else:
                extra[name] = value
        values["extra"], values["key_order"] = extra, tuple(data)
        made = object.__new__(cls)
        object.__setattr__(made, "__dict__", values)
        return made

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name in _PROVENANCE_FIELDS:
            value = getattr(self, name)
            if value is not None:
                data[name] = value.to_dict() if isinstance(value, Provenance) else value
        data.update(self.extra)
        ordered = {name: data[name] for name in self.key_order if name in data}
        ordered.update(data)  # keys added since the record was read come last, as a dict adds them
        return ordered

    def with_extra(self, **items: Any) -> Provenance:
        return replace(self, extra={**self.extra, **items})

    def said_again(self, mention: Provenance | None) -> Provenance:
        """This provenance once the fact is said again: `seen` counts it, and a mention that
        names anything becomes `last_seen` (a `seen` of another type, which an older file may
        hold in `extra`, is replaced)."""
        extra = {name: value for name, value in self.extra.items() if name != "seen"}
        last = mention if mention is not None and mention.to_dict() else self.last_seen
        if last is not None and "last_seen" in extra:
            del extra["last_seen"]
        return replace(self, seen=(self.seen or 1) + 1, last_seen=last, extra=extra,
                       key_order=tuple(self.to_dict()))  # the keys it had keep their places


def _is_a(value: object, kind: type) -> bool:
    return isinstance(value, kind) and not (kind is int and isinstance(value, bool))


def _field_value(name: str, value: Any) -> Any:
    """A typed field from its JSON value (`last_seen` is a provenance of its own)."""
    return Provenance.from_dict(value) if _PROVENANCE_FIELDS[name] is dict else value


# Each typed field with the JSON type it is written as (a Provenance is written as an object).
_PROVENANCE_FIELDS: dict[str, type] = {
    item.name: int if item.name in ("turn_index", "seen") else dict if item.name == "last_seen" else str
    for item in fields(Provenance) if item.name not in ("extra", "key_order")
}
_NO_PROVENANCE = Provenance()


@dataclass
class MemoryRecord:
    """One stored memory. `key` is an optional (subject, attribute) pair such as
    ("user", "home city") that lets a later fact about the same thing supersede this one."""

    id: str
    kind: MemoryKind
    text: str
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    provenance: Provenance = field(default_factory=Provenance)
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
            "provenance": self.provenance.to_dict(),
            "decision": self.decision,
            "key": list(self.key) if self.key else None,
            "superseded_by": self.superseded_by,
            "supersedes": self.supersedes,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryRecord:
        key = data.get("key")
        return cls(
            id=data["id"],
            kind=data["kind"],
            text=data["text"],
            created=float(data.get("created", 0.0)),
            updated=float(data.get("updated", data.get("created", 0.0))),
            provenance=Provenance.from_dict(data.get("provenance") or {}),
            decision=dict(data.get("decision") or {}),
            key=(str(key[0]), str(key[1])) if key else None,
            superseded_by=data.get("superseded_by"),
            supersedes=data.get("supersedes"),
        )

    @classmethod
    def from_saved(cls, data: dict[str, Any]) -> MemoryRecord:
        """`from_dict` for the store's own checksummed files, without the dataclass __init__:
        `data` (a freshly parsed to_dict() form, which it takes over) becomes the record's
        attributes. Anything else in it goes through from_dict."""
        if data.keys() != _RECORD_FIELDS:
            return cls.from_dict(data)
        data["provenance"] = Provenance.from_saved(data["provenance"] or {})
        key = data["key"]
        data["key"] = (str(key[0]), str(key[1])) if key else None
        for name in ("created", "updated"):
            if type(data[name]) is not float:
                data[name] = float(data[name])
        if type(data["decision"]) is not dict:
            data["decision"] = dict(data["decision"] or {})
        made = object.__new__(cls)
        made.__dict__ = data
        return made


_RECORD_FIELDS = {item.name for item in fields(MemoryRecord)}


@dataclass(frozen=True)
class MemoryDraft:
    """A memory to store, before the store gives it an id and a vector (MemoryStore.add_many).
    `record_id` asks for a particular id; None lets the store make one from the content."""

    text: str
    kind: MemoryKind
    provenance: Provenance = field(default_factory=Provenance)
    decision: Mapping[str, Any] = field(default_factory=dict)
    key: tuple[str, str] | None = None
    record_id: str | None = None


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
    gate: str = ""  # the gate's word on the message: "durable statement", "a question", ...
