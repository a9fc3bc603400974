"""The store's edges, workspace counts and event log: one part of ``SQLiteStore``, kept
apart so the items and search stay readable (``store.py``)."""

from __future__ import annotations

import json
import re
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime

from ...errors import InvalidInput
from ...model import Edge, utcnow
from ...scopes import Visibility
from .rows import edge_from_row, edge_values

__all__ = ["EdgesAndLog"]

_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class EdgesAndLog(ABC):
    """Edges (``HAS_SECTION``, ``MENTIONS`` and the rest), counts and the event log over
    the store's connection and write transaction."""

    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...

    @abstractmethod
    def _visible_sql(self, visibility: Visibility, alias: str = "") -> tuple[str, list[str]]: ...

    # -- edges --------------------------------------------------------------------------

    def put_edge(self, edge: Edge) -> Edge:
        with self._tx() as conn:
            return self._put_edge(conn, edge)

    def _put_edge(self, conn: sqlite3.Connection, edge: Edge) -> Edge:
        dedupe = str(edge.props.get("dedupe", "")) if edge.props else ""
        conn.execute(
            "INSERT OR IGNORE INTO edges (id, workspace, type, src, dst, dedupe, props, "
            "origin_actor, origin_source, origin_run, origin_at) VALUES (:id, :workspace, "
            ":type, :src, :dst, :dedupe, :props, :origin_actor, :origin_source, :origin_run, "
            ":origin_at)",
            edge_values(edge, dedupe),
        )
        row = conn.execute(
            "SELECT * FROM edges WHERE workspace = ? AND type = ? AND src = ? AND dst = ? "
            "AND dedupe = ?",
            (edge.workspace, edge.type, edge.src, edge.dst, dedupe),
        ).fetchone()
        return edge_from_row(row)

    def edges_of(
        self,
        workspace: str,
        item_id: str,
        visibility: Visibility,
        *,
        types: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[Edge]:
        if limit is not None and limit < 0:
            raise InvalidInput("limit must be >= 0")
        sql = "SELECT e.* FROM edges e WHERE e.workspace = ? AND (e.src = ? OR e.dst = ?)"
        params: list[object] = [workspace, item_id, item_id]
        if types:
            sql += f" AND e.type IN ({', '.join('?' * len(types))})"
            params += list(types)
        if visibility.scopes is not None:
            scopes = sorted(visibility.scopes)
            marks = ", ".join("?" * len(scopes))
            for end in ("src", "dst"):
                sql += (
                    f" AND EXISTS (SELECT 1 FROM items i WHERE i.workspace = e.workspace "
                    f"AND i.id = e.{end} AND i.scope IN ({marks}))"
                )
                params += scopes
        sql += " ORDER BY e.rowid"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [edge_from_row(r) for r in self._conn().execute(sql, params)]

    def workspaces(self) -> list[str]:
        rows = self._conn().execute("SELECT DISTINCT workspace FROM items ORDER BY workspace")
        return [str(r[0]) for r in rows]

    def counts(self, workspace: str) -> dict[str, int]:
        rows = (
            self._conn()
            .execute(
                "SELECT class, indexed, tombstoned_at IS NOT NULL, count(*) FROM items "
                "WHERE workspace = ? GROUP BY 1, 2, 3",
                (workspace,),
            )
            .fetchall()
        )
        out: dict[str, int] = {}
        for cls, indexed, forgotten, n in rows:
            if forgotten:  # out of every read: counted apart
                out["forgotten"] = out.get("forgotten", 0) + n
                continue
            out[cls] = out.get(cls, 0) + n
            if indexed:
                out[f"{cls}_indexed"] = out.get(f"{cls}_indexed", 0) + n
        edges = (
            self._conn()
            .execute("SELECT count(*) FROM edges WHERE workspace = ?", (workspace,))
            .fetchone()
        )
        out["edges"] = int(edges[0])
        return out

    # -- events -------------------------------------------------------------------------

    def log_event(self, workspace: str, kind: str, record: dict[str, object]) -> int:
        actor = record.get("actor")
        subject = record.get("item_id")  # the item an event is about, for its story
        with self._tx() as conn:
            cur = conn.execute(
                "INSERT INTO events (workspace, kind, at, actor, subject, record) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    workspace,
                    kind,
                    utcnow().isoformat(),
                    None if actor is None else str(actor),
                    None if subject is None else str(subject),
                    json.dumps(record, default=str),
                ),
            )
            return int(cur.lastrowid or 0)

    def events(
        self, workspace: str, kind: str, *, limit: int = 20, actor: str | None = None
    ) -> list[dict[str, object]]:
        sql = "SELECT rowid, at, record FROM events WHERE workspace = ? AND kind = ?"
        params: list[object] = [workspace, kind]
        if actor is not None:
            sql += " AND actor = ?"
            params.append(actor)
        sql += " ORDER BY rowid DESC LIMIT ?"
        out = []
        for rowid, at, record in self._conn().execute(sql, [*params, limit]):
            data = json.loads(record)
            data.update(id=rowid, at=at)
            out.append(data)
        return out

    def event_counts(
        self,
        workspace: str,
        kind: str,
        by: Sequence[str],
        *,
        since: datetime | None = None,
        actor: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> dict[tuple[object, ...], int]:
        if isinstance(by, str) or not all(isinstance(f, str) and _FIELD.fullmatch(f) for f in by):
            raise InvalidInput(f"event fields are plain names, not {by!r}")
        # Each field as JSON, so a value keeps its type: one field through `->` (JSON text,
        # NULL when absent); several through one json_extract, which parses the record once
        # (not once a field) and gives them as a JSON array (null when absent).
        if len(by) > 1:
            picked = f"json_extract(record, {', '.join('?' for _ in by)}), "
        else:
            picked = "".join("record -> ?, " for _ in by)
        sql = f"SELECT {picked}count(*) FROM events WHERE workspace = ? AND kind = ?"
        params: list[object] = [*(f"$.{f}" for f in by), workspace, kind]
        if since is not None:
            # Stamps are UTC ISO text (log_event), so text order is time order.
            at = since if since.tzinfo else since.replace(tzinfo=UTC)
            sql += " AND at >= ?"
            params.append(at.astimezone(UTC).isoformat())
        if actor is not None:
            sql += " AND actor = ?"
            params.append(actor)
        if scopes is not None:
            if not scopes:
                return {}
            sql += f" AND record ->> '$.scope' IN ({', '.join('?' * len(scopes))})"
            params += list(scopes)
        if by:
            sql += " GROUP BY 1"
        out: dict[tuple[object, ...], int] = {}
        for row in self._conn().execute(sql, params):
            if not row[-1]:
                continue  # no GROUP BY: one row, a count of 0 when nothing matched
            if len(by) > 1:
                key = tuple(json.loads(row[0]))
            else:
                key = tuple(None if v is None else json.loads(v) for v in row[: len(by)])
            out[key] = out.get(key, 0) + int(row[-1])
        return out
