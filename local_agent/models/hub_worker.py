"""The one place local-agent talks to a model hub, run by `models pull` as a child process.

huggingface_hub reads HF_HUB_OFFLINE and HF_ENDPOINT once, when it is imported; the package
sets HF_HUB_OFFLINE=1 for every command. So `pull` starts this module in a process of its own
with offline mode off (pull.py), and nothing else ever imports huggingface_hub online.
HF_ENDPOINT, HF_TOKEN and proxies are honoured the way huggingface_hub honours them.

Reads one JSON request on stdin, writes one JSON answer on stdout (`{"error": "one line"}` on
failure, exit status 1); huggingface_hub's progress bars go to stderr.

- `plan`: the repository's commit and, for each file to fetch, its size and the checksums the
  hub lists (the LFS sha256 of large files, the git blob id of small ones).
- `fetch`: download each file at that commit into the staging folder. Each downloads into
  `<file>.part` and is renamed to `<file>` once whole; an interrupted or stalled pull leaves
  the part, and the next one resumes it with a Range request (hub_download.py: the bytes are
  written as they arrive, and a download without progress for `stall_timeout` seconds ends.
  Files of Xet-backed repositories download over HTTP too, as huggingface_hub does without
  hf_xet: the Xet transfer cannot resume a part file.)

The hub's answers are not trusted for paths: its commit id must be 40 hexadecimal digits and
each file name a relative path of plain names (paths.py), checked in `plan` before anything is
written, and again where each file lands.
"""

from __future__ import annotations

import fnmatch
import json
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ..errors import LocalAgentError
from .hub_download import DownloadError, download
from .paths import UnsafeName, commit_id, inside, safe_name

# The files of a Hugging Face model folder that the transformers backends read: weights as
# safetensors only (pickles are never loaded), config, tokenizer and chat template.
FOLDER_FILES = (
    "config.json", "generation_config.json", "*.safetensors", "model.safetensors.index.json",
    "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "tokenizer.model", "vocab.json",
    "merges.txt", "added_tokens.json", "chat_template.jinja", "chat_template.json",
)


class PullError(Exception):
    """A failure to report in one line."""


def main() -> int:
    request = json.loads(sys.stdin.read())
    try:
        answer = ACTIONS[request["action"]](request)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # every failure becomes the one line the parent shows
        print(json.dumps({"error": one_line(explain(exc, request))}), flush=True)
        return 1
    print(json.dumps(answer), flush=True)
    return 0


# -- plan -----------------------------------------------------------------------------------
def plan(request: dict[str, Any]) -> dict[str, Any]:
    from huggingface_hub import HfApi, constants, get_token

    repo, file = request["repo"], request.get("file")
    info = HfApi().model_info(repo, revision=request["revision"], files_metadata=True)
    if info.gated and get_token() is None:
        raise PullError(gated_message(repo, constants.ENDPOINT, token=False))
    commit = commit_id(info.sha)  # it names a folder here: checked before anything is written
    siblings = {s.rfilename: s for s in info.siblings or [] if isinstance(s.rfilename, str)}
    names = [file] if file else _folder_files(repo, list(siblings))
    if file and file not in siblings:
        ggufs = ", ".join(sorted(n for n in siblings if n.endswith(".gguf"))[:8]) or "none"
        raise PullError(f"{repo} has no file {file} (its .gguf files: {ggufs})")
    files = [_file_entry(siblings[name]) for name in names]
    return {"endpoint": constants.ENDPOINT, "commit": commit, "files": files}


def _folder_files(repo: str, names: list[str]) -> list[str]:
    chosen = sorted(n for n in names if "/" not in n and any(fnmatch.fnmatch(n, p) for p in FOLDER_FILES))
    if "config.json" not in chosen:
        raise PullError(f"{repo} has no config.json: it is not a transformers model folder "
                        "(for a GGUF, name the file: hf:OWNER/REPO/FILE.gguf)")
    if not any(n.endswith(".safetensors") for n in chosen):
        raise PullError(f"{repo} has no .safetensors weights (pickled weights are never loaded)")
    return chosen


def _file_entry(sibling: Any) -> dict[str, Any]:
    try:
        safe_name(sibling.rfilename)
    except UnsafeName as exc:
        raise PullError(f"the hub listed a file with an unsafe name: {exc}; nothing was downloaded") from None
    lfs = sibling.lfs
    size = lfs.size if lfs is not None else sibling.size
    if size is None:
        raise PullError(f"the hub lists no size for {sibling.rfilename}")
    return {"name": sibling.rfilename, "size": int(size), "lfs_sha256": lfs.sha256 if lfs is not None else None,
            "blob_id": sibling.blob_id}


# -- fetch ----------------------------------------------------------------------------------
def fetch(request: dict[str, Any]) -> dict[str, Any]:
    staging = Path(request["staging"])
    stall_s = float(request["stall_timeout"])  # the pull_stall_timeout setting
    for entry in request["files"]:
        fetch_file(request["repo"], request["commit"], entry, staging, stall_s)
    return {"fetched": [entry["name"] for entry in request["files"]]}


def fetch_file(repo: str, commit: str, entry: dict[str, Any], staging: Path, stall_s: float) -> None:
    """Download one file into `staging`, resuming its part file when there is one."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub.utils import build_hf_headers

    name, size = entry["name"], entry["size"]
    done, part = inside(staging, name), inside(staging, f"{name}.part")
    if done.is_file() and done.stat().st_size == size:
        return
    done.parent.mkdir(parents=True, exist_ok=True)
    url = hf_hub_url(repo, name, revision=commit_id(commit))
    metadata = get_hf_file_metadata(url)
    headers = build_hf_headers()
    if urlparse(metadata.location).netloc != urlparse(url).netloc:
        headers.pop("authorization", None)  # a signed CDN address takes no hub token
    if part.is_file() and part.stat().st_size > size:  # not a prefix of this file: start again
        part.unlink()
    try:
        download(metadata.location, part, size, headers, stall_s, name)
    except OSError as exc:
        if exc.filename is None and exc.errno is not None:  # a write failed: name the file
            raise OSError(exc.errno, exc.strerror, str(part)) from None
        raise
    os.replace(part, done)


ACTIONS = {"plan": plan, "fetch": fetch}


# -- one-line errors ------------------------------------------------------------------------
def gated_message(repo: str, endpoint: str, token: bool) -> str:
    who = "the token in use has no access to it" if token else "no Hugging Face token is set"
    return (f"{repo} is gated and {who}: accept its license at {endpoint.rstrip('/')}/{repo}, then set HF_TOKEN "
            "to a read token (or run `hf auth login`) and pull again")


def explain(exc: BaseException, request: dict[str, Any]) -> str:
    """A one-line reason for a failed plan or fetch."""
    import httpx2
    from huggingface_hub import constants, get_token
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        RemoteEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    repo, endpoint = request.get("repo", "?"), constants.ENDPOINT
    if isinstance(exc, (PullError, LocalAgentError, DownloadError)):
        return str(exc)
    if isinstance(exc, GatedRepoError):
        return gated_message(repo, endpoint, token=get_token() is not None)
    if isinstance(exc, RepositoryNotFoundError):
        return f"no model {repo} on {endpoint} (check the name; a private repository also needs HF_TOKEN)"
    if isinstance(exc, RevisionNotFoundError):
        return f"{repo} has no revision {request.get('revision')} on {endpoint}"
    if isinstance(exc, RemoteEntryNotFoundError):
        return f"a file of {repo} is missing on {endpoint} at commit {request.get('commit', '?')}"
    if isinstance(exc, HfHubHTTPError):
        status = exc.response.status_code if exc.response is not None else "?"
        return f"{endpoint} answered HTTP {status} for {repo}: {first_line(exc)}"
    if isinstance(exc, httpx2.HTTPError):
        return f"cannot reach {endpoint}: {exc} (pull honours HF_ENDPOINT and the proxy variables)"
    if isinstance(exc, OSError):
        return f"{exc.strerror or exc}: {exc.filename}" if exc.filename else str(exc)
    return f"{type(exc).__name__}: {exc}"


def first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def one_line(text: str) -> str:
    return " ".join(text.split())


if __name__ == "__main__":
    sys.exit(main())
