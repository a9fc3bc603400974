"""The store's typed statements, their evidence, item supersession and the event feed:
one part of ``SQLiteStore``, kept apart like ``graphlog.py``."""

from __future__ import annotations

import json
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from ...errors import InvalidInput
from ...model import Edge, Evidence, Item, Statement
from ...scopes import Visibility
from ..records import TABLES
from .rows import ROWS, item_from_row

__all__ = ["Statements"]

_STATEMENT = TABLES["statements"].columns

# Evidence that still counts: its item exists, is not forgotten, and the reader sees it.
_LIVE = (
    "FROM statement_evidence v JOIN items i ON i.workspace = v.workspace AND i.id = v.item_id "
    "WHERE v.statement_id = s.id AND i.tombstoned_at IS NULL"
)


class Statements(ABC):
    """Statements (``model.Statement``) with their evidence, item supersession, and the
    event feed read by sequence number."""

    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...

    @abstractmethod
    def _put_edge(self, conn: sqlite3.Connection, edge: Edge) -> Edge: ...

    # -- statements -------------------------------------------------------------------

    def put_statement(self, statement: Statement) -> tuple[Statement, bool]:
        s = statement
        with self._tx() as conn:
            cur = conn.execute(
                f"INSERT OR IGNORE INTO statements ({', '.join(_STATEMENT)}) "
                f"VALUES ({', '.join('?' * len(_STATEMENT))})",
                ROWS.statement_values(s),
            )
            created = cur.rowcount == 1
            ev = Evidence(s.item_id, s.byte_range, s.text, s.tier, s.confidence, s.origin.at)
            self._add_evidence(conn, s.workspace, s.id, ev)
        found = self.statements(s.workspace, Visibility.everything(), ids=[s.id], live=False)
        return found[0], created

    def add_evidence(self, workspace: str, statement_id: str, evidence: Evidence) -> bool:
        with self._tx() as conn:
            return self._add_evidence(conn, workspace, statement_id, evidence)

    @staticmethod
    def _add_evidence(
        conn: sqlite3.Connection, workspace: str, statement_id: str, ev: Evidence
    ) -> bool:
        cur = conn.execute(
            "INSERT OR IGNORE INTO statement_evidence (workspace, statement_id, item_id, "
            "byte_start, byte_end, text, tier, confidence, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            ROWS.evidence_values(workspace, statement_id, ev),
        )
        return cur.rowcount == 1

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
        types: Sequence[str] | None = None,
        current: bool | None = None,
        conflicted: bool = False,
        live: bool = True,
        limit: int = 500,
    ) -> list[Statement]:
        if limit < 0:
            raise InvalidInput("limit must be >= 0")
        sql = f"SELECT s.*, (SELECT count(*) {_LIVE}) AS n FROM statements s WHERE s.workspace = ?"
        params: list[Any] = [workspace]
        for column, values in (
            ("s.id", ids),
            ("s.subject_id", subject_ids),
            ("s.object_id", object_ids),
            ("s.type", types),
        ):
            if values is not None:
                sql += f" AND {column} IN ({', '.join('?' * len(values))})"
                params += list(values)
        if predicate is not None:
            sql += " AND s.predicate = ?"
            params.append(predicate)
        if item_id is not None:
            sql += (
                " AND EXISTS (SELECT 1 FROM statement_evidence e WHERE e.statement_id = s.id "
                "AND e.workspace = s.workspace AND e.item_id = ?)"
            )
            params.append(item_id)
        if current is True:
            sql += " AND s.superseded_by IS NULL AND s.valid_to IS NULL"
        elif current is False:
            sql += " AND (s.superseded_by IS NOT NULL OR s.valid_to IS NOT NULL)"
        if conflicted:
            sql += " AND s.conflicts != '[]'"
        if visibility.scopes is not None:
            marks = ", ".join("?" * len(visibility.scopes))
            sql += f" AND s.scope IN ({marks})"
            params += sorted(visibility.scopes)
        if live:
            sql += f" AND EXISTS (SELECT 1 {_LIVE}"
            if visibility.scopes is not None:
                sql += f" AND i.scope IN ({', '.join('?' * len(visibility.scopes))})"
                params += sorted(visibility.scopes)
            sql += ")"
        sql += " ORDER BY s.valid_from, s.rowid LIMIT ?"
        params.append(limit)
        return [ROWS.statement_from_row(r) for r in self._conn().execute(sql, params)]

    def evidence(self, workspace: str, statement_id: str, visibility: Visibility) -> list[Evidence]:
        sql = (
            "SELECT v.* FROM statement_evidence v JOIN items i ON i.workspace = v.workspace "
            "AND i.id = v.item_id WHERE v.workspace = ? AND v.statement_id = ? "
            "AND i.tombstoned_at IS NULL"
        )
        params: list[Any] = [workspace, statement_id]
        if visibility.scopes is not None:
            sql += f" AND i.scope IN ({', '.join('?' * len(visibility.scopes))})"
            params += sorted(visibility.scopes)
        rows = self._conn().execute(sql + " ORDER BY v.rowid", params)
        return [ROWS.evidence_from_row(r) for r in rows]

    def end_statement(
        self, workspace: str, statement_id: str, valid_to: datetime, superseded_by: str
    ) -> bool:
        """Close a current statement: it held until ``valid_to``, replaced by
        ``superseded_by``. A statement is closed once; False if it already was."""
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE statements SET valid_to = ?, superseded_by = ? WHERE workspace = ? "
                "AND id = ? AND superseded_by IS NULL",
                (ROWS.time(valid_to), superseded_by, workspace, statement_id),
            )
            return cur.rowcount == 1

    def flag_conflict(self, workspace: str, a: str, b: str) -> None:
        """Mark statements ``a`` and ``b`` as disagreeing with each other (both kept)."""
        with self._tx() as conn:
            for one, other in ((a, b), (b, a)):
                row = conn.execute(
                    "SELECT conflicts FROM statements WHERE workspace = ? AND id = ?",
                    (workspace, one),
                ).fetchone()
                if row is None:
                    continue
                ids = json.loads(row[0])
                if other not in ids:
                    conn.execute(
                        "UPDATE statements SET conflicts = ? WHERE workspace = ? AND id = ?",
                        (json.dumps([*ids, other]), workspace, one),
                    )

    # -- items ------------------------------------------------------------------------

    def entities_named(
        self, workspace: str, values: Sequence[str], visibility: Visibility
    ) -> list[Item]:
        """Entities whose canonical value is one of ``values`` (answerable ones only)."""
        if not values:
            return []
        sql = (
            f"SELECT * FROM items WHERE workspace = ? AND canonical_value IN "
            f"({', '.join('?' * len(values))}) AND class = 'entity' AND tombstoned_at IS NULL"
        )
        params: list[Any] = [workspace, *values]
        if visibility.scopes is not None:
            sql += f" AND scope IN ({', '.join('?' * len(visibility.scopes))})"
            params += sorted(visibility.scopes)
        return [item_from_row(r) for r in self._conn().execute(sql + " ORDER BY rowid", params)]

    def supersede_item(self, edge: Edge) -> bool:
        """Record that item ``edge.src`` supersedes ``edge.dst`` (a ``SUPERSEDES`` edge):
        the old item gets ``superseded_by`` (once; the first successor stays), the new one
        ``supersedes`` (once). False when the old item already had a successor."""
        with self._tx() as conn:
            self._put_edge(conn, edge)
            cur = conn.execute(
                "UPDATE items SET superseded_by = ? WHERE workspace = ? AND id = ? "
                "AND superseded_by IS NULL",
                (edge.src, edge.workspace, edge.dst),
            )
            conn.execute(
                "UPDATE items SET supersedes = ? WHERE workspace = ? AND id = ? "
                "AND supersedes IS NULL",
                (edge.dst, edge.workspace, edge.src),
            )
            return cur.rowcount == 1

    # -- events -----------------------------------------------------------------------

    def events_after(
        self,
        workspace: str,
        after: int,
        *,
        kinds: Sequence[str] | None = None,
        subject: str | None = None,
        limit: int = 100,
    ) -> list[dict[str, object]]:
        """Records after sequence number ``after``, oldest first, each with ``id`` (its
        sequence number), ``kind`` and ``at``."""
        sql = "SELECT rowid, kind, at, record FROM events WHERE workspace = ? AND rowid > ?"
        params: list[Any] = [workspace, after]
        if kinds is not None:
            sql += f" AND kind IN ({', '.join('?' * len(kinds))})"
            params += list(kinds)
        if subject is not None:
            sql += " AND subject = ?"
            params.append(subject)
        out = []
        for rowid, kind, at, record in self._conn().execute(
            sql + " ORDER BY rowid LIMIT ?", [*params, limit]
        ):
            data = json.loads(record)
            data.update(id=rowid, kind=kind, at=at)
            out.append(data)
        return out
