"""`local-agent models pull`: one explicit, verified download of a model's files from a
Hugging Face hub into the models folder.

The steps: read the NAME (targets.py); take the pull lock of that name (a second pull waits,
then finds the model there); ask the hub what the files are (the commit, sizes, checksums);
say what will be fetched, from where and how many bytes, and ask; check free disk space;
download into `.pulling/` (resuming what an interrupted pull left); hash every file here and
compare with the registry's sha256 or the hub's own checksums; then land the folder whole
with its pull record (pulled.py). Everything that touches the network runs in a child
process (hub_worker.py), since this process keeps huggingface_hub offline.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ModelError
from .checksums import file_digests
from .paths import UnsafeName, commit_id, inside, safe_name
from .pulled import PulledFile, PulledModel, land, now_text, pull_lock, read_pulled, staging_dir
from .registry import load_registry
from .targets import PullTarget, pull_target

DISK_MARGIN = 64 * 2**20  # bytes left free after the download, for the pull record and the rest


@dataclass(frozen=True)
class HubFile:
    name: str
    size: int
    lfs_sha256: str | None  # the hub's LFS metadata, for large files
    blob_id: str | None  # the git blob id, for small files kept in git itself


@dataclass(frozen=True)
class PullPlan:
    target: PullTarget
    endpoint: str
    commit: str
    files: tuple[HubFile, ...]
    staging: Path
    already_here: int  # bytes an interrupted pull of the same commit left

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def url(self) -> str:
        return f"{self.endpoint.rstrip('/')}/{self.target.repo}"


@dataclass(frozen=True)
class PullOutcome:
    model: PulledModel
    fetched: bool  # False: it was already pulled


Confirm = Callable[[PullPlan], bool]
Say = Callable[[str], None]


def pull(name: str, models_dir: Path, *, confirm: Confirm, say: Say, stall_timeout: float) -> PullOutcome:
    """Pull `name` into `models_dir`; ModelError (one line) on any failure, and then no
    folder the loader would take for a model. A download that makes no progress for
    `stall_timeout` seconds fails, its part kept to resume."""
    models_dir = Path(models_dir)
    target = pull_target(name, load_registry(models_dir), models_dir)
    models_dir.mkdir(parents=True, exist_ok=True)
    with pull_lock(models_dir, target.name, waiting=lambda: say(f"another pull of {target.name} is running; "
                                                                "waiting for it to finish")):
        folder = inside(models_dir, target.name)
        present = read_pulled(folder)
        if present is not None:
            return PullOutcome(present, fetched=False)
        if folder.exists():  # before downloading anything
            raise ModelError(f"{folder} already exists and is not a pulled model; move it away first")
        plan = plan_pull(target, models_dir)
        say(describe(plan, models_dir))
        if not confirm(plan):
            raise ModelError("nothing was downloaded")
        check_disk(plan, models_dir)
        run_worker({"action": "fetch", "repo": target.repo, "commit": plan.commit, "staging": str(plan.staging),
                    "files": [vars(f) for f in plan.files], "stall_timeout": stall_timeout})
        files = tuple(verify(plan, f) for f in plan.files)
        model = PulledModel(name=target.name, source=target.source, repo=target.repo, format=target.format,
                            endpoint=plan.endpoint, revision=target.revision, commit=plan.commit,
                            pulled_at=now_text(), license=target.license, files=files,
                            folder=folder)
        return PullOutcome(land(plan.staging, model), fetched=True)


def plan_pull(target: PullTarget, models_dir: Path) -> PullPlan:
    answer = run_worker({"action": "plan", "repo": target.repo, "revision": target.revision, "file": target.file})
    commit = commit_id(answer.get("commit"))
    files = tuple(_hub_file(f) for f in answer.get("files") or [])
    staging = staging_dir(models_dir, target.name, commit)
    return PullPlan(target, str(answer.get("endpoint")), commit, files, staging, _bytes_here(staging, files))


def describe(plan: PullPlan, models_dir: Path) -> str:
    """What will be fetched, from where, how many bytes, and where it goes."""
    count = f"{len(plan.files)} file" + ("s" if len(plan.files) != 1 else "")
    resumed = f", {mb(plan.already_here)} of it already here from an interrupted pull" if plan.already_here else ""
    license_text = f"; license {plan.target.license}" if plan.target.license else ""
    return (f"pull {plan.target.name}: {count}, {mb(plan.total_bytes)} ({plan.total_bytes:,} bytes){resumed}, "
            f"from {plan.url} at commit {plan.commit[:12]}, into {models_dir / plan.target.name}{license_text}")


def check_disk(plan: PullPlan, models_dir: Path) -> None:
    needed = plan.total_bytes - plan.already_here
    free = shutil.disk_usage(models_dir).free
    if needed + DISK_MARGIN > free:
        raise ModelError(f"pulling {plan.target.name} needs {mb(needed)} and {models_dir} has {mb(free)} free; "
                         "free some space or move the models folder (LOCAL_AGENT_MODELS_DIR)")


def verify(plan: PullPlan, hub_file: HubFile) -> PulledFile:
    """Hash a downloaded file here and compare it with the registry's sha256 or the hub's
    checksums; a mismatch deletes the file and raises ModelError."""
    path = inside(plan.staging, hub_file.name)
    digests = file_digests(path)
    entry = plan.target.entry
    if entry is not None and entry.sha256 and hub_file.name == entry.file:
        expected, got, against = entry.sha256, digests.sha256, "registry sha256"
    elif hub_file.lfs_sha256:
        expected, got, against = hub_file.lfs_sha256.lower(), digests.sha256, "hub LFS sha256"
    elif hub_file.blob_id:
        expected, got, against = hub_file.blob_id.lower(), digests.git_sha1, "hub git blob id"
    else:
        path.unlink()
        raise ModelError(f"the hub lists no checksum for {hub_file.name} of {plan.target.repo}; deleted it, "
                         "nothing was installed")
    if got != expected or digests.size != hub_file.size:
        path.unlink()
        raise ModelError(f"{hub_file.name} from {plan.url} does not match its {against} (got {got[:16]}…, "
                         f"expected {expected[:16]}…, {digests.size:,} of {hub_file.size:,} bytes); "
                         "deleted it, nothing was installed")
    return PulledFile(hub_file.name, digests.size, digests.sha256, against)


# -- the child process ----------------------------------------------------------------------
def worker_env() -> dict[str, str]:
    """This process's environment with huggingface_hub's offline mode off (HF_ENDPOINT,
    HF_TOKEN and proxies pass through as they are)."""
    return {**os.environ, "HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0"}


def run_worker(request: dict[str, Any]) -> dict[str, Any]:
    """Run hub_worker with `request`; its answer, or ModelError with its one-line error.
    Its progress bars go to our stderr."""
    command = [sys.executable, "-m", "local_agent.models.hub_worker"]
    result = subprocess.run(command, input=json.dumps(request), stdout=subprocess.PIPE, text=True,
                            env=worker_env(), check=False)
    if result.returncode == 130 or result.returncode == -2:
        raise KeyboardInterrupt
    lines = result.stdout.strip().splitlines()
    try:
        answer: dict[str, Any] = json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        answer = {}
    if result.returncode != 0 or "error" in answer or not answer:
        reason = answer.get("error") or f"the download process ended with status {result.returncode}"
        raise ModelError(f"pull failed: {reason}")
    return answer


# -- helpers --------------------------------------------------------------------------------
def _bytes_here(staging: Path, files: tuple[HubFile, ...]) -> int:
    """Bytes already downloaded into `staging` (whole files and parts)."""
    total = 0
    for hub_file in files:
        for path in (inside(staging, hub_file.name), inside(staging, f"{hub_file.name}.part")):
            if path.is_file():
                total += min(path.stat().st_size, hub_file.size)
    return total


def _hub_file(entry: Any) -> HubFile:
    """One file of the hub's answer, its name a relative path of plain names; ModelError
    (one line) for anything else."""
    try:
        hub_file = HubFile(**entry)
        safe_name(hub_file.name)
    except UnsafeName as exc:
        raise ModelError(f"the hub listed a file with an unsafe name: {exc}; nothing was downloaded") from None
    except TypeError:
        raise ModelError("the hub's file list is malformed; nothing was downloaded") from None
    if not isinstance(hub_file.size, int) or hub_file.size < 0:
        raise ModelError(f"the hub lists a bad size for {hub_file.name}; nothing was downloaded")
    return hub_file


def mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB" if size < 1e9 else f"{size / 1e9:,.2f} GB"
