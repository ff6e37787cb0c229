"""`local-agent models`: the models here (size, where they came from), `models pull NAME` (the
one command that downloads) and `models rm NAME`."""

from __future__ import annotations

from typing import Any

import click

from ..errors import ModelError
from ..models import ModelStatus, find_pulled, list_models, load_registry
from .group import cli, print_json
from .options import common_options, echo_err, is_terminal, settings_from


def model_row(status: ModelStatus) -> dict[str, Any]:
    """One model as `models --json` and `info --json` show it."""
    return {"name": status.name, "present": status.present, "path": str(status.path),
            "size_mb": round(status.size_bytes / 1e6, 1) if status.size_bytes else None,
            "checksum_ok": status.checksum_ok, "backend": status.backend, "origin": status.origin,
            "pulled": status.pulled, "license": status.license}


@cli.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--check", is_flag=True, help="Hash the pulled models' files again against their pull record.")
@common_options
@click.pass_context
def models(ctx: click.Context, as_json: bool, check: bool) -> None:
    """The models here (size, backend, where they came from) and those `models pull` can fetch.

    \b
      local-agent models pull NAME     download one (the only command that goes online)
      local-agent models rm NAME       delete a pulled model
    """
    if ctx.invoked_subcommand is not None:
        return
    settings = settings_from(ctx)
    statuses = list_models(settings.models_dir, check=check)
    if as_json:
        print_json([model_row(status) for status in statuses])
        return
    click.echo(f"models folder: {settings.models_dir}")
    for status in (s for s in statuses if s.present or not s.origin.startswith("hf:")):
        click.echo(_line(status, _state(status)))
    pullable = [s for s in statuses if not s.present and s.origin.startswith("hf:")]
    if pullable:
        click.echo("\nto pull (`local-agent models pull NAME`; sizes are about):")
    for status in pullable:
        click.echo(_line(status, f"{status.origin}, {status.license or 'license not recorded'}"))


def _state(status: ModelStatus) -> str:
    if not status.present:
        return "missing (run `make install`)"
    if status.pulled:
        checked = {None: "", True: ", sha256 ok", False: ", sha256 MISMATCH"}[status.checksum_ok]
        return f"pulled from {status.origin}{checked}"
    return f"{status.origin}, sha256 {'ok' if status.checksum_ok else 'MISMATCH'}"


def _line(status: ModelStatus, state: str) -> str:
    size = f"{status.size_bytes / 1e6:,.1f} MB" if status.size_bytes else "-"
    return f"{status.name:<34} {status.backend:<20} {size:>11}  {state}"


@models.command()
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Download without asking first.")
@common_options
def pull(name: str, yes: bool) -> None:
    """Download NAME into the models folder: a registry name (see `local-agent models`),
    hf:OWNER/REPO (a model folder, for the transformers backends) or hf:OWNER/REPO/FILE.gguf
    (one GGUF, for llama.cpp). Says what, from where and how many bytes, then asks; resumes
    an interrupted pull; checks every file's sha256. HF_ENDPOINT, HF_TOKEN and proxies apply."""
    from ..models.pull import PullPlan
    from ..models.pull import pull as pull_model

    settings = settings_from(click.get_current_context())
    if not yes and not is_terminal():
        raise ModelError("models pull asks before it downloads and there is no terminal to ask on: add --yes")

    def confirm(plan: PullPlan) -> bool:
        return yes or click.confirm("Download it?", default=False)

    try:
        outcome = pull_model(name, settings.models_dir, confirm=confirm, say=click.echo,
                             stall_timeout=settings.pull_stall_timeout)
    except KeyboardInterrupt:
        echo_err(f"pull of {name} stopped; run the same command again to resume it")
        raise
    model = outcome.model
    if not outcome.fetched:
        click.echo(f"{model.name} is already here ({model.origin}); `local-agent models rm {model.name}` removes it")
        return
    checks = sorted({f.checked_against for f in model.files})
    click.echo(f"pulled {model.name}: {len(model.files)} file(s), {model.size_bytes:,} bytes, each checked against "
               f"the {' and '.join(checks)} (its sha256 recorded); use it with --model {model.name}")


@models.command()
@click.argument("name")
@common_options
def rm(name: str) -> None:
    """Delete a pulled model (by the name `local-agent models` shows, or the NAME it was pulled as)."""
    from ..models.pulled import pull_lock, remove_pulled

    settings = settings_from(click.get_current_context())
    pulled = find_pulled(settings.models_dir, name)
    if pulled is None:
        entry = load_registry(settings.models_dir).get(name)
        if entry is not None and not entry.pullable:
            raise ModelError(f"{name} is installed by `make install`, not pulled; models rm leaves it")
        raise ModelError(f"no pulled model {name!r} (`local-agent models` lists them)")
    with pull_lock(settings.models_dir, pulled.name):
        remove_pulled(pulled)
    click.echo(f"removed {pulled.name} ({pulled.size_bytes / 1e6:,.1f} MB) from {pulled.folder.parent}")
