"""The install check of the llama.cpp embedder: on a fixed sample, every vector it makes must
point where sentence-transformers' does (cosine at least MIN_COSINE), long texts included."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np

from ...errors import ModelError
from .embedder import Embedder, default_model_path
from .gguf_embedder import GgufEncoder

MIN_COSINE = 0.999
DISTILL_STRIDE = 4  # every 4th statement of the packaged distillation set joins the sample

_SENTENCES = (
    "hi",
    "",
    "My sister lives in Lyon and works as a nurse.",
    "[8 May 2023] Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "Melanie: I painted a lake sunrise last year! It's special to me.",
    "What did I say my favourite food was?",
    "I'm allergic to peanuts, penicillin & shellfish (since 2019).",
    "Café, naïve, résumé, Zürich, São Paulo, Ελλάδα, Москва, 東京, 서울 🚀🎉",
    "Call me at +1 (555) 010-2030 or write to sam@example.org; see https://example.org/a?b=c.",
    "def add(a, b):\n\treturn a + b  # TODO: types",
    "   leading and trailing spaces, and\nnew\nlines   ",
    "UPPER CASE SHOUTING AND MiXeD cAsE WoRdS",
    "The meeting moved from 3:30pm on 2024-02-29 to 09:00 on 1 March; budget $1,250.75.",
    "Don't forget: we're out of milk, eggs, and the kids' favourite cereal!!!",
)


def _long_text(pieces: int) -> str:
    """A deterministic text of many sentences, well past the 256 word pieces kept."""
    sentences = [s for s in _SENTENCES if s.strip()]
    return " ".join(sentences[i % len(sentences)] for i in range(pieces // 12))


def sample_texts() -> list[str]:
    """The fixed sample: varied short texts, two long ones, and packaged chat statements."""
    data = resources.files("local_agent") / "data" / "distill_train.jsonl"
    lines = data.read_text(encoding="utf-8").splitlines()
    statements = [json.loads(line)["text"] for line in lines[::DISTILL_STRIDE] if line.strip()]
    return [*_SENTENCES, _long_text(400), _long_text(2000), *statements]


def cosines(gguf_path: Path, texts: list[str], threads: int = 1) -> np.ndarray:
    """Cosine between llama.cpp's and sentence-transformers' vector of each text."""
    ours = GgufEncoder(gguf_path, default_model_path(), threads=threads).encode(texts)
    theirs = Embedder().embed(texts)
    return np.einsum("ij,ij->i", ours.astype(np.float64), theirs.astype(np.float64))


def check(gguf_path: Path, threads: int = 1) -> float:
    """The smallest cosine over the sample; ModelError when it is below MIN_COSINE."""
    texts = sample_texts()
    found = cosines(gguf_path, texts, threads)
    worst = int(np.argmin(found))
    if found[worst] < MIN_COSINE:
        raise ModelError(
            f"{gguf_path.name} embeds unlike sentence-transformers: cosine {found[worst]:.5f} < {MIN_COSINE} "
            f"on sample text {worst} ({texts[worst][:60]!r})"
        )
    return float(found[worst])
