"""The store's edges, workspace counts and event log: one part of ``PostgresStore``, kept
apart so the items and search stay readable (``store.py``)."""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

from ...errors import InvalidInput
from ...model import Edge, utcnow
from ...scopes import Visibility
from .db import Connection
from .rows import edge_from_row, edge_values

__all__ = ["EdgesAndLog"]

_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class EdgesAndLog(ABC):
    """Edges (``HAS_SECTION``, ``MENTIONS`` and the rest), counts and the event log."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[Connection]: ...

    # -- edges --------------------------------------------------------------------------

    def put_edge(self, edge: Edge) -> Edge:
        with self._tx() as conn:
            return self._put_edge(conn, edge)

    def _put_edge(self, conn: Connection, edge: Edge) -> Edge:
        dedupe = str(edge.props.get("dedupe", "")) if edge.props else ""
        values = edge_values(edge, dedupe)
        row = conn.execute(
            "INSERT INTO edges (id, workspace, type, src, dst, dedupe, props, origin_actor, "
            "origin_source, origin_run, origin_at) VALUES (%(id)s, %(workspace)s, %(type)s, "
            "%(src)s, %(dst)s, %(dedupe)s, %(props)s, %(origin_actor)s, %(origin_source)s, "
            "%(origin_run)s, %(origin_at)s) "
            "ON CONFLICT (workspace, type, src, dst, dedupe) DO NOTHING RETURNING *",
            values,
        ).fetchone()
        if row is None:
            row = conn.execute(
                "SELECT * FROM edges WHERE workspace = %s AND type = %s AND src = %s "
                "AND dst = %s AND dedupe = %s",
                (edge.workspace, edge.type, edge.src, edge.dst, dedupe),
            ).fetchone()
        assert row is not None
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
        sql = "SELECT e.* FROM edges e WHERE e.workspace = %s AND (e.src = %s OR e.dst = %s)"
        params: list[Any] = [workspace, item_id, item_id]
        if types:
            sql += " AND e.type = ANY(%s)"
            params.append(list(types))
        if visibility.scopes is not None:
            scopes = sorted(visibility.scopes)
            for end in ("src", "dst"):
                sql += (
                    " AND EXISTS (SELECT 1 FROM items i WHERE i.workspace = e.workspace "
                    f"AND i.id = e.{end} AND i.scope = ANY(%s))"
                )
                params.append(scopes)
        sql += " ORDER BY e.pk"
        if limit is not None:
            sql += " LIMIT %s"
            params.append(limit)
        with self._read() as conn:
            return [edge_from_row(r) for r in conn.execute(sql, params)]

    def workspaces(self) -> list[str]:
        with self._read() as conn:
            rows = conn.execute("SELECT DISTINCT workspace FROM items ORDER BY workspace")
            return [str(r["workspace"]) for r in rows]

    def counts(self, workspace: str) -> dict[str, int]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT class, indexed, tombstoned_at IS NOT NULL AS forgotten, count(*) AS n "
                "FROM items WHERE workspace = %s GROUP BY 1, 2, 3",
                (workspace,),
            ).fetchall()
            edges = conn.execute(
                "SELECT count(*) AS n FROM edges WHERE workspace = %s", (workspace,)
            ).fetchone()
        out: dict[str, int] = {}
        for r in rows:
            cls, n = r["class"], int(r["n"])
            if r["forgotten"]:  # out of every read: counted apart
                out["forgotten"] = out.get("forgotten", 0) + n
                continue
            out[cls] = out.get(cls, 0) + n
            if r["indexed"]:
                out[f"{cls}_indexed"] = out.get(f"{cls}_indexed", 0) + n
        out["edges"] = 0 if edges is None else int(edges["n"])
        return out

    # -- events -------------------------------------------------------------------------

    def log_event(self, workspace: str, kind: str, record: dict[str, object]) -> int:
        actor = record.get("actor")
        subject = record.get("item_id")  # the item an event is about, for its story
        with self._tx() as conn:
            # One writer per workspace at a time takes a sequence number and commits, so
            # numbers become visible in order: a reader of events after N (events_after)
            # never passes one that commits later with a smaller number.
            conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext('orgbrain-events:' || %s))", (workspace,)
            )
            row = conn.execute(
                "INSERT INTO events (workspace, kind, at, actor, subject, record) "
                "VALUES (%s, %s, %s, %s, %s, %s) RETURNING seq",
                (
                    workspace,
                    kind,
                    utcnow(),
                    None if actor is None else str(actor),
                    None if subject is None else str(subject),
                    json.dumps(record, default=str),
                ),
            ).fetchone()
        assert row is not None
        return int(row["seq"])

    def events(
        self, workspace: str, kind: str, *, limit: int = 20, actor: str | None = None
    ) -> list[dict[str, object]]:
        sql = "SELECT seq, at, record FROM events WHERE workspace = %s AND kind = %s"
        params: list[object] = [workspace, kind]
        if actor is not None:
            sql += " AND actor = %s"
            params.append(actor)
        sql += " ORDER BY seq DESC LIMIT %s"
        out = []
        with self._read() as conn:
            for r in conn.execute(sql, [*params, limit]):
                data = json.loads(r["record"])
                data.update(id=int(r["seq"]), at=r["at"].isoformat())
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
        # ``->`` gives each field as JSON (NULL when absent), so a value keeps its type.
        picked = "".join(f"(record::jsonb -> %s::text)::text AS f{i}, " for i in range(len(by)))
        sql = f"SELECT {picked}count(*) AS n FROM events WHERE workspace = %s AND kind = %s"
        params: list[object] = [*by, workspace, kind]
        if since is not None:
            sql += " AND at >= %s"
            params.append(since if since.tzinfo else since.replace(tzinfo=UTC))
        if actor is not None:
            sql += " AND actor = %s"
            params.append(actor)
        if scopes is not None:
            if not scopes:
                return {}
            sql += " AND record::jsonb ->> 'scope' = ANY(%s)"
            params.append(list(scopes))
        if by:
            sql += " GROUP BY " + ", ".join(str(i + 1) for i in range(len(by)))
        out: dict[tuple[object, ...], int] = {}
        with self._read() as conn:
            for row in conn.execute(sql, params):
                values = list(row.values())
                if not values[-1]:
                    continue  # no GROUP BY: one row, a count of 0 when nothing matched
                key = tuple(None if v is None else json.loads(v) for v in values[: len(by)])
                out[key] = out.get(key, 0) + int(values[-1])
        return out
