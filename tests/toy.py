"""A small, real Embedder: hashed bag of words. Deterministic and fast; for tests where
the meaning of vectors does not matter (durability, scopes, plumbing)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from orgbrain.adapters.blobs_local import LocalBlobStore
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.compose import build_context
from orgbrain.context import BrainContext
from orgbrain.ports import Vector

_WORD = re.compile(r"\w+")


class HashEmbedder:
    name = "toy-hash"

    def __init__(self, dim: int = 384) -> None:
        self._dim = dim

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vector:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "big")
                out[i, h % self._dim] += 1.0 if (h >> 32) & 1 else -1.0
            norm = float(np.linalg.norm(out[i]))
            out[i] = out[i] / norm if norm else 1.0 / np.sqrt(self._dim)
        return out


def toy_context(root: Path) -> BrainContext:
    """A service's context over a real SQLite file and blob folder with the toy embedder:
    what the composition root gives a ``Brain``, for tests of one service."""
    root.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(root / "brain.sqlite")
    return build_context(store, LocalBlobStore(root / "blobs"), HashEmbedder())
