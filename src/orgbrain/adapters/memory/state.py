"""What an in-memory brain holds: its tables as plain dicts and lists, shared by every
handle on it (``MemoryStore(tables)``, as SQLite handles share one file), behind one lock.

Rows are kept as the records a move carries them (``adapters/records.py``: columns by
name, times as aware datetimes, flags as booleans, JSON columns as text), so the SQL
stores' mapping to and from the model (``sql/rows.py``) serves here unchanged, and a move
out of or into this store copies rows as they are. Each row also holds ``_pos``, its place
in write order (what ``rowid`` is to SQLite): dicts keep insertion order, so iterating a
table is reading it in that order.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from ...model import Edge, Item
from ...ports import Owed
from ...scopes import Visibility
from ...space import EmbeddingSpace
from ..jobs_memory import MemoryJobQueue
from ..sql.rows import Rows
from .keywords import KeywordIndex

__all__ = ["ROWS", "Part", "Row", "Tables", "VectorRow"]

Row = dict[str, Any]


def _same(value: datetime | None) -> datetime | None:
    return value


ROWS = Rows(time=_same, when=_same, flag=bool)
"""Records to rows and back: a time stays a datetime and a flag a bool."""


@dataclass(frozen=True, slots=True)
class VectorRow:
    """An answerable item's vectors (its own first, then its passages'), with what a
    search filters them by."""

    storage_class: str
    scope: str
    rows: np.ndarray[Any, np.dtype[np.float32]]


@dataclass(eq=False)
class Tables:
    """One brain's rows. Every handle's reads and writes take ``lock``."""

    lock: threading.RLock = field(default_factory=threading.RLock)
    items: dict[str, Row] = field(default_factory=dict)
    """By id (ids are unique across workspaces, as in the SQL stores)."""
    by_key: dict[tuple[str, str], str] = field(default_factory=dict)
    """(workspace, stored source key) -> item id."""
    vectors: dict[str, dict[str, VectorRow]] = field(default_factory=dict)
    """Per workspace, the answerable items' vectors by id."""
    keywords: dict[str, KeywordIndex] = field(default_factory=dict)
    """Per workspace, the answerable items' words."""
    versions: list[Row] = field(default_factory=list)
    edges: dict[str, Row] = field(default_factory=dict)
    edge_keys: dict[tuple[str, str, str, str, str], str] = field(default_factory=dict)
    """(workspace, type, src, dst, dedupe) -> edge id."""
    statements: dict[str, Row] = field(default_factory=dict)
    evidence: dict[str, dict[tuple[str, int], Row]] = field(default_factory=dict)
    """statement id -> (item id, byte start) -> evidence row."""
    events: dict[int, Row] = field(default_factory=dict)
    """By sequence number (the record's ``id``), each with its parsed ``_record``."""
    proposals: dict[str, Row] = field(default_factory=dict)
    outbox: dict[str, Owed] = field(default_factory=dict)
    """Owed work by id, oldest first (``memory/outbox.py``)."""
    jobs: MemoryJobQueue = field(default_factory=MemoryJobQueue)
    """The brain's job queue, kept with its rows as SQLite keeps it in the brain's file:
    a move carries its jobs (``export_records("jobs")``), and ``compose.open_memory``
    runs the brain's work on it."""
    marks: dict[str, str] = field(default_factory=dict)
    space: EmbeddingSpace | None = None
    last_pos: int = 0

    def next_pos(self) -> int:
        self.last_pos += 1
        return self.last_pos

    def keyword_index(self, workspace: str) -> KeywordIndex:
        index = self.keywords.get(workspace)
        if index is None:
            index = self.keywords[workspace] = KeywordIndex()
        return index


class Part:
    """One role of ``MemoryStore``, over the brain's ``Tables``."""

    _db: Tables

    def _item_row(self, workspace: str, item_id: str | None) -> Row | None:
        row = self._db.items.get(item_id) if item_id is not None else None
        return row if row is not None and row["workspace"] == workspace else None

    def _visible_row(self, workspace: str, item_id: str, visibility: Visibility) -> Row | None:
        row = self._item_row(workspace, item_id)
        return row if row is not None and visibility.allows(row["scope"]) else None

    def _rows_of(self, workspace: str) -> Iterator[Row]:
        """The workspace's item rows, in write order."""
        return (r for r in self._db.items.values() if r["workspace"] == workspace)

    def _forgotten_among(self, workspace: str, ids: list[str]) -> list[str]:
        """Which of ``ids`` are forgotten items (an unknown id is not): a derived copy of
        their words is refused (``sql/forgotten.py``)."""
        rows = (self._item_row(workspace, i) for i in sorted(set(ids)))
        return [r["id"] for r in rows if r is not None and r["tombstoned_at"] is not None]

    @staticmethod
    def _item(row: Row) -> Item:
        return ROWS.item_from_row(row)

    def _put_edge_row(self, edge: Edge) -> Edge:
        """The edge, or the one already here between its ends with its type and dedupe."""
        db = self._db
        dedupe = str(edge.props.get("dedupe", "")) if edge.props else ""
        key = (edge.workspace, edge.type, edge.src, edge.dst, dedupe)
        held = db.edge_keys.get(key)
        if held is not None:
            return ROWS.edge_from_row(db.edges[held])
        row = ROWS.edge_values(edge, dedupe)
        row["_pos"] = db.next_pos()
        db.edges[edge.id] = row
        db.edge_keys[key] = edge.id
        return ROWS.edge_from_row(row)

    def _supersede(self, edge: Edge) -> bool:
        """``supersede_item``'s write, its ends checked (not forgotten) by the caller."""
        self._put_edge_row(edge)
        old = self._item_row(edge.workspace, edge.dst)
        new = self._item_row(edge.workspace, edge.src)
        if new is not None and new["supersedes"] is None:
            new["supersedes"] = edge.dst
        if old is None or old["superseded_by"] is not None:
            return False
        old["superseded_by"] = edge.src
        return True

    def _drop_edges(self, ids: Iterable[str]) -> None:
        for edge_id in list(ids):
            row = self._db.edges.pop(edge_id)
            key = (row["workspace"], row["type"], row["src"], row["dst"], row["dedupe"])
            self._db.edge_keys.pop(key, None)

    def _drop_items(self, workspace: str, ids: Sequence[str]) -> None:
        """Delete the rows ``ids`` with their vectors and words, and every edge touching
        them."""
        gone = set(ids)
        self._drop_edges(
            e["id"]
            for e in self._db.edges.values()
            if e["workspace"] == workspace and (e["src"] in gone or e["dst"] in gone)
        )
        for item_id in gone:
            row = self._item_row(workspace, item_id)
            if row is None:
                continue
            del self._db.items[item_id]
            self._db.by_key.pop((workspace, row["source_key"]), None)
            self._db.keyword_index(workspace).drop(item_id)
            self._db.vectors.get(workspace, {}).pop(item_id, None)

    def _drop_if_lone(self, workspace: str, entity_id: str) -> bool:
        """Drop ``entity_id`` if it is an entity nothing else names: no edge to a live item
        (one from an item forgotten earlier does not count), no statement."""
        row = self._item_row(workspace, entity_id)
        if row is None or row["class"] != "entity":
            return False
        for e in self._db.edges.values():
            if e["workspace"] != workspace or entity_id not in (e["src"], e["dst"]):
                continue
            other = self._item_row(workspace, e["dst"] if e["src"] == entity_id else e["src"])
            if other is not None and other["tombstoned_at"] is None:
                return False
        for s in self._db.statements.values():
            if s["workspace"] == workspace and entity_id in (s["subject_id"], s["object_id"]):
                return False
        self._drop_items(workspace, [entity_id])
        return True
