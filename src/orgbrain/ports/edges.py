"""The store's edges between items, and what it holds per workspace."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..model import Edge
from ..scopes import Visibility

__all__ = ["EdgeStore"]


class EdgeStore(Protocol):
    """Edges whose both ends a reader can see, and counts per workspace."""

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

    def edges_around(
        self,
        workspace: str,
        item_ids: Sequence[str],
        visibility: Visibility,
        *,
        types: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> dict[str, list[Edge]]:
        """``edges_of`` for each of ``item_ids`` in one read: by id, its edges (of
        ``types``) whose both ends ``visibility`` allows, oldest first, at most ``limit``
        each; an edge between two of the ids is listed under both, and an id without
        edges is left out."""
        ...

    def counts(self, workspace: str) -> dict[str, int]:
        """Items per class (``file``, ``note``, ...) and indexed per class
        (``file_indexed``), forgotten ones apart (``forgotten``), and ``edges``."""
        ...

    def workspaces(self) -> list[str]:
        """Every workspace that holds an item, sorted."""
        ...
