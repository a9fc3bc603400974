"""The store's typed statements, their evidence and item supersession, for both SQL
stores: one part of the store, kept apart like its edges and log."""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...errors import InvalidInput
from ...model import Edge, Evidence, Item, Statement
from ...scopes import Visibility
from ..records import TABLES
from .dialect import Connection, Part
from .forgotten import forgotten_among, refused

__all__ = ["Statements"]

_STATEMENT = TABLES["statements"].columns
_EVIDENCE = TABLES["evidence"].columns

# Evidence that still counts: its item exists and is not forgotten.
_LIVE = (
    "FROM statement_evidence v JOIN items i ON i.workspace = v.workspace AND i.id = v.item_id "
    "WHERE v.statement_id = s.id AND i.tombstoned_at IS NULL"
)


class Statements(Part):
    """Statements (``model.Statement``) with their evidence, and item supersession."""

    @abstractmethod
    def _put_edge(self, conn: Connection, edge: Edge) -> Edge: ...

    # -- statements -------------------------------------------------------------------

    def put_statement(self, statement: Statement) -> tuple[Statement, bool]:
        d, s = self._dialect, statement
        with self._tx() as conn:
            if gone := forgotten_among(conn, d, s.workspace, [s.item_id]):
                raise refused(gone)
            cur = conn.execute(
                d.sql(
                    f"INSERT INTO statements ({', '.join(_STATEMENT)}) "
                    f"VALUES ({', '.join('?' * len(_STATEMENT))}) ON CONFLICT (id) DO NOTHING"
                ),
                d.rows.statement_values(s),
            )
            created = cur.rowcount == 1
            ev = Evidence(s.item_id, s.byte_range, s.text, s.tier, s.confidence, s.origin.at)
            self._add_evidence(conn, s.workspace, s.id, ev)
        found = self.statements(s.workspace, Visibility.everything(), ids=[s.id], live=False)
        return found[0], created

    def add_evidence(self, workspace: str, statement_id: str, evidence: Evidence) -> bool:
        with self._tx() as conn:
            if gone := forgotten_among(conn, self._dialect, workspace, [evidence.item_id]):
                raise refused(gone)
            return self._add_evidence(conn, workspace, statement_id, evidence)

    def _add_evidence(
        self, conn: Connection, workspace: str, statement_id: str, ev: Evidence
    ) -> bool:
        d = self._dialect
        cur = conn.execute(
            d.sql(
                f"INSERT INTO statement_evidence ({', '.join(_EVIDENCE)}) "
                f"VALUES ({', '.join('?' * len(_EVIDENCE))}) "
                "ON CONFLICT (statement_id, item_id, byte_start) DO NOTHING"
            ),
            d.rows.evidence_values(workspace, statement_id, ev),
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
        item_ids: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        linked_to: Sequence[str] | None = None,
        current: bool | None = None,
        conflicted: bool = False,
        live: bool = True,
        limit: int = 500,
    ) -> list[Statement]:
        if limit < 0:
            raise InvalidInput("limit must be >= 0")
        d = self._dialect
        # Each of these names the statements by id, read by index first: as a subquery
        # or an OR in the statements' own WHERE, the planner scans the workspace instead.
        for narrowed in (
            None if item_id is None else self._stated_in(workspace, [item_id]),
            None if item_ids is None else self._stated_in(workspace, item_ids),
            None if linked_to is None else self._linked(workspace, linked_to),
        ):
            if narrowed is not None:
                ids = narrowed if ids is None else sorted(set(ids) & set(narrowed))
        if ids is not None and not ids:
            return []
        sql = f"SELECT s.*, (SELECT count(*) {_LIVE}) AS n FROM statements s WHERE s.workspace = ?"
        params: list[Any] = [workspace]
        for column, values in (
            ("s.id", ids),
            ("s.subject_id", subject_ids),
            ("s.object_id", object_ids),
            ("s.type", types),
        ):
            if values is not None:
                cond, more = d.any_of(column, values)
                sql, params = f"{sql} AND {cond}", params + more
        if predicate is not None:
            sql += " AND s.predicate = ?"
            params.append(predicate)
        if current is True:
            sql += " AND s.superseded_by IS NULL AND s.valid_to IS NULL"
        elif current is False:
            sql += " AND (s.superseded_by IS NOT NULL OR s.valid_to IS NOT NULL)"
        if conflicted:
            sql += " AND s.conflicts <> '[]'"
        if visibility.scopes is not None:
            cond, more = d.any_of("s.scope", sorted(visibility.scopes))
            sql, params = f"{sql} AND {cond}", params + more
        if live:
            # ... and the reader sees at least one of them.
            sql += f" AND EXISTS (SELECT 1 {_LIVE}"
            if visibility.scopes is not None:
                cond, more = d.any_of("i.scope", sorted(visibility.scopes))
                sql, params = f"{sql} AND {cond}", params + more
            sql += ")"
        sql += f" ORDER BY s.valid_from, s.{d.pos} LIMIT ?"
        params.append(limit)
        with self._read() as conn:
            return [d.rows.statement_from_row(r) for r in conn.execute(d.sql(sql), params)]

    def _stated_in(self, workspace: str, item_ids: Sequence[str]) -> list[str]:
        """The ids of the statements with evidence in any of ``item_ids``."""
        d = self._dialect
        cond, more = d.any_of("item_id", item_ids)
        sql = f"SELECT DISTINCT statement_id FROM statement_evidence WHERE workspace = ? AND {cond}"
        with self._read() as conn:
            rows = conn.execute(d.sql(sql), [workspace, *more]).fetchall()
        return [r["statement_id"] for r in rows]

    def _linked(self, workspace: str, ids: Sequence[str]) -> list[str]:
        """The ids on the other side of the supersession links of ``ids``: those that one
        of them replaced, and those that replaced one of them."""
        d = self._dialect
        older, more = d.any_of("superseded_by", ids)
        newer, most = d.any_of("id", ids)
        sql = (
            f"SELECT id AS linked FROM statements WHERE workspace = ? AND {older} UNION "
            "SELECT superseded_by AS linked FROM statements WHERE workspace = ? "
            f"AND superseded_by IS NOT NULL AND {newer}"
        )
        with self._read() as conn:
            rows = conn.execute(d.sql(sql), [workspace, *more, workspace, *most]).fetchall()
        return [r["linked"] for r in rows]

    def evidence(self, workspace: str, statement_id: str, visibility: Visibility) -> list[Evidence]:
        d = self._dialect
        sql = (
            "SELECT v.* FROM statement_evidence v JOIN items i ON i.workspace = v.workspace "
            "AND i.id = v.item_id WHERE v.workspace = ? AND v.statement_id = ? "
            "AND i.tombstoned_at IS NULL"
        )
        params: list[Any] = [workspace, statement_id]
        if visibility.scopes is not None:
            cond, more = d.any_of("i.scope", sorted(visibility.scopes))
            sql, params = f"{sql} AND {cond}", params + more
        with self._read() as conn:
            rows = conn.execute(d.sql(f"{sql} ORDER BY v.{d.pos}"), params).fetchall()
        return [d.rows.evidence_from_row(r) for r in rows]

    def end_statement(
        self, workspace: str, statement_id: str, valid_to: datetime, superseded_by: str
    ) -> bool:
        """Close a current statement: it held until ``valid_to``, replaced by
        ``superseded_by``. A statement is closed once; False if it already was."""
        d = self._dialect
        with self._tx() as conn:
            cur = conn.execute(
                d.sql(
                    "UPDATE statements SET valid_to = ?, superseded_by = ? WHERE workspace = ? "
                    "AND id = ? AND superseded_by IS NULL"
                ),
                (d.rows.time(valid_to), superseded_by, workspace, statement_id),
            )
            return cur.rowcount == 1

    def flag_conflict(self, workspace: str, a: str, b: str) -> None:
        """Mark statements ``a`` and ``b`` as disagreeing with each other (both kept)."""
        d = self._dialect
        with self._tx() as conn:
            # Both rows locked in one order, so two flaggers never deadlock.
            rows = conn.execute(
                d.sql(
                    "SELECT id, conflicts FROM statements WHERE workspace = ? AND id IN (?, ?) "
                    f"ORDER BY id{d.lock_rows}"
                ),
                (workspace, a, b),
            ).fetchall()
            found = {r["id"]: json.loads(r["conflicts"]) for r in rows}
            for one, other in ((a, b), (b, a)):
                ids = found.get(one)
                if ids is None or other in ids:
                    continue
                conn.execute(
                    d.sql("UPDATE statements SET conflicts = ? WHERE workspace = ? AND id = ?"),
                    (json.dumps([*ids, other]), workspace, one),
                )

    # -- items ------------------------------------------------------------------------

    def entities_named(
        self, workspace: str, values: Sequence[str], visibility: Visibility
    ) -> list[Item]:
        """Entities whose canonical value is one of ``values`` (answerable ones only)."""
        if not values:
            return []
        d = self._dialect
        named, params = d.any_of("canonical_value", values)
        sql = (
            f"SELECT * FROM items WHERE workspace = ? AND {named} "
            "AND class = 'entity' AND tombstoned_at IS NULL"
        )
        params = [workspace, *params]
        if visibility.scopes is not None:
            cond, more = d.any_of("scope", sorted(visibility.scopes))
            sql, params = f"{sql} AND {cond}", params + more
        with self._read() as conn:
            rows = conn.execute(d.sql(f"{sql} ORDER BY {d.pos}"), params).fetchall()
        return [d.rows.item_from_row(r) for r in rows]

    def supersede_item(self, edge: Edge) -> bool:
        """Record that item ``edge.src`` supersedes ``edge.dst`` (a ``SUPERSEDES`` edge):
        the old item gets ``superseded_by`` (once; the first successor stays), the new one
        ``supersedes`` (once). False when the old item already had a successor."""
        with self._tx() as conn:
            return self._supersede(conn, edge)

    def _supersede(self, conn: Connection, edge: Edge) -> bool:
        """``supersede_item`` in ``conn``'s transaction (a write's own, ``put_items``)."""
        d = self._dialect
        if gone := forgotten_among(conn, d, edge.workspace, [edge.src, edge.dst]):
            raise refused(gone)
        self._put_edge(conn, edge)
        cur = conn.execute(
            d.sql(
                "UPDATE items SET superseded_by = ? WHERE workspace = ? AND id = ? "
                "AND superseded_by IS NULL"
            ),
            (edge.src, edge.workspace, edge.dst),
        )
        conn.execute(
            d.sql(
                "UPDATE items SET supersedes = ? WHERE workspace = ? AND id = ? "
                "AND supersedes IS NULL"
            ),
            (edge.dst, edge.workspace, edge.src),
        )
        return cur.rowcount == 1
