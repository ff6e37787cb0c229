"""`local-agent batch INPUT`: JSONL (or plain text) in, JSONL out."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, Any

import click

from ..app import Runtime, build_runtime
from ..batch import BatchItem, BatchRunner, done_lines, looks_like_jsonl, parse_lines
from ..memory.sessions import SessionStore
from ..types import GenerationSettings
from . import cli
from .chat import turn_json
from .options import common_options, echo_err, settings_from


def _read_input(source: str) -> tuple[list[bytes], Path | None]:
    if source == "-":
        return sys.stdin.buffer.read().splitlines(keepends=True), None
    path = Path(source)
    return path.read_bytes().splitlines(keepends=True), path


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


@cli.command()
@click.argument("source", metavar="INPUT")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write JSONL here instead of stdout.")
@click.option("--resume", is_flag=True, help="Skip lines already answered in --output.")
@click.option("--fail-fast", is_flag=True, help="Stop at the first failed line.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@click.option("--no-memory", is_flag=True, help="Neither recall nor remember.")
@click.option("--incognito", is_flag=True, default=None, help="Read memory, write nothing.")
@common_options
def batch(source: str, output: str | None, resume: bool, fail_fast: bool, quiet: bool,
          no_memory: bool, incognito: bool | None) -> None:
    """Run scripted conversations from INPUT (a file, or - for stdin).

    \b
    INPUT is JSON Lines: {"session": "s1", "input": "Hello", "max_tokens": 64}
    (optional: max_tokens, temperature, seed), or plain text: one message a line, one session.
    Output is one JSON record per line (stdout, or --output): line, session, input, answer,
    memories saved and recalled, timings, tokens, error. Exit code 1 if any line failed.
    """
    from tqdm import tqdm

    settings = settings_from(click.get_current_context(), incognito=incognito)
    if resume and not output:
        raise click.UsageError("--resume needs --output")
    lines, path = _read_input(source)
    plain = not looks_like_jsonl(path, next((l for l in lines if l.strip()), b""))
    skip = done_lines(Path(output)) if resume and output else set()
    items = [i for i in parse_lines(lines, plain_text=plain, plain_session=path.stem if path else "batch")
             if i.line not in skip]
    runtime = build_runtime(settings, session=items[0].session if items else None, memory=not no_memory)
    bar = tqdm(total=len(items), unit="line", disable=quiet, file=sys.stderr, dynamic_ncols=True)
    sink: IO[str] = open(output, "a" if resume else "w", encoding="utf-8") if output else sys.stdout
    runner = BatchRunner(_responder(runtime, settings.generation()), sink, fail_fast=fail_fast)
    try:
        runner.run(items, progress=lambda: bar.update(1))
    finally:
        bar.close()
        runtime.close()
        if output:
            sink.close()
    if runner.failed:
        echo_err(f"{runner.failed} of {runner.written} lines failed")
        sys.exit(1)
