"""all-MiniLM-L6-v2 through llama.cpp: the CPU memory embedder, without torch.

`make install` converts the packaged model to GGUF once and checks it against
sentence-transformers (scripts/convert_embedder.py); the registry records the sha256 of that
checked file. A file with that checksum embeds like sentence-transformers does, so both report
the same `model_id` and a store never re-embeds when the embedder changes. When the GGUF is
missing, does not match its checksum, or llama.cpp cannot load it, sentence-transformers
embeds instead, after one notice line on stderr.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...errors import ModelError
from ...models import RegistryEntry, load_registry, sha256_file
from .embedder import SMALL_BATCH, Embedder

log = logging.getLogger(__name__)

# sentence-transformers' `max_seq_length` for this model, when its folder does not say.
DEFAULT_MAX_TOKENS = 256


def embedding_entry(models_dir: Path) -> RegistryEntry | None:
    """The registry's embedding model (the GGUF made at install), if it names one."""
    return next((e for e in load_registry(models_dir).values() if e.kind == "embedding"), None)


def max_tokens(folder: Path) -> int:
    """Word pieces per text, special tokens included, that sentence-transformers keeps."""
    try:
        config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(config["max_seq_length"])
    except (OSError, ValueError, KeyError, TypeError):
        return DEFAULT_MAX_TOKENS


class GgufEncoder:
    """One llama.cpp context that embeds texts as sentence-transformers does: the model
    folder's own word-piece tokenizer (llama.cpp's drops some Unicode, e.g. Hangul vowels),
    cut to the same length, mean pooling, L2 normalization. Not thread-safe."""

    def __init__(self, path: Path, folder: Path, *, threads: int) -> None:
        try:
            import llama_cpp
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelError(f"the llama.cpp embedder needs {exc.name}: run `make install`") from None
        self._lib = llama_cpp
        self.limit = max_tokens(folder)
        self.threads = max(1, threads)
        try:
            self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        except Exception as exc:
            raise ModelError(f"cannot read the tokenizer in {folder}: {exc}") from None
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=self.limit)  # [CLS] and [SEP] included
        try:
            # One sequence must fit in one micro-batch (the model attends both ways), and a
            # micro-batch no larger than that keeps attention over packed short texts cheap.
            self._llm = llama_cpp.Llama(
                model_path=str(path), embedding=True, pooling_type=llama_cpp.LLAMA_POOLING_TYPE_MEAN,
                n_ctx=self.limit, n_batch=self.limit, n_ubatch=self.limit, n_threads=1, n_threads_batch=1,
                verbose=False,
            )
        except ValueError as exc:
            raise ModelError(f"llama.cpp could not load {path} ({exc})") from None
        self.dimension = int(self._llm.n_embd())
        self._threads = 1

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, shape (len(texts), dimension), float32."""
        threads = 1 if len(texts) <= SMALL_BATCH else self.threads
        if threads != self._threads:  # llama.cpp logs each change (see _decode)
            self._lib.llama_set_n_threads(self._llm.ctx, threads, threads)
            self._threads = threads
        rows: list[np.ndarray] = []
        pending: list[list[int]] = []
        for encoding in self._tokenizer.encode_batch(list(texts)):
            if pending and sum(map(len, pending)) + len(encoding.ids) > self.limit:
                rows.extend(self._decode(pending))
                pending = []
            pending.append(encoding.ids)
        if pending:
            rows.extend(self._decode(pending))
        if not rows:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = np.stack(rows).astype(np.float32)
        norms = np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        return np.ascontiguousarray(vectors / norms, dtype=np.float32)

    def _decode(self, sequences: list[list[int]]) -> list[np.ndarray]:
        llm = self._llm
        llm._batch.reset()
        for seq_id, tokens in enumerate(sequences):
            llm._batch.add_sequence(tokens, seq_id, True)
        llm._ctx.kv_cache_clear()
        # encode, not decode: decode on this encoder-only model logs a line through the
        # package's Python log callback each time, and a Ctrl-C handled inside that callback is
        # swallowed ("Exception ignored ..."), so an interrupted import went on to the end.
        llm._ctx.encode(llm._batch)
        pooled = [self._lib.llama_get_embeddings_seq(llm.ctx, seq_id) for seq_id in range(len(sequences))]
        if not all(pooled):
            raise ModelError("llama.cpp returned no pooled embedding (is the GGUF an embedding model?)")
        return [np.ctypeslib.as_array(pointer, shape=(self.dimension,)).copy() for pointer in pooled]


class LlamaEmbedder(Embedder):
    """The sentence-transformers `Embedder`, computed by llama.cpp from the checked GGUF.

    The GGUF loads on first use; until then nothing is read but the model folder's config.
    When it cannot be used, the inherited sentence-transformers path runs, after one notice."""

    def __init__(self, gguf_path: Path | None, sha256: str | None, *, batch_size: int = 64) -> None:
        super().__init__(batch_size=batch_size)
        self.gguf_path = gguf_path
        self.sha256 = sha256
        self._encoder: GgufEncoder | None = None
        self._opened = False
        self._use_lock = threading.Lock()

    @property
    def uses_llama(self) -> bool:
        """Whether llama.cpp embeds (loads the GGUF if not yet done)."""
        return self._gguf() is not None

    @property
    def dimension(self) -> int:
        if self._encoder is not None:
            return self._encoder.dimension
        return super().dimension

    def warm_up(self) -> None:
        if self._gguf() is None:
            super().warm_up()

    def embed(self, texts: list[str]) -> np.ndarray:
        encoder = self._gguf()
        if encoder is None:
            return super().embed(texts)
        with self._use_lock:  # one llama.cpp context: a background distiller may embed too
            return encoder.encode(texts)

    def _gguf(self) -> GgufEncoder | None:
        if not self._opened:
            with self._use_lock:
                if not self._opened:
                    self._encoder = self._open()
                    self._opened = True
        return self._encoder

    def _open(self) -> GgufEncoder | None:
        try:
            return GgufEncoder(self._verified(), self.model_path, threads=_cores())
        except ModelError as exc:
            log.warning(f"{exc}; sentence-transformers embeds instead (slower to start)")
            return None

    def _verified(self) -> Path:
        """The GGUF's path; ModelError unless it is the file the install checked."""
        path = self.gguf_path
        if path is None or not self.sha256:
            raise ModelError("the model registry names no llama.cpp embedder")
        if not path.is_file():
            raise ModelError(f"the llama.cpp embedder {path} is missing (run `make install`)")
        if sha256_file(path) != self.sha256:
            raise ModelError(f"the llama.cpp embedder {path} does not match its checksum "
                             "(run `make install` to convert it again)")
        return path


def _cores() -> int:
    from ...backends.probe import physical_cores

    return physical_cores()


def memory_embedder(models_dir: Path, device: str = "auto") -> Embedder:
    """The memory store's embedder: sentence-transformers on a usable CUDA GPU (unless the
    CPU is asked for), llama.cpp elsewhere."""
    from ...backends.probe import cuda_usable

    if device != "cpu" and cuda_usable():
        return Embedder(device="cuda")
    entry = embedding_entry(models_dir)
    if entry is None:
        return LlamaEmbedder(None, None)
    return LlamaEmbedder(Path(models_dir) / entry.file, entry.sha256)

