"""The store's items: writing, reading and listing them, and indexing a file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..model import Edge, Item, ItemSketch, StorageClass
from ..scopes import Visibility
from .embedder import Vector
from .outbox import Owed

__all__ = ["ItemFilter", "ItemStore", "Page"]


@dataclass(frozen=True, slots=True)
class ItemFilter:
    """Which items a listing holds; forgotten (tombstoned) items never, unless asked."""

    storage_class: StorageClass | None = None
    storage_classes: tuple[StorageClass, ...] | None = None
    kind: str | None = None
    indexed: bool | None = None
    name_contains: str | None = None
    parent_id: str | None = None
    run_id: str | None = None
    tombstoned: bool = False
    forgotten_only: bool = False
    """Only tombstoned items (what ``forget.finish_forgets`` looks through)."""
    newest_first: bool = False
    """List in reverse write order (the cursor then pages backwards)."""


@dataclass(frozen=True, slots=True)
class Page:
    items: tuple[Item, ...]
    next_cursor: str | None


class ItemStore(Protocol):
    """Items by id, source key or listing, and the one transaction that indexes a file."""

    def put_item(self, item: Item, embedding: Vector | None = None) -> Item:
        """Insert, or update the item with the same (workspace, scope, source_key). An
        update that replaces a file's bytes or a note's text keeps what the row held as a
        previous version (``versions``), in the same transaction.

        ``embedding`` is one vector, or rows of vectors: the item's own first, then its
        passages' (``vector_search`` scores an item by its best row)."""
        ...

    def put_items(
        self,
        items: Sequence[tuple[Item, Vector | None]],
        *,
        supersede: Sequence[Edge] = (),
        owed: Owed | None = None,
    ) -> list[Item]:
        """``put_item`` for many, in one transaction: all or nothing. In the same
        transaction, each of ``supersede`` is recorded as ``supersede_item`` does (its
        ``src`` the id of an item in ``items``, read as the id that item is stored under)
        and ``owed`` is recorded in the outbox with the stored items' ids."""
        ...

    def get_item(self, workspace: str, item_id: str, visibility: Visibility) -> Item | None: ...

    def get_items(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, Item]: ...

    def item_sketches(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, ItemSketch]:
        """``get_items``' narrow read: for each of ``ids`` that ``get_items`` would give,
        its ``ItemSketch`` (what a search weighs of a candidate), by id."""
        ...

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
        *,
        owed: Owed | None = None,
    ) -> list[Item]:
        """Atomically: mark the file indexed, upsert its sections by source key, link
        ``HAS_SECTION`` edges, drop sections of this file not in ``sections``, and record
        ``owed`` in the outbox with the stored sections' ids.

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

    def embedding_of(self, workspace: str, item_id: str) -> Vector | None:
        """An item's vectors, one row each (its own first), or None."""
        ...
