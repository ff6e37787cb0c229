"""`local-agent info` and `sessions`: what is here and what would run."""

from __future__ import annotations

import datetime as dt
import importlib.metadata
import platform
from pathlib import Path
from typing import Any

import click

from ..errors import LocalAgentError
from ..memory.sessions import SessionStore
from ..models import list_models, resolve_model
from ..models.advice import model_advice
from .group import cli, print_json
from .models_cmd import model_row
from .options import common_options, echo_err, settings_from

LIBRARIES = ["llama-cpp-python", "torch", "transformers", "bitsandbytes", "sentence-transformers",
             "faiss-cpu", "bm25s", "numpy"]


def _versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@common_options
def info(as_json: bool) -> None:
    """Hardware, the backend that would run and why, model files, library versions."""
    from ..backends.probe import choose_backend, context_size, probe_hardware

    settings = settings_from(click.get_current_context())
    hardware = probe_hardware()
    report: dict[str, Any] = {
        "python": platform.python_version(),
        "hardware": hardware.to_dict(),
        "settings": {"model": settings.model, "backend": settings.backend, "device": settings.device,
                     "ctx_size": settings.ctx_size, "memory_tokens": settings.memory_tokens,
                     "data_dir": str(settings.data_dir),
                     "models_dir": str(settings.models_dir)},
        "libraries": _versions(),
    }
    try:
        spec = resolve_model(settings.model, settings.models_dir)
        choice = choose_backend(hardware, spec, settings.backend, settings.device)
        report["choice"] = {"backend": choice.backend, "device": choice.device, "reason": choice.reason,
                            "context_size": context_size(settings, spec), "model_context": spec.context_length}
    except LocalAgentError as exc:
        report["choice"] = {"error": str(exc)}
    report["models"] = [model_row(status) for status in list_models(settings.models_dir)]
    report["model_note"] = _model_note(settings.model, settings.models_dir)
    print_json(report) if as_json else _print_info(report)


def _model_note(model: str, models_dir: Path) -> dict[str, Any] | None:
    """The default model is tiny: the line that says so, with bigger models to pull (None for another)."""
    try:
        advice = model_advice(model, models_dir)
    except LocalAgentError:  # a broken registry: the models rows say so
        return None
    return advice.to_dict() if advice is not None else None


def _print_info(report: dict) -> None:
    hw = report["hardware"]
    click.echo(f"python      {report['python']}")
    click.echo("hardware    " + ", ".join(f"{k}={v}" for k, v in hw.items()))
    choice = report["choice"]
    if "error" in choice:
        click.echo(f"would run   nothing: {choice['error']}")
    else:
        click.echo(f"would run   {choice['backend']} on {choice['device']}: {choice['reason']}")
        raise_it = "; --ctx-size raises it" if choice["context_size"] < choice["model_context"] else ""
        click.echo(f"context     {choice['context_size']} tokens (the model's window: "
                   f"{choice['model_context']}{raise_it})")
    if report["model_note"] is not None:
        click.echo(f"note        {report['model_note']['text']}")
    for key, value in report["settings"].items():
        click.echo(f"{key:<11} {value}")
    for row in report["models"]:
        if row["pulled"]:
            click.echo(f"model       {row['name']}: {row['size_mb']} MB, pulled from {row['origin']}")
        elif not row["origin"].startswith("hf:"):  # the rest can be pulled: `local-agent models`
            state = "missing (run `make install`)" if not row["present"] else (
                f"{row['size_mb']} MB, checksum {'ok' if row['checksum_ok'] else 'MISMATCH'}")
            click.echo(f"model       {row['name']}: {state}")
    click.echo("libraries   " + ", ".join(f"{k} {v or '-'}" for k, v in report["libraries"].items()))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@common_options
def sessions(as_json: bool) -> None:
    """Saved chat sessions, most recent first (resume one with `chat --session NAME`)."""
    settings = settings_from(click.get_current_context())
    found, skipped = SessionStore(settings.data_dir).scan()
    for line in skipped:
        echo_err(f"warning: {line}")
    rows = [
        {"name": s.name, "updated": dt.datetime.fromtimestamp(s.updated).isoformat(timespec="seconds"),
         "turns": len(s.turns), "summary": bool(s.summary)}
        for s in found
    ]
    if as_json:
        print_json(rows)
        return
    if not rows:
        click.echo("no sessions yet")
    for row in rows:
        click.echo(f"{row['name']:<28} {row['updated']}  {row['turns']} messages")
