"""Run llama.cpp's convert_hf_to_gguf.py on several random-weight stand-ins in one process
(torch and transformers are imported once):
`python -m local_agent.models.converter_shim CONVERTER JOBS`, JOBS a JSON list of
{"args": [the converter's arguments], "pre": "a pre-tokenizer name or empty"}.

The converter names a BPE tokenizer's pre-tokenizer by hashing how transformers tokenizes a
fixed text. A stand-in carries the SmolLM2 vocabulary, and for a qwen2 model transformers
always splits text the Qwen way (Qwen2Tokenizer), a pairing no real model has, so the hash is
unknown. Its pre-tokenizer is then the family's own ("pre", e.g. "qwen2"), which is how
transformers splits it too. A known hash is used as it is.
"""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path
from typing import Any


def main() -> None:
    converter, jobs = sys.argv[1], json.loads(sys.argv[2])
    here = Path(converter).resolve().parent
    sys.path[:0] = [str(here), str(here / "gguf-py")]  # its own gguf-py, as the script does
    from conversion import base  # type: ignore[import-not-found]  # the converter's own package

    known = base.TextModel.get_vocab_base_pre
    for job in jobs:
        base.TextModel.get_vocab_base_pre = _with_fallback(known, job["pre"])
        sys.argv = [converter, *job["args"]]
        runpy.run_path(converter, run_name="__main__")


def _with_fallback(known: Any, pre: str) -> Any:
    def family_pre(self: object, tokenizer: object) -> str:
        try:
            return str(known(self, tokenizer))
        except NotImplementedError:
            if not pre:
                raise
            return pre

    return family_pre


if __name__ == "__main__":
    main()
