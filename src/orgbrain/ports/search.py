"""The store's two ranked streams over answerable items: keyword and vector."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ..model import StorageClass
from ..scopes import Visibility
from .embedder import Vector

__all__ = ["ScoredId", "SearchStore"]


ScoredId = tuple[str, float]


class SearchStore(Protocol):
    """Keyword (BM25 over label, body and keys) and vector (cosine) search."""

    def set_keys(self, workspace: str, keys: Mapping[str, str]) -> None:
        """Set items' keys (item id -> text): keyword-only text, searched by
        ``keyword_search`` with the item's label and body, and nothing else: never in an
        ``Item``, a citation or a vector. Every process's keyword index sees the change.
        A later ``put_item`` keeps an item's keys, unless it moves the item to another
        scope or tombstones it: then they are emptied (they were chosen for where the item
        was). Unknown ids are skipped."""
        ...

    def keyword_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        terms: Sequence[str],
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        """BM25 over label, body and keys (``set_keys``) of answerable items, best first
        (higher is better)."""
        ...

    def vector_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        vector: Vector,
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        """Cosine similarity over answerable items' embeddings, best first; an item of
        several vectors scores its best one and is listed once."""
        ...
