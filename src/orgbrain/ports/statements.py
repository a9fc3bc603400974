"""The typed graph: entities, statements and their evidence, supersession."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from ..model import Edge, Evidence, Item, Statement
from ..scopes import Visibility

__all__ = ["StatementStore"]


class StatementStore(Protocol):
    """Entities, statements with their evidence, supersession, and what forgetting takes
    out of them."""

    def entities_named(
        self, workspace: str, values: Sequence[str], visibility: Visibility
    ) -> list[Item]:
        """Visible entities whose canonical value is one of ``values``."""
        ...

    def put_statement(self, statement: Statement) -> tuple[Statement, bool]:
        """Insert a statement with its first evidence, or return the one with its id
        (and whether it is new). Idempotent: the same id again changes nothing."""
        ...

    def add_evidence(self, workspace: str, statement_id: str, evidence: Evidence) -> bool:
        """Another place stating a statement (corroboration); False if already recorded."""
        ...

    def statements(
        self,
        workspace: str,
        visibility: Visibility,
        *,
        ids: Sequence[str] | None = None,
        subject_ids: Sequence[str] | None = None,
        object_ids: Sequence[str] | None = None,
        predicate: str | None = None,
        item_id: str | None = None,
        item_ids: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        linked_to: Sequence[str] | None = None,
        current: bool | None = None,
        conflicted: bool = False,
        live: bool = True,
        limit: int = 500,
    ) -> list[Statement]:
        """Statements matching every filter given, oldest ``valid_from`` first. ``live``
        keeps only those with evidence in a visible item that is not forgotten;
        ``item_id``: those with evidence in that item, ``item_ids``: in any of those;
        ``linked_to``: those on the other side of a supersession link of any of those
        statements (that one of them replaced, or that replaced one of them)."""
        ...

    def evidence(self, workspace: str, statement_id: str, visibility: Visibility) -> list[Evidence]:
        """Where a statement was read, in visible items that are not forgotten."""
        ...

    def end_statement(
        self, workspace: str, statement_id: str, valid_to: datetime, superseded_by: str
    ) -> bool:
        """Close a current statement (once): valid until ``valid_to``, replaced by
        ``superseded_by``."""
        ...

    def flag_conflict(self, workspace: str, a: str, b: str) -> None:
        """Mark two statements as disagreeing (both kept, both flagged)."""
        ...

    def purge_derived(self, workspace: str, item_ids: Sequence[str], *, erase: bool) -> list[str]:
        """Take what derivation copied of the forgotten items ``item_ids`` out of the store:
        their statement evidence (a statement left with none goes, and what it replaced
        holds again), their mention edges, and the entities nothing else names (deleted;
        their ids are returned). Links at them (``supersedes``, ``superseded_by``) move to
        the next live claim or are cleared. With ``erase``, every edge touching them and
        their derivation log go too, and no erased word is left in the store's files."""
        ...

    def supersede_item(self, edge: Edge) -> bool:
        """Record a ``SUPERSEDES`` edge (new ``src`` → old ``dst``): the old item's
        ``superseded_by`` and the new one's ``supersedes`` are set once, never moved."""
        ...
