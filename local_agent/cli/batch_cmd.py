"""`local-agent batch INPUT`: JSONL (or plain text) in, JSONL out."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING

import click

from ..conversations.batch import done_lines, looks_like_jsonl, open_output, parse_lines, same_file, session_name_for
from ..conversations.batch_workers import BatchJob
from ..errors import InputError
from ..process.files import read_user_file
from .group import cli
from .notices import install_notice_printer
from .options import backend_factory, common_options, echo_err, settings_from
from .stdin_text import read_stdin

if TYPE_CHECKING:
    from ..config import Settings
    from ..conversations.ray_batch import RayBatch

MAX_INPUT_BYTES = 512 * 2**20  # lines are answered at a second or so each: more is weeks of work


def _read_input(source: str) -> tuple[list[bytes], Path | None]:
    if source == "-":
        too_long = f"the input on stdin is over {MAX_INPUT_BYTES // 2**20} MiB; split it into smaller files"
        return read_stdin(MAX_INPUT_BYTES, too_long).splitlines(keepends=True), None
    path = Path(source)
    return read_user_file(path, MAX_INPUT_BYTES, what="batch input").splitlines(keepends=True), path


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


def _check_options(resume: bool, output: str | None, ray_address: str | None, workers: int, parallel: int) -> None:
    if resume and not output:
        raise click.UsageError("--resume needs --output")
    if ray_address is not None and parallel > 1:
        raise click.UsageError("--ray answers one line at a time on each actor: drop --parallel")
    if workers > 1 and parallel > 1:
        raise click.UsageError("choose --workers (a model per process) or --parallel (one model), not both")


def _job(settings: Settings, sink: IO[str], ray_address: str | None, *, memory: bool, fail_fast: bool, workers: int,
         parallel: int, progress: Callable[[], None]) -> BatchJob | RayBatch:
    """The batch job the options choose: on a Ray cluster, or in this machine's processes."""
    from .approval import TtyApprover

    context = click.get_current_context()
    factory = backend_factory(context)
    if ray_address is not None:
        from ..conversations.ray_batch import RayBatch

        workers_given = context.get_parameter_source("workers") is not click.core.ParameterSource.DEFAULT
        return RayBatch(settings, sink, address=ray_address, memory=memory, fail_fast=fail_fast,
                        actors=workers if workers_given else 0, progress=progress, backend_factory=factory,
                        worker_setup=install_notice_printer, warn=echo_err)
    return BatchJob(settings, sink, memory=memory, fail_fast=fail_fast, workers=workers, parallel=parallel,
                    progress=progress, backend_factory=factory, worker_setup=install_notice_printer,
                    approver=TtyApprover())


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
@click.option("--parallel", "-p", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Answer this many conversations at once through one model, decoded together "
                   "(llama.cpp). With memory on, the lines of one memory namespace (a line's \"user\") "
                   "still run in order, so that recall is what a run in order gives; other namespaces, "
                   "or every session with --no-memory or --incognito, run side by side.")
@click.option("--ray", "ray_address", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
              help="Run on a Ray cluster (pip install 'local-agent[cluster]'): no address starts a local one "
                   "for the run, 'auto' joins the one this machine belongs to. Actors load the model once; a "
                   "memory namespace's lines run in order on one actor. --workers sets the number of actors "
                   "(default: one per CPU of the cluster). "
                   "Give INPUT before --ray, or write --ray=ADDRESS.")
@common_options
def batch(source: str, output: str | None, resume: bool, fail_fast: bool, quiet: bool,
          no_memory: bool, incognito: bool | None, workers: int, parallel: int, ray_address: str | None) -> None:
    """Run scripted conversations from INPUT (a file, or - for stdin).

    \b
    INPUT is JSON Lines: {"session": "s1", "input": "Hello", "max_tokens": 64}
    (optional: max_tokens, temperature, seed, checked like the flags; date; user, a memory
    namespace, users/NAME in the data dir as the server's; other keys are errors),
    or plain text: one message a line, one session named after the file.
    Output is one JSON record per line (stdout, or --output, created private, never the
    input): line, session, input, answer, memories saved and recalled, timings, tokens,
    tool_calls, asked_user and outcome (with tools), error. Exit code 1 if any line failed.
    """
    from tqdm import tqdm

    settings = settings_from(click.get_current_context(), incognito=incognito)
    _check_options(resume, output, ray_address, workers, parallel)
    _refuse_same_file(source, output)
    lines, path = _read_input(source)
    plain = not looks_like_jsonl(path, next((line for line in lines if line.strip()), b""))
    skip = done_lines(Path(output)) if resume and output else set()
    parsed = parse_lines(lines, plain_text=plain, plain_session=session_name_for(path) if path else "batch",
                         settings=settings)
    items = [i for i in parsed if i.line not in skip]
    sink: IO[str] = open_output(Path(output), append=resume) if output else sys.stdout
    bar = tqdm(total=len(items), unit="line", disable=quiet, file=sys.stderr, dynamic_ncols=True)
    job = _job(settings, sink, ray_address, memory=not no_memory, fail_fast=fail_fast, workers=workers,
               parallel=parallel, progress=lambda: bar.update(1))
    try:
        failed, written = job.run(items)
    finally:
        bar.close()
        if output:
            sink.close()
    if failed:
        echo_err(f"{failed} of {written} lines failed")
        sys.exit(1)
