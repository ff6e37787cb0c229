"""`local-agent batch INPUT`: JSONL (or plain text) in, JSONL out."""

from __future__ import annotations

import functools
import io
import json
import multiprocessing
import multiprocessing.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import click

from ..app import Runtime, build_runtime
from ..config import Settings
from ..batch import (BatchItem, BatchRunner, done_lines, looks_like_jsonl, open_output, parse_lines, same_file,
                     session_name_for)
from ..errors import InputError
from ..memory.sessions import SessionStore
from ..types import GenerationSettings
from . import cli
from .chat import turn_json
from .notices import install_notice_printer
from .options import common_options, echo_err, settings_from


def _read_input(source: str) -> tuple[list[bytes], Path | None]:
    if source == "-":
        return sys.stdin.buffer.read().splitlines(keepends=True), None
    path = Path(source)
    return path.read_bytes().splitlines(keepends=True), path


def _refuse_same_file(source: str, output: str | None) -> None:
    """Writing answers into the file being read would destroy it (or, with --resume, append
    to it): refuse before anything is read or written."""
    if output is None:
        return
    if source == "-":
        try:
            reached: Path | int = sys.stdin.fileno()
        except (AttributeError, OSError, ValueError):  # stdin is no file (tests, some wrappers)
            return
    else:
        reached = Path(source)
    if same_file(Path(output), reached):
        shown = "stdin" if source == "-" else source
        raise InputError(f"--output {output} is the same file as the input {shown}: choose another output file")


def _responder(runtime: Runtime, base: GenerationSettings):
    sessions = SessionStore(runtime.agent.sessions.folder.parent)

    def respond(item: BatchItem) -> tuple[Any, dict[str, Any]]:
        agent = runtime.agent
        if agent.session.name != item.session:
            agent.switch_session(sessions.load_or_create(item.session))
        settings = GenerationSettings(**{**base.__dict__, **item.overrides})
        result = agent.respond(item.input, generation=settings)
        if result.interrupted:  # Ctrl-C: stop the batch; this line is redone by --resume
            raise KeyboardInterrupt
        agent.wait()  # memories saved by this line are part of its record
        turn = turn_json(result, runtime)
        turn["error"] = None
        return result, turn

    return respond


# -- parallel sessions: one runtime per worker process, records written in input order ------
_WORKER: dict[str, Any] = {}


def _session_groups(items: list[BatchItem]) -> list[list[BatchItem]]:
    groups: dict[str, list[BatchItem]] = {}
    for item in items:
        groups.setdefault(item.session, []).append(item)
    return list(groups.values())


def _worker_start(settings: Settings, memory: bool) -> None:
    install_notice_printer()  # a spawned worker prints the store's notices as the CLI does
    runtime = build_runtime(settings, memory=memory)
    _WORKER["runtime"] = runtime
    _WORKER["generation"] = settings.generation()
    # Free the models before the worker's interpreter shuts down (llama.cpp cannot after).
    multiprocessing.util.Finalize(runtime, runtime.close, exitpriority=10)


def _worker_run(group: list[BatchItem], fail_fast: bool) -> list[tuple[int, str, bool]]:
    """One session's lines, in order; returns (line, JSON record, failed) for each written."""
    sink = io.StringIO()
    BatchRunner(_responder(_WORKER["runtime"], _WORKER["generation"]), sink, fail_fast=fail_fast).run(group)
    _WORKER["runtime"].agent.wait()
    records = [json.loads(text) for text in sink.getvalue().splitlines()]
    return [(r["line"], json.dumps(r, ensure_ascii=False), r["error"] is not None) for r in records]


def _run_parallel(items: list[BatchItem], workers: int, settings: Settings, memory: bool, sink: IO[str],
                  fail_fast: bool, progress: Callable[[], None]) -> tuple[int, int]:
    """Sessions run in `workers` processes; a record is written once every earlier line's is.
    Returns (failed, written)."""
    order = [item.line for item in items]
    ready: dict[int, tuple[str, bool]] = {}
    failed = written = 0
    context = multiprocessing.get_context("spawn")
    with context.Pool(workers, initializer=_worker_start, initargs=(settings, memory)) as pool:
        run = functools.partial(_worker_run, fail_fast=fail_fast)
        for results in pool.imap_unordered(run, _session_groups(items)):
            ready.update((line, (text, bad)) for line, text, bad in results)
            while written < len(order) and order[written] in ready:
                text, bad = ready.pop(order[written])
                sink.write(text + "\n")
                sink.flush()
                written += 1
                progress()
                failed += bad
                if bad and fail_fast:
                    return failed, written
        pool.close()  # let the workers finish cleanly instead of being terminated
        pool.join()
    return failed, written


@cli.command()
@click.argument("source", metavar="INPUT")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write JSONL here instead of stdout.")
@click.option("--resume", is_flag=True, help="Skip lines already answered in --output.")
@click.option("--fail-fast", is_flag=True, help="Stop at the first failed line.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--no-memory", is_flag=True, help="Neither recall nor remember.")
@click.option("--incognito", is_flag=True, default=None, help="Read memory, write nothing.")
@click.option("--workers", "-j", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Run independent sessions in this many processes (each loads its own model); "
                   "records keep input order. Memory ids then depend on timing.")
@common_options
def batch(source: str, output: str | None, resume: bool, fail_fast: bool, quiet: bool,
          no_memory: bool, incognito: bool | None, workers: int) -> None:
    """Run scripted conversations from INPUT (a file, or - for stdin).

    \b
    INPUT is JSON Lines: {"session": "s1", "input": "Hello", "max_tokens": 64}
    (optional: max_tokens, temperature, seed, checked like the flags; other keys are errors),
    or plain text: one message a line, one session named after the file.
    Output is one JSON record per line (stdout, or --output, created private, never the
    input): line, session, input, answer, memories saved and recalled, timings, tokens,
    error. Exit code 1 if any line failed.
    """
    from tqdm import tqdm

    settings = settings_from(click.get_current_context(), incognito=incognito)
    if resume and not output:
        raise click.UsageError("--resume needs --output")
    _refuse_same_file(source, output)
    lines, path = _read_input(source)
    plain = not looks_like_jsonl(path, next((l for l in lines if l.strip()), b""))
    skip = done_lines(Path(output)) if resume and output else set()
    parsed = parse_lines(lines, plain_text=plain, plain_session=session_name_for(path) if path else "batch",
                         settings=settings)
    items = [i for i in parsed if i.line not in skip]
    sink: IO[str] = open_output(Path(output), append=resume) if output else sys.stdout
    bar = tqdm(total=len(items), unit="line", disable=quiet, file=sys.stderr, dynamic_ncols=True)
    try:
        if workers > 1 and len(_session_groups(items)) > 1:
            failed, written = _run_parallel(items, workers, settings, not no_memory, sink, fail_fast,
                                            lambda: bar.update(1))
        else:
            failed, written = _run_serial(items, settings, not no_memory, sink, fail_fast, lambda: bar.update(1))
    finally:
        bar.close()
        if output:
            sink.close()
    if failed:
        echo_err(f"{failed} of {written} lines failed")
        sys.exit(1)


def _run_serial(items: list[BatchItem], settings: Settings, memory: bool, sink: IO[str], fail_fast: bool,
                progress: Callable[[], None]) -> tuple[int, int]:
    runtime = build_runtime(settings, session=items[0].session if items else None, memory=memory)
    runner = BatchRunner(_responder(runtime, settings.generation()), sink, fail_fast=fail_fast)
    try:
        runner.run(items, progress=progress)
    finally:
        runtime.close()
    return runner.failed, runner.written
