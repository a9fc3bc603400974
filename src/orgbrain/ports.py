"""The seams between the core and the outside world, as ``typing.Protocol`` classes.

Adapters live in ``orgbrain.adapters``; every adapter of a port passes the same contract
suite in ``tests/contract``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from .model import Edge, Item, StorageClass
from .scopes import Visibility

__all__ = [
    "BlobStore",
    "Embedder",
    "ItemFilter",
    "Page",
    "Reranker",
    "ScoredId",
    "Store",
    "Tokenizer",
    "Vector",
]

Vector = NDArray[np.float32]
ScoredId = tuple[str, float]


@dataclass(frozen=True, slots=True)
class ItemFilter:
    """Which items a listing holds; forgotten (tombstoned) items never, unless asked."""

    storage_class: StorageClass | None = None
    storage_classes: tuple[StorageClass, ...] | None = None
    kind: str | None = None
    indexed: bool | None = None
    name_contains: str | None = None
    parent_id: str | None = None
    tombstoned: bool = False


@dataclass(frozen=True, slots=True)
class Page:
    items: tuple[Item, ...]
    next_cursor: str | None


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors of a fixed dimension."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vector:
        """Return an ``(len(texts), dim)`` float32 array of L2-normalised rows."""
        ...


class Tokenizer(Protocol):
    """Counts and cuts text in tokens."""

    def count(self, text: str) -> int: ...

    def truncate(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` of at most ``max_tokens`` tokens."""
        ...


class Reranker(Protocol):
    def rerank(self, query: str, documents: Sequence[str]) -> list[float]: ...


class BlobStore(Protocol):
    """Raw bytes by key. ``put`` is atomic: a failed or oversize put leaves nothing."""

    def put(self, key: str, chunks: Iterable[bytes], *, max_bytes: int | None = None) -> int: ...

    def read(self, key: str) -> bytes: ...

    def stream(self, key: str, start: int = 0, end: int | None = None) -> Iterator[bytes]: ...

    def size(self, key: str) -> int: ...

    def exists(self, key: str) -> bool: ...

    def delete_prefix(self, prefix: str) -> None: ...

    def keys(self, prefix: str) -> Iterator[tuple[str, datetime]]:
        """Every blob under ``prefix`` (a folder), with when it was last written."""
        ...

    def clear_partial(self, older_than: datetime) -> int:
        """Remove what puts that never finished left behind (a crash mid-write) and that
        is older than ``older_than``; return how many were removed."""
        ...


class Store(Protocol):
    """Items, edges and their indexes for many workspaces.

    Every method takes the workspace and filters on it; every read takes a ``Visibility``
    and applies it inside the query, so limits are filled with visible rows. Writes commit
    durably (fsynced) before they return.
    """

    embedding_dim: int | None

    def close(self) -> None: ...

    def bind_embedder(self, name: str, dim: int) -> None:
        """Record the embedding space this store's vectors live in; a model of another
        dimension is refused with ``Conflict`` instead of mixing vectors."""
        ...

    def put_item(self, item: Item, embedding: Vector | None = None) -> Item:
        """Insert, or update in place the item with the same (workspace, scope, source_key).

        ``embedding`` is one vector, or rows of vectors: the item's own first, then its
        passages' (``vector_search`` scores an item by its best row)."""
        ...

    def put_items(self, items: Sequence[tuple[Item, Vector | None]]) -> list[Item]:
        """``put_item`` for many, in one transaction: all or nothing."""
        ...

    def get_item(self, workspace: str, item_id: str, visibility: Visibility) -> Item | None: ...

    def get_items(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, Item]: ...

    def get_by_source_key(
        self, workspace: str, source_key: str, visibility: Visibility, *, scope: str
    ) -> Item | None:
        """The item ``source_key`` names in ``scope``. A source key is unique per
        (workspace, scope): the same key in two scopes is two items, so a writer never
        learns of, updates or moves an item in a scope it cannot see."""
        ...

    def list_items(
        self,
        workspace: str,
        filter: ItemFilter,
        visibility: Visibility,
        *,
        limit: int = 100,
        cursor: str | None = None,
    ) -> Page: ...

    def commit_index(
        self,
        file: Item,
        file_embedding: Vector | None,
        sections: Sequence[tuple[Item, Vector]],
        edge_origin_actor: str,
    ) -> list[Item]:
        """Atomically: mark the file indexed, upsert its sections by source key, link
        ``HAS_SECTION`` edges, and drop sections of this file not in ``sections``.

        Only if the item still holds the version ``file`` was read as (its content hash
        and blob key); otherwise ``Conflict``, and nothing is written."""
        ...

    def set_index_error(
        self, workspace: str, item_id: str, error: str | None, *, content_hash: str | None = None
    ) -> None:
        """Record (or clear) why a file could not be indexed; with ``content_hash``, only
        while the item still holds that version (a newer one is not blamed)."""
        ...

    def unindex_children(self, workspace: str, parent_id: str) -> None:
        """Take a file's sections out of answers (their file's bytes changed)."""
        ...

    def keyword_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        terms: Sequence[str],
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        """BM25 over label and body of answerable items, best first (higher is better)."""
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

    def put_edge(self, edge: Edge) -> Edge:
        """Insert an edge; the same (type, src, dst, key) again returns the existing one."""
        ...

    def edges_of(
        self,
        workspace: str,
        item_id: str,
        visibility: Visibility,
        *,
        types: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[Edge]:
        """Edges with ``item_id`` at either end (of ``types``, if given) whose both ends
        ``visibility`` allows, oldest first; at most ``limit`` of them."""
        ...

    def counts(self, workspace: str) -> dict[str, int]:
        """Items per class (``file``, ``note``, ...) and indexed per class
        (``file_indexed``), forgotten ones apart (``forgotten``), and ``edges``."""
        ...

    def workspaces(self) -> list[str]:
        """Every workspace that holds an item, sorted."""
        ...

    def log_event(self, workspace: str, kind: str, record: dict[str, object]) -> int:
        """Append a JSON record to the workspace's log (e.g. kind "turn"); returns its id."""
        ...

    def events(
        self, workspace: str, kind: str, *, limit: int = 20, actor: str | None = None
    ) -> list[dict[str, object]]:
        """The most recent records of ``kind``, newest first, each with ``id`` and ``at``."""
        ...
