"""`local-agent memory doctor`: check every file of the store, and repair what can be repaired.

A check names each file and what is wrong with it, then each record a user could not manage
(fixes.py), then records that are only in a copy of a damaged file kept earlier. A repair never
destroys evidence: a damaged file is kept beside the store as `<name>.corrupt-<timestamp>` (never
overwriting another), the records that can still be read are recovered (from the damaged
snapshot or journal too, record by record, and from the kept copies), unmanageable records are
fixed, and the vectors are rebuilt from the text into a new, consistent generation.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import filelock

from ...errors import StoreBusyError, StoreError
from ...process.files import PRIVATE_FILE, refuse_symlink
from ...types import MemoryRecord
from ..index.embedder import Embedder, TextEmbedder, embed_with_progress
from ..index.render import dense_text, embedding_id
from ..index.state import MemoryState
from .columns import Indexed, columns_problem, index_whole, open_columns
from .compaction import write_generation
from .datadir import claim_data_dir
from .fixes import fix_records
from .journal import JOURNAL_FORMAT, JournalOp, UnreadableLine, decode_op, parse_header
from .layout import CORRUPT_MARK, FileDamage, NewerFormat, StorePaths
from .privacy import data_dir_problems, repair_modes
from .salvage import apply_ops, kept_copies, salvage
from .snapshot import Snapshot, ids_checksum, load_vectors, open_snapshot, read_snapshot


@dataclass
class _Findings:
    problems: list[str] = field(default_factory=list)
    snapshot: Snapshot | None = None
    snapshot_damaged: bool = False
    newer_format: bool = False
    journal_generation: int | None = None
    journal_ops: list[JournalOp] = field(default_factory=list)
    journal_damaged: bool = False
    vectors_bad: bool = False
    columns_bad: Indexed | None = None  # the columns the snapshot should have, when its own do not hold
    records_bad: bool = False  # records a user could not manage
    in_copies_only: bool = False  # records only a kept copy of a damaged file still holds

    @property
    def damaged(self) -> bool:
        return self.snapshot_damaged or self.journal_damaged

    @property
    def repairable(self) -> bool:
        return self.damaged or self.vectors_bad or self.records_bad or self.in_copies_only or self.columns_only

    @property
    def columns_only(self) -> bool:
        """Nothing is wrong but the columns file (derived: written again from the snapshot)."""
        return self.columns_bad is not None and not (self.damaged or self.vectors_bad or self.records_bad
                                                     or self.in_copies_only)


def doctor(data_dir: Path, repair: bool = False, *, embedder: TextEmbedder | None = None,
           lock_timeout: float = 5.0) -> list[str]:
    """What is wrong with the data dir and the store in it (empty: healthy), each line naming a
    file. With `repair`, also what was done about it. StoreError when the data dir or its memory
    folder is not a folder: nothing there can be checked or repaired."""
    paths = StorePaths.for_data_dir(Path(data_dir))
    for folder in (paths.root.parent, paths.root):
        if folder.exists() and not folder.is_dir():
            raise StoreError(f"{folder} is not a folder: local-agent cannot keep memories there; "
                             f"move it away or choose another data dir (LOCAL_AGENT_DATA_DIR)")
    problems = data_dir_problems(Path(data_dir))
    if repair and problems:
        problems += repair_modes(Path(data_dir))
    return problems + _check_store(Path(data_dir), repair, embedder, lock_timeout)


def _check_store(data_dir: Path, repair: bool, embedder: TextEmbedder | None, lock_timeout: float) -> list[str]:
    paths = StorePaths.for_data_dir(Path(data_dir))
    if not paths.root.is_dir():
        return []
    findings = _inspect(paths)
    if not repair or not findings.repairable:
        return findings.problems
    if findings.newer_format:
        return [*findings.problems, f"{paths.snapshot}: not repaired; upgrade local-agent to read it"]
    claim_data_dir(data_dir)  # never repair in a folder that is not local-agent's
    for path in paths.root.iterdir():
        refuse_symlink(path)  # nor through a link to somewhere else
    lock = filelock.FileLock(paths.lock, timeout=lock_timeout, mode=PRIVATE_FILE, thread_local=False)
    try:
        with lock:
            findings = _inspect(paths)  # again, now that no one can write
            if findings.columns_only:
                return findings.problems + _repair_columns(paths, findings)
            return findings.problems + _repair(paths, findings, embedder or Embedder())
    except filelock.Timeout:
        raise StoreBusyError(f"memory store is busy: another local-agent process is writing to {paths.root}") from None


# -- checks ------------------------------------------------------------------------------------


def _inspect(paths: StorePaths) -> _Findings:
    findings = _Findings()
    _check_snapshot(paths, findings)
    _check_columns(paths, findings)
    _check_vectors(paths, findings)
    _check_journal(paths, findings)
    if not findings.damaged and not findings.newer_format:
        _check_records(paths, findings)
    return findings


def _check_snapshot(paths: StorePaths, findings: _Findings) -> None:
    try:
        findings.snapshot = read_snapshot(paths.snapshot, validate=True)
    except FileDamage as damage:
        findings.problems.append(str(damage))
        findings.newer_format = isinstance(damage, NewerFormat)
        findings.snapshot_damaged = not findings.newer_format


def _check_columns(paths: StorePaths, findings: _Findings) -> None:
    """A columns file that opening would use (its stamp matches the snapshot) must hold what
    the snapshot holds: a snapshot changed without a change of size, or a damaged columns file,
    is found here (opening reads no record to notice it)."""
    snapshot = findings.snapshot
    if snapshot is None or not snapshot.records or snapshot.migrated_from is not None:
        return
    head, opened = open_snapshot(paths.snapshot)
    if head is None or opened is None:
        return
    saved, _ = open_columns(paths.root, paths.snapshot, head, opened)
    if saved is None:
        return  # not used: opening indexes the snapshot again
    expected = index_whole(snapshot, head, opened)
    problem = columns_problem(saved.columns, expected)
    if problem:
        findings.problems.append(f"{saved.columns.path}: {problem} (it is written again on repair)")
        findings.columns_bad = expected


def _check_vectors(paths: StorePaths, findings: _Findings) -> None:
    snapshot = findings.snapshot
    if snapshot is None or not snapshot.records:
        return
    if snapshot.vectors is None:
        findings.problems.append(f"{paths.snapshot}: names no vector file (vectors will be rebuilt from text)")
        findings.vectors_bad = True
        return
    path = paths.root / snapshot.vectors.file
    ids = ids_checksum([record.id for record in snapshot.records])
    try:
        _, reason = load_vectors(path, snapshot.vectors, snapshot.vectors.embedding_id, ids, verify=True)
    except FileNotFoundError:
        reason = "missing"
    if reason:
        findings.problems.append(f"{path}: {reason}")
        findings.vectors_bad = True


def _check_journal(paths: StorePaths, findings: _Findings) -> None:
    try:
        raw = paths.journal.read_bytes()
    except FileNotFoundError:
        return
    lines = raw.split(b"\n")
    try:
        findings.journal_generation, version = parse_header(paths.journal, lines[0] + b"\n")
    except FileDamage as damage:
        findings.problems.append(str(damage))
        findings.journal_damaged = True
        version = JOURNAL_FORMAT
    complete = lines[1:-1]  # the piece after the last newline is a torn line: not damage
    for number, line in enumerate(complete, start=2):
        try:
            op = decode_op(line, version)
        except ValueError as exc:
            if number - 2 == len(complete) - 1 and not lines[-1] and isinstance(exc, UnreadableLine):
                break  # an unreadable last line is a torn write, not damage
            findings.problems.append(f"{paths.journal}: line {number}: {exc}")
            findings.journal_damaged = True
            continue
        op.line = number
        findings.journal_ops.append(op)
    _check_generations(paths, findings)


def _check_generations(paths: StorePaths, findings: _Findings) -> None:
    snapshot_generation = findings.snapshot.generation if findings.snapshot else 0
    journal_generation = findings.journal_generation
    if journal_generation is not None and journal_generation > snapshot_generation and not findings.snapshot_damaged:
        findings.problems.append(f"{paths.journal}: continues generation {journal_generation}, but "
                                 f"{paths.snapshot.name} is generation {snapshot_generation}")
        findings.journal_damaged = True


def _check_records(paths: StorePaths, findings: _Findings) -> None:
    """Records that cannot be managed, and records that only a kept copy holds."""
    snapshot = findings.snapshot
    records = list(snapshot.records) if snapshot else []
    if _journal_applies(findings, snapshot.generation if snapshot else 0):
        records = apply_ops(records, findings.journal_ops)
    _, fixes = fix_records(records, snapshot.next_seq if snapshot else 0)
    findings.problems += [f"{paths.root}: {fix.problem}" for fix in fixes]
    findings.records_bad = bool(fixes)
    for copy, missing in _missing_from_copies(paths, records):
        findings.problems.append(f"{copy}: holds {len(missing)} memories that are not in the store")
        findings.in_copies_only = True


def _missing_from_copies(paths: StorePaths, records: list[MemoryRecord]) -> list[tuple[Path, list[MemoryRecord]]]:
    """For each kept copy of a damaged file, the records in it that the store lacks: by id, and
    by text (a repair may have given a record a new id, or cut its text). A memory the user
    forgot is never among them: `forget` deletes every copy that holds its text."""
    ids = {record.id for record in records}
    texts = {(r.kind, t) for r in records for t in (r.text, r.provenance.full_text) if t is not None}
    found = []
    for copy in kept_copies(paths):
        ops, _ = salvage(copy.read_bytes())
        missing = [r for r in apply_ops([], ops) if r.id not in ids and (r.kind, r.text) not in texts]
        ids.update(record.id for record in missing)
        texts.update((record.kind, record.text) for record in missing)
        if missing:
            found.append((copy, missing))
    return found


# -- repair ------------------------------------------------------------------------------------


def _repair_columns(paths: StorePaths, findings: _Findings) -> list[str]:
    """Write the columns file again from the snapshot (nothing else needs repair)."""
    if findings.columns_bad is None or findings.snapshot is None:
        return []
    path = paths.columns(findings.snapshot.generation)
    findings.columns_bad.write(path)
    return [f"{path}: written again from {paths.snapshot.name}"]


def _repair(paths: StorePaths, findings: _Findings, embedder: TextEmbedder) -> list[str]:
    actions: list[str] = []
    records, generation, next_seq = _recover_snapshot(paths, findings, actions)
    ops = findings.journal_ops
    if findings.journal_damaged:
        kept = _keep_damaged(paths.journal)
        ops, notes = salvage(kept.read_bytes())
        actions.append(f"{paths.journal}: kept the damaged file as {kept.name}")
        actions += [f"{paths.journal}: {note}" for note in notes]
    if _journal_applies(findings, generation, ops):
        records = apply_ops(records, ops)
        next_seq = max([next_seq] + [op.seq + 1 for op in ops if op.seq is not None])
    for copy, missing in _missing_from_copies(paths, records):
        records += missing
        actions.append(f"{copy}: recovered {len(missing)} memories that were only in this copy")
    records, fixes = fix_records(records, max(next_seq, len(records)))
    next_seq = max(next_seq, len(records)) + len(fixes)
    actions += [f"{paths.root}: {fix.action}" for fix in fixes]
    if findings.vectors_bad and findings.snapshot and findings.snapshot.vectors:
        vectors_path = paths.root / findings.snapshot.vectors.file
        if vectors_path.is_file():
            actions.append(f"{vectors_path}: kept the mismatched file as {_keep_damaged(vectors_path).name}")
    vectors = embed_with_progress(embedder, [dense_text(r) for r in records], "rebuilding vectors")
    state = MemoryState.build(records, vectors, next_seq, embedder.dimension)
    write_generation(paths, state, generation + 1, embedding_id(embedder.model_id))
    actions.append(f"{paths.root}: rebuilt the vectors of {len(records)} memories from their text "
                   f"and wrote generation {generation + 1}")
    return actions


def _recover_snapshot(paths: StorePaths, findings: _Findings,
                      actions: list[str]) -> tuple[list[MemoryRecord], int, int]:
    """Records, generation and next sequence number from the snapshot (salvaged if damaged)."""
    if not findings.snapshot_damaged:
        snapshot = findings.snapshot
        if snapshot is None:
            return [], 0, 0
        return list(snapshot.records), snapshot.generation, snapshot.next_seq
    raw = paths.snapshot.read_bytes()
    kept = _keep_damaged(paths.snapshot)
    ops, notes = salvage(raw)
    records = apply_ops([], ops)
    generation = max(_header_int(raw, "generation"), findings.journal_generation or 0)
    next_seq = max(_header_int(raw, "next_seq"), len(records))
    actions.append(f"{paths.snapshot}: kept the damaged file as {kept.name}; recovered {len(records)} records from it")
    actions += [f"{paths.snapshot}: {note}" for note in notes]
    return records, generation, next_seq


def _journal_applies(findings: _Findings, generation: int, ops: list[JournalOp] | None = None) -> bool:
    """A journal older than the snapshot is already folded into it."""
    if findings.journal_generation is None:
        return bool(findings.journal_ops if ops is None else ops)  # header lost: its records are all we have
    return findings.journal_generation >= generation or findings.snapshot_damaged


def _header_int(raw: bytes, name: str) -> int:
    match = re.search(rb'"' + name.encode() + rb'"\s*:\s*(\d+)', raw[:4096])
    return int(match.group(1)) if match else 0


def _keep_damaged(path: Path) -> Path:
    """Rename `path` to `<name>.corrupt-<timestamp>[-n]`, never replacing an existing file."""
    stamp = time.strftime("%Y%m%dT%H%M%S")
    for attempt in range(1000):
        suffix = f"{CORRUPT_MARK}{stamp}" + (f"-{attempt}" if attempt else "")
        target = path.with_name(path.name + suffix)
        try:
            os.link(path, target)  # fails if target exists, unlike rename
        except FileExistsError:
            continue
        path.unlink()
        os.chmod(target, PRIVATE_FILE)
        return target
    raise OSError(f"cannot find a free name to keep {path}")
