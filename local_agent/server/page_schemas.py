"""Request bodies of the page's own routes (routes_page*.py), validated as schemas.py's are."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .schemas import Text, _Open

FORGET_ALL_PHRASE = "forget everything"  # typed by the person to confirm, checked here too
MemoryKindName = Literal["fact", "digest", "turn"]
ALL_KINDS: tuple[MemoryKindName, ...] = ("fact", "digest", "turn")


class SessionTitle(_Open):
    title: Text = Field(max_length=1000)  # session_title() has the real limit and says it


class MemoryText(_Open):
    text: Text = Field(min_length=1)


class MemoryQuery(_Open):
    query: Text = Field(min_length=1, max_length=2000)
    limit: int = Field(20, ge=1, le=100)
    kinds: list[MemoryKindName] = Field(default_factory=lambda: list(ALL_KINDS), min_length=1)


class ForgetAll(_Open):
    confirm: Text
