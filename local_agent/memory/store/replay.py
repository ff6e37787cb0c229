"""Applying journal operations to the in-memory state. On load they are checked first (an
operation that cannot follow what is stored is damage, never guessed at), and vectors written
by another embedding model are made again."""

from __future__ import annotations

import logging
from collections.abc import Container
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..index.embedder import TextEmbedder, embed_with_progress
from ..index.render import dense_text
from ..index.state import MemoryState
from .journal import JournalOp
from .layout import FileDamage, corrupt

log = logging.getLogger(__name__)


def apply_ops(state: MemoryState, ops: list[JournalOp]) -> None:
    """Apply operations in order (each add or supersede carries its vector). Runs of adds are
    indexed as one batch: one lexical rebuild, not one per record."""
    run: list[JournalOp] = []
    for op in ops:
        if op.op == "add":
            run.append(op)
            continue
        _add_run(state, run)
        run = []
        _apply_one(state, op)
    _add_run(state, run)


def _add_run(state: MemoryState, ops: list[JournalOp]) -> None:
    if not ops:
        return
    state.add([op.record for op in ops], np.stack([np.asarray(op.vector, dtype=np.float32) for op in ops]))
    _count(state, ops)


def _apply_one(state: MemoryState, op: JournalOp) -> None:
    if op.op == "update":
        state.update(op.record)
    else:  # supersede
        state.add([op.record], np.asarray(op.vector, dtype=np.float32).reshape(1, -1))
        if op.old_id is not None and op.old_id in state.row_of:
            old = state.records[state.row_of[op.old_id]]
            state.update(replace(old, superseded_by=op.record.id))
    _count(state, [op])


def _count(state: MemoryState, ops: list[JournalOp]) -> None:
    for op in ops:
        if op.seq is not None:
            state.next_seq = max(state.next_seq, op.seq + 1)
    state.journal_ops += len(ops)


def replay(state: MemoryState, ops: list[JournalOp], embedder: TextEmbedder, embedding_id: str, path: Path) -> bool:
    """Apply operations read from the journal at `path`; returns whether some vectors had to be
    re-made (written by another embedding model). StoreCorruptError for an inconsistent op."""
    remade = _remake_vectors(ops, embedder, embedding_id)
    added: set[str] = set()  # by these operations
    for op in ops:
        problem = _inconsistency(state.row_of, added, op)
        if problem:
            raise corrupt(FileDamage(path, f"line {op.line}: {problem}"))
        added.add(op.record.id)
    apply_ops(state, ops)
    return remade


def _remake_vectors(ops: list[JournalOp], embedder: TextEmbedder, embedding_id: str) -> bool:
    foreign = [op for op in ops if op.vector is not None and
               (op.embedding_id != embedding_id or len(op.vector) != embedder.dimension)]
    if foreign:
        log.warning("re-embedding %d journal entries made by another embedding model", len(foreign))
        vectors = embed_with_progress(embedder, [dense_text(op.record) for op in foreign], "re-embedding")
        for op, vector in zip(foreign, vectors):
            op.vector, op.embedding_id = vector, embedding_id
    return bool(foreign)


def _inconsistency(stored: Container[str], added: set[str], op: JournalOp) -> str:
    """What makes `op` impossible after records `stored` and `added` exist ('' if nothing)."""

    def exists(ident: str | None) -> bool:
        return ident in added or ident in stored

    if op.op in ("add", "supersede") and exists(op.record.id):
        return f"adds record {op.record.id} a second time"
    if op.op == "update" and not exists(op.record.id):
        return f"updates record {op.record.id}, which does not exist"
    if op.op == "supersede" and not exists(op.old_id):
        return f"replaces record {op.old_id}, which does not exist"
    return ""
