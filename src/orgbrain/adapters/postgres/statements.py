"""The store's typed statements, their evidence, item supersession and the event feed:
one part of ``PostgresStore``, kept apart like ``graphlog.py``."""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from ...errors import InvalidInput
from ...model import Edge, Evidence, Item, Statement
from ...scopes import Visibility
from ..records import TABLES
from .db import Connection
from .rows import ROWS, item_from_row

__all__ = ["Statements"]

_STATEMENT = TABLES["statements"].columns

# Evidence that still counts: its item exists and is not forgotten.
_LIVE = (
    "FROM statement_evidence v JOIN items i ON i.workspace = v.workspace AND i.id = v.item_id "
    "WHERE v.statement_id = s.id AND i.tombstoned_at IS NULL"
)


class Statements(ABC):
    """Statements (``model.Statement``) with their evidence, item supersession, and the
    event feed read by sequence number."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _put_edge(self, conn: Connection, edge: Edge) -> Edge: ...

    # -- statements -------------------------------------------------------------------

    def put_statement(self, statement: Statement) -> tuple[Statement, bool]:
        s = statement
        with self._tx() as conn:
            row = conn.execute(
                f"INSERT INTO statements ({', '.join(_STATEMENT)}) "
                f"VALUES ({', '.join(['%s'] * len(_STATEMENT))}) "
                "ON CONFLICT (id) DO NOTHING RETURNING pk",
                ROWS.statement_values(s),
            ).fetchone()
            created = row is not None
            ev = Evidence(s.item_id, s.byte_range, s.text, s.tier, s.confidence, s.origin.at)
            self._add_evidence(conn, s.workspace, s.id, ev)
        found = self.statements(s.workspace, Visibility.everything(), ids=[s.id], live=False)
        return found[0], created

    def add_evidence(self, workspace: str, statement_id: str, evidence: Evidence) -> bool:
        with self._tx() as conn:
            return self._add_evidence(conn, workspace, statement_id, evidence)

    @staticmethod
    def _add_evidence(conn: Connection, workspace: str, statement_id: str, ev: Evidence) -> bool:
        cur = conn.execute(
            "INSERT INTO statement_evidence (workspace, statement_id, item_id, byte_start, "
            "byte_end, text, tier, confidence, at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (statement_id, item_id, byte_start) DO NOTHING",
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
        sql = f"SELECT s.*, (SELECT count(*) {_LIVE}) AS n FROM statements s WHERE s.workspace = %s"
        params: list[Any] = [workspace]
        for column, values in (
            ("s.id", ids),
            ("s.subject_id", subject_ids),
            ("s.object_id", object_ids),
            ("s.type", types),
        ):
            if values is not None:
                sql += f" AND {column} = ANY(%s)"
                params.append(list(values))
        if predicate is not None:
            sql += " AND s.predicate = %s"
            params.append(predicate)
        if item_id is not None:
            sql += (
                " AND EXISTS (SELECT 1 FROM statement_evidence e WHERE e.statement_id = s.id "
                "AND e.workspace = s.workspace AND e.item_id = %s)"
            )
            params.append(item_id)
        if current is True:
            sql += " AND s.superseded_by IS NULL AND s.valid_to IS NULL"
        elif current is False:
            sql += " AND (s.superseded_by IS NOT NULL OR s.valid_to IS NOT NULL)"
        if conflicted:
            sql += " AND s.conflicts <> '[]'"
        if visibility.scopes is not None:
            sql += " AND s.scope = ANY(%s)"
            params.append(sorted(visibility.scopes))
        if live:
            sql += f" AND EXISTS (SELECT 1 {_LIVE}"
            if visibility.scopes is not None:
                sql += " AND i.scope = ANY(%s)"
                params.append(sorted(visibility.scopes))
            sql += ")"
        sql += " ORDER BY s.valid_from, s.pk LIMIT %s"
        params.append(limit)
        with self._read() as conn:
            return [ROWS.statement_from_row(r) for r in conn.execute(sql, params)]

    def evidence(self, workspace: str, statement_id: str, visibility: Visibility) -> list[Evidence]:
        sql = (
            "SELECT v.* FROM statement_evidence v JOIN items i ON i.workspace = v.workspace "
            "AND i.id = v.item_id WHERE v.workspace = %s AND v.statement_id = %s "
            "AND i.tombstoned_at IS NULL"
        )
        params: list[Any] = [workspace, statement_id]
        if visibility.scopes is not None:
            sql += " AND i.scope = ANY(%s)"
            params.append(sorted(visibility.scopes))
        with self._read() as conn:
            return [ROWS.evidence_from_row(r) for r in conn.execute(sql + " ORDER BY v.pk", params)]

    def end_statement(
        self, workspace: str, statement_id: str, valid_to: datetime, superseded_by: str
    ) -> bool:
        """Close a current statement (once): valid until ``valid_to``, replaced by
        ``superseded_by``."""
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE statements SET valid_to = %s, superseded_by = %s WHERE workspace = %s "
                "AND id = %s AND superseded_by IS NULL",
                (valid_to, superseded_by, workspace, statement_id),
            )
            return cur.rowcount == 1

    def flag_conflict(self, workspace: str, a: str, b: str) -> None:
        """Mark statements ``a`` and ``b`` as disagreeing with each other (both kept)."""
        with self._tx() as conn:
            # Both rows locked in one order, so two flaggers never deadlock.
            rows = conn.execute(
                "SELECT id, conflicts FROM statements WHERE workspace = %s AND id = ANY(%s) "
                "ORDER BY id FOR UPDATE",
                (workspace, [a, b]),
            ).fetchall()
            found = {r["id"]: json.loads(r["conflicts"]) for r in rows}
            for one, other in ((a, b), (b, a)):
                ids = found.get(one)
                if ids is None or other in ids:
                    continue
                conn.execute(
                    "UPDATE statements SET conflicts = %s WHERE workspace = %s AND id = %s",
                    (json.dumps([*ids, other]), workspace, one),
                )

    # -- items ------------------------------------------------------------------------

    def entities_named(
        self, workspace: str, values: Sequence[str], visibility: Visibility
    ) -> list[Item]:
        """Entities whose canonical value is one of ``values`` (not forgotten)."""
        if not values:
            return []
        sql = (
            "SELECT * FROM items WHERE workspace = %s AND canonical_value = ANY(%s) "
            "AND class = 'entity' AND tombstoned_at IS NULL"
        )
        params: list[Any] = [workspace, list(values)]
        if visibility.scopes is not None:
            sql += " AND scope = ANY(%s)"
            params.append(sorted(visibility.scopes))
        with self._read() as conn:
            return [item_from_row(r) for r in conn.execute(sql + " ORDER BY pk", params)]

    def supersede_item(self, edge: Edge) -> bool:
        """Record that item ``edge.src`` supersedes ``edge.dst`` (a ``SUPERSEDES`` edge):
        each end's link is set once. False when the old item already had a successor."""
        with self._tx() as conn:
            self._put_edge(conn, edge)
            cur = conn.execute(
                "UPDATE items SET superseded_by = %s WHERE workspace = %s AND id = %s "
                "AND superseded_by IS NULL",
                (edge.src, edge.workspace, edge.dst),
            )
            conn.execute(
                "UPDATE items SET supersedes = %s WHERE workspace = %s AND id = %s "
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
        sql = "SELECT seq, kind, at, record FROM events WHERE workspace = %s AND seq > %s"
        params: list[Any] = [workspace, after]
        if kinds is not None:
            sql += " AND kind = ANY(%s)"
            params.append(list(kinds))
        if subject is not None:
            sql += " AND subject = %s"
            params.append(subject)
        out = []
        with self._read() as conn:
            for r in conn.execute(sql + " ORDER BY seq LIMIT %s", [*params, limit]):
                data = json.loads(r["record"])
                data.update(id=int(r["seq"]), kind=r["kind"], at=r["at"].isoformat())
                out.append(data)
        return out
