"""The embedder an eval searches with: each query embedded once per run, its cost kept.

Every plan asks every query, and LoCoMo asks each question twice per plan (deep, then as
shipped). Embedding a query once and handing the same vector to later searches keeps a
run's time down to one embedding per query; ``charge_ms`` lets the eval still report each
search's latency as if it had embedded the query itself (its first embedding's cost), so
the latency columns stay comparable across plans.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..ports import Embedder, Vector

__all__ = ["QueryMemo"]


class QueryMemo:
    """Wraps an embedder: single-text calls are remembered; batch calls pass through."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self._seen: dict[str, tuple[Vector, float]] = {}
        self.spent_ms = 0.0
        self.charged_ms = 0.0

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dim(self) -> int:
        return self._inner.dim

    def reset_clock(self) -> None:
        """Start counting a new search's embedding time."""
        self.spent_ms = 0.0
        self.charged_ms = 0.0

    def charge_ms(self) -> float:
        """What the latest search should add to its wall time: the first embedding's cost
        of its query, less the time this memo really spent."""
        return self.charged_ms - self.spent_ms

    def embed(self, texts: Sequence[str]) -> Vector:
        if len(texts) != 1:
            return self._inner.embed(texts)
        t0 = time.perf_counter()
        hit = self._seen.get(texts[0])
        if hit is None:
            vectors = self._inner.embed(texts)
            cost = (time.perf_counter() - t0) * 1000.0
            hit = (vectors.copy(), cost)
            self._seen[texts[0]] = hit
        self.spent_ms += (time.perf_counter() - t0) * 1000.0
        self.charged_ms += hit[1]
        return hit[0].copy()
