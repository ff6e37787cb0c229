"""`local-agent memory ...`: see, search, correct and delete every memory."""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import click

from ..app import open_store, opened_memory
from ..errors import InputError
from ..memory.service import MemoryService, Traced
from ..memory.store.datadir import namespace_dirs
from ..types import MemoryRecord
from .display import printable
from .group import cli, print_json
from .options import common_options, echo_err, is_terminal, settings_from

json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


@cli.group()
@common_options
def memory() -> None:
    """See, search, add, correct, forget, export and import memories."""


@contextmanager
def _memory() -> Iterator[MemoryService]:
    with opened_memory(settings_from(click.get_current_context())) as memory:
        yield memory


def _day(timestamp: float) -> str:
    return dt.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d")


def _row(record: MemoryRecord) -> str:
    return printable(f"{record.id}  {_day(record.updated)}  {record.text}")


@memory.command("list")
@click.option("--kind", type=click.Choice(["fact", "turn", "digest", "all"]), default="fact", show_default=True)
@click.option("--limit", type=int, default=0, help="Show at most this many, newest first (0: all).")
@click.option("--all-versions", is_flag=True, help="Include superseded records.")
@json_option
@common_options
def list_command(kind: str, limit: int, all_versions: bool, as_json: bool) -> None:
    """Active memories, newest first: id, date, text."""
    with _memory() as memory:
        records = memory.newest(None if kind == "all" else kind, limit=limit, include_inactive=all_versions)
        turns = len(memory.records("turn")) if kind == "fact" else 0
    if as_json:
        print_json([r.to_dict() for r in records])
        return
    for record in records:
        click.echo(_row(record))
    if not records:
        click.echo("no memories", err=True)
    if turns:  # they hold what was said, word for word: say that they exist
        echo_err(f"{turns} conversation turn{'s are' if turns > 1 else ' is'} also stored; "
                 "see `local-agent memory list --kind turn`")


@memory.command()
@click.argument("query")
@click.option("--limit", "-k", type=int, default=10, show_default=True)
@json_option
@common_options
def search(query: str, limit: int, as_json: bool) -> None:
    """Memories closest to QUERY (the same recall that chat uses), with scores."""
    with _memory() as memory:
        hits = memory.search(query, limit)
    if as_json:
        print_json([{**h.record.to_dict(), "score": h.score} for h in hits])
        return
    for hit in hits:
        click.echo(f"{hit.score:6.3f}  {hit.record.kind:<4}  {_row(hit.record)}")


@memory.command()
@click.argument("ident")
@json_option
@common_options
def show(ident: str, as_json: bool) -> None:
    """One memory with its provenance, the decision that saved it, and what it replaced."""
    with _memory() as memory:
        shown = memory.show(ident)
    record, previous = shown.record, shown.previous
    if as_json:
        print_json({**record.to_dict(), "supersedes_record": previous.to_dict() if previous else None})
        return
    for label, value in _shown_fields(record, previous):
        click.echo(f"{label:<11} {printable(value)}")


def _shown_fields(record: MemoryRecord, previous: MemoryRecord | None) -> list[tuple[str, str]]:
    """What `memory show` prints, as (label, value) lines."""
    fields = [("id", record.id), ("kind", record.kind), ("text", record.text),
              ("created", dt.datetime.fromtimestamp(record.created).isoformat(timespec="seconds")),
              ("updated", dt.datetime.fromtimestamp(record.updated).isoformat(timespec="seconds"))]
    if record.key:
        fields.append(("key", f"{record.key[0]} / {record.key[1]}"))
    fields += [("source", f"{name}: {value}") for name, value in record.provenance.to_dict().items()]
    fields += [("decision", f"{name}: {value}") for name, value in record.decision.items()]
    if record.superseded_by:
        fields.append(("superseded", f"by {record.superseded_by}"))
    if previous:
        fields.append(("replaces", f"[{previous.id}] {previous.text}"))
    return fields


@memory.command()
@click.argument("text")
@json_option
@common_options
def add(text: str, as_json: bool) -> None:
    """Remember TEXT as a fact about you; prints the new id."""
    with _memory() as memory:
        record = memory.remember(text, via="memory add").record
    print_json(record.to_dict()) if as_json else click.echo(record.id)


@memory.command()
@click.argument("ident")
@click.argument("text")
@json_option
@common_options
def edit(ident: str, text: str, as_json: bool) -> None:
    """Correct a memory: the new TEXT supersedes it (the old one is kept, out of recall)."""
    with _memory() as memory:
        record = memory.correct(ident, text, via="memory edit").record
    print_json(record.to_dict()) if as_json else click.echo(f"{record.id} replaces {record.supersedes}")


@memory.command()
@click.argument("ident", required=False)
@click.option("--all", "everything", is_flag=True, help="Forget everything: facts, turns, summaries, sessions, "
                                                             "and the server's namespaces.")
@click.option("--with-source/--without-source", default=None,
              help="Also forget the message the memory was made from: its turn memory, and the message "
                   "with its answer in the session transcript. On a terminal you are asked.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@json_option
@common_options
def forget(ident: str | None, everything: bool, with_source: bool | None, yes: bool, as_json: bool) -> None:
    """Forget one memory (ID or a unique prefix), or everything with --all."""
    if everything == bool(ident):
        raise click.UsageError("give either an ID or --all")
    if not ident:  # hence --all
        _forget_all(yes, as_json)
        return
    with _memory() as memory:
        traced = memory.trace(ident)
        origin, held = traced.origin, _still_held(traced)
        if with_source is None:
            with_source = bool(held) and not yes and not as_json and is_terminal() and click.confirm(
                f"It was made from your message {origin.sources[0].text!r} ({held}). Forget that too?", default=True)
        forgotten = memory.forget(origin.record.id, with_source=with_source)
    if as_json:
        print_json({"forgotten": forgotten.record.id, "turns_forgotten": [turn.id for turn in forgotten.turns],
                    "sessions_edited": list(forgotten.sessions_edited)})
        return
    click.echo(f"forgot {forgotten.record.id}  {forgotten.record.text}")
    for turn in forgotten.turns:
        click.echo(f"forgot {turn.id}  {turn.text}")
    for name in forgotten.sessions_edited:
        click.echo(f"removed the message from session {name}")
    if not with_source and held:
        echo_err(f"note: the message it was made from is still stored ({held}); "
                 + (f"`local-agent memory forget {origin.turns[0].id} --with-source` forgets it" if origin.turns
                    else "it stays in the session transcript"))


def _still_held(traced: Traced) -> str:
    """Where the source of a memory is still stored, in words ('' when nowhere)."""
    origin, messages = traced.origin, traced.messages
    parts = []
    if origin.turns:
        parts.append(f"{len(origin.turns)} conversation turn memor{'ies' if len(origin.turns) > 1 else 'y'}")
    sessions = sorted({name for name, _ in messages})
    if sessions:
        parts.append(f"{len(messages)} message{'s' if len(messages) > 1 else ''} in session {', '.join(sessions)}")
    return " and ".join(parts)


def _forget_all(yes: bool, as_json: bool) -> None:
    settings = settings_from(click.get_current_context())
    if not yes:
        if not sys.stdin.isatty():
            raise InputError("forget --all needs --yes when not run on a terminal")
        count = len(namespace_dirs(settings.data_dir))
        also = f" and its {count} server namespace{'s' if count > 1 else ''}" if count else ""
        click.confirm(f"Forget ALL memories, sessions and summaries in {settings.data_dir}{also}?", abort=True)
    with opened_memory(settings) as memory:
        memory.forget_all()
    print_json({"forgotten": "all"}) if as_json else click.echo("all memory forgotten")


@memory.command("export")
@click.argument("path", type=click.Path(dir_okay=False))
@json_option
@common_options
def export_command(path: str, as_json: bool) -> None:
    """Write every memory (with provenance) to a JSON file at PATH."""
    with _memory() as memory:
        count = memory.export(Path(path)).records
    print_json({"exported": count, "path": path}) if as_json else click.echo(f"exported {count} memories to {path}")


@memory.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@json_option
@common_options
def import_command(path: str, as_json: bool) -> None:
    """Add the memories from a file written by `memory export`."""
    with _memory() as memory:
        count = memory.import_file(Path(path)).added
    print_json({"imported": count}) if as_json else click.echo(f"imported {count} memories")


@memory.command()
@click.option("--repair", is_flag=True, help="Recover what can be recovered; damaged files are kept aside.")
@json_option
@common_options
def doctor(repair: bool, as_json: bool) -> None:
    """Check every memory file; name what is damaged (and repair it with --repair)."""
    from ..memory.store import doctor as check_store

    settings = settings_from(click.get_current_context())
    problems = check_store(settings.data_dir, repair=repair)
    if as_json:
        print_json({"problems": problems, "repaired": repair})
    else:
        for line in problems:
            click.echo(printable(line))
        click.echo("memory store is healthy" if not problems else ("repaired" if repair else
                   "run `local-agent memory doctor --repair` to recover"))
    if problems and not repair:
        sys.exit(1)


@memory.command("import-chats")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Read and count, store nothing.")
@click.option("--digests/--no-digests", default=True, show_default=True,
              help="Summarize each session of 3+ exchanges with the model (about a second a session).")
@json_option
@common_options
def import_chats_command(path: str, dry_run: bool, digests: bool, as_json: bool) -> None:
    """Import past conversations (JSON Lines or a ChatGPT conversations.json): both sides with
    their dates, the facts you stated, a digest per session. Importing again adds nothing."""
    from ..conversations.chat_history import import_history
    from ..conversations.chat_import import read_chats
    from .import_chats import progress_bar, summarizer_for

    ctx = click.get_current_context()
    chats = read_chats(Path(path))
    for problem in chats.problems:
        echo_err(printable(f"line {problem.line}: {problem.message} (skipped)"))
    with (closing(open_store(settings_from(ctx))) as store, summarizer_for(ctx, digests and not dry_run) as summarizer,
          progress_bar(len(chats.messages), quiet=as_json) as advance):
        counts = import_history(store, chats.messages, summarizer=summarizer, dry_run=dry_run, progress=advance)
    report = {"format": chats.format, "messages": counts.messages, "skipped_existing": counts.skipped_existing,
              "turns": counts.turns, "facts": counts.facts, "digests": counts.digests,
              "sessions": len(counts.sessions), "bad_lines": len(chats.problems), "dry_run": dry_run}
    if as_json:
        print_json(report)
    else:
        verb = "would import" if dry_run else "imported"
        click.echo(f"{verb} {counts.messages - counts.skipped_existing} messages from {len(counts.sessions)} sessions "
                   f"({counts.turns} turn memories, {counts.facts} facts, {counts.digests} digests); "
                   f"{counts.skipped_existing} already imported, {len(chats.problems)} bad lines")
    if chats.problems:
        sys.exit(1)
