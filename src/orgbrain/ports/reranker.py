"""Judging how well passages answer a query."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["Reranker"]


class Reranker(Protocol):
    """Judges how well each passage answers a query: one score per document, higher is
    better, in the documents' order. Raises ``OrgBrainError`` when it cannot judge (the
    search then keeps its own order: reads fail open)."""

    @property
    def name(self) -> str: ...

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]: ...
