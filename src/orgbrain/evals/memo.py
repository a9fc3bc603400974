"""The embedder an eval searches with: each query embedded once per run, its cost kept.

Every plan asks every query, and LoCoMo asks each question twice per plan (deep, then as
shipped). Embedding a query once and handing the same vector to later searches keeps a
run's time down to one embedding per query; ``charge_ms`` lets the eval still report each
search's latency as if it had embedded the query itself (its first embedding's cost), so
the latency columns stay comparable across plans.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ..errors import Unavailable
from ..ports import (
    Embedder,
    PrefixedEmbedder,
    QueryEmbedder,
    TokenEmbedder,
    TokenVectors,
    Vector,
)

__all__ = ["QueryMemo"]


class QueryMemo:
    """Wraps an embedder: single-text calls are remembered; batch calls pass through."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self._seen: dict[str, tuple[Vector, float]] = {}
        self._queries: dict[str, tuple[Vector, float]] = {}
        self.spent_ms = 0.0
        self.charged_ms = 0.0

    @property
    def name(self) -> str:
        return self._inner.name

    @property
    def dim(self) -> int:
        return self._inner.dim

    @property
    def prefixes(self) -> tuple[str, str]:
        """The inner embedder's, so that a brain records the same space through the memo."""
        inner = self._inner
        return inner.prefixes if isinstance(inner, PrefixedEmbedder) else ("", "")

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
        return self._remembered(self._seen, texts[0], lambda: self._inner.embed(texts))

    def embed_query(self, text: str) -> Vector:
        """The inner embedder's query path when it has one (remembered apart from
        ``embed``'s vectors: it may round differently), else ``embed([text])[0]``."""
        inner = self._inner
        if isinstance(inner, QueryEmbedder):
            return self._remembered(self._queries, text, lambda: inner.embed_query(text))
        first: Vector = self.embed([text])[0]
        return first

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]:
        """The inner embedder's token vectors (not remembered: the answerability judge
        reads passages, not queries alone), so that an eval measures the verdict
        ``ORGBRAIN_VERDICT`` names."""
        inner = self._inner
        if not isinstance(inner, TokenEmbedder):
            raise Unavailable(f"{inner.name} gives no token vectors (ORGBRAIN_VERDICT=judge)")
        return inner.embed_tokens(texts)

    def _remembered(
        self, seen: dict[str, tuple[Vector, float]], text: str, compute: Callable[[], Vector]
    ) -> Vector:
        t0 = time.perf_counter()
        hit = seen.get(text)
        if hit is None:
            vectors = compute()
            cost = (time.perf_counter() - t0) * 1000.0
            hit = (vectors.copy(), cost)
            seen[text] = hit
        self.spent_ms += (time.perf_counter() - t0) * 1000.0
        self.charged_ms += hit[1]
        return hit[0].copy()
