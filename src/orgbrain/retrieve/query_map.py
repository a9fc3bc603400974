"""A trained linear map of the query's vector, read by the vector streams.

The documents' vectors stay as indexed; only the query's moves: ``normalise(q + q D)``,
``D`` a small correction to the identity trained on the dev sets' questions against the
items that answer them (``bench/query_map.py``; docs/eval.md, "Issue 17, a trained query
transform"). A map holds for the embedder it was trained with and no other: for another
model (or dimension) the query is left as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..ports import Vector

__all__ = ["QUERY_MAP_FILE", "QueryMap", "shipped_query_map"]

QUERY_MAP_FILE = Path(__file__).with_name("query_map.npz")


@dataclass(frozen=True, eq=False)
class QueryMap:
    """``model``'s query vectors, corrected by ``delta`` (dim x dim)."""

    model: str
    delta: NDArray[np.float32] = field(repr=False)

    def fits(self, model: str, dim: int) -> bool:
        return model == self.model and dim == self.delta.shape[0]

    def apply(self, vector: Vector) -> Vector:
        q = np.asarray(vector, dtype=np.float32).reshape(-1)
        out: Vector = q + q @ self.delta
        norm = float(np.linalg.norm(out))
        return (out / norm).astype(np.float32) if norm > 0 else q

    @classmethod
    def load(cls, path: Path) -> QueryMap:
        with np.load(path) as z:
            return cls(str(z["model"]), np.asarray(z["delta"], dtype=np.float32))

    def save(self, path: Path) -> None:
        np.savez_compressed(path, model=np.array(self.model), delta=self.delta.astype(np.float16))


@cache
def shipped_query_map() -> QueryMap:
    """The map trained on the dev sets, shipped beside this module."""
    return QueryMap.load(QUERY_MAP_FILE)
