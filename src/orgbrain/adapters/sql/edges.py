"""The store's edges and workspace counts, for both SQL stores: one part of the store,
kept apart so the items and search stay readable (each backend's ``graphlog.py`` adds
its event log)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...errors import InvalidInput
from ...model import Edge
from ...scopes import Visibility
from ..records import TABLES
from .dialect import Connection, Part
from .forgotten import forgotten_among, refused

__all__ = ["Edges"]

_EDGE = TABLES["edges"].columns
_INSERT = (
    f"INSERT INTO edges ({', '.join(_EDGE)}) VALUES ({', '.join('?' * len(_EDGE))}) "
    "ON CONFLICT (workspace, type, src, dst, dedupe) DO NOTHING RETURNING *"
)


class Edges(Part):
    """Edges (``HAS_SECTION``, ``MENTIONS`` and the rest) and counts."""

    _drop_if_lone: Callable[[Connection, str, str], bool]
    """``Purge``'s (``purge.py``), on the store that has both parts."""

    def put_edge(self, edge: Edge) -> Edge:
        """The edge (``_put_edge``); ``Conflict`` when an end is a forgotten item
        (``forgotten.py``). A refused mention's entity goes when nothing else names it:
        made for this mention, it would keep the forgotten item's words."""
        with self._tx() as conn:
            gone = forgotten_among(conn, self._dialect, edge.workspace, [edge.src, edge.dst])
            if not gone:
                return self._put_edge(conn, edge)
            if edge.type == "MENTIONS" and edge.src in gone:
                self._drop_if_lone(conn, edge.workspace, edge.dst)
        raise refused(gone)

    def _put_edge(self, conn: Connection, edge: Edge) -> Edge:
        """The edge, or the one already here between its ends with its type and dedupe."""
        d = self._dialect
        dedupe = str(edge.props.get("dedupe", "")) if edge.props else ""
        values = d.rows.edge_values(edge, dedupe)
        # fetchall: SQLite keeps an INSERT ... RETURNING open until it is read to the end.
        rows = conn.execute(d.sql(_INSERT), [values[c] for c in _EDGE]).fetchall()
        if not rows:
            rows = conn.execute(
                d.sql(
                    "SELECT * FROM edges WHERE workspace = ? AND type = ? AND src = ? "
                    "AND dst = ? AND dedupe = ?"
                ),
                (edge.workspace, edge.type, edge.src, edge.dst, dedupe),
            ).fetchall()
        return d.rows.edge_from_row(rows[0])

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
        d = self._dialect
        sql = "SELECT e.* FROM edges e WHERE e.workspace = ? AND (e.src = ? OR e.dst = ?)"
        where, params = self._edge_filter(types, visibility)
        sql += f"{where} ORDER BY e.{d.pos}"
        params = [workspace, item_id, item_id, *params]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        with self._read() as conn:
            rows = conn.execute(d.sql(sql), params).fetchall()
        return [d.rows.edge_from_row(r) for r in rows]

    def edges_around(
        self,
        workspace: str,
        item_ids: Sequence[str],
        visibility: Visibility,
        *,
        types: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> dict[str, list[Edge]]:
        if limit is not None and limit < 0:
            raise InvalidInput("limit must be >= 0")
        ids = list(dict.fromkeys(item_ids))
        if not ids or limit == 0:
            return {}
        d = self._dialect
        where, more = self._edge_filter(types, visibility)
        in_src, src_ids = d.any_of("e.src", ids)
        in_dst, dst_ids = d.any_of("e.dst", ids)
        # Each edge once per end among the ids (a loop once), numbered per end, oldest
        # first, so that ``limit`` bounds the read for every id as ``edges_of`` does.
        ends = (
            f"SELECT e.*, e.{d.pos} AS at_, e.src AS end_ FROM edges e "
            f"WHERE e.workspace = ? AND {in_src}{where} UNION ALL "
            f"SELECT e.*, e.{d.pos} AS at_, e.dst AS end_ FROM edges e "
            f"WHERE e.workspace = ? AND {in_dst} AND e.src <> e.dst{where}"
        )
        sql = (
            "SELECT * FROM (SELECT x.*, row_number() OVER "
            f"(PARTITION BY x.end_ ORDER BY x.at_) AS n_ FROM ({ends}) x) y"
        )
        params: list[Any] = [workspace, *src_ids, *more, workspace, *dst_ids, *more]
        if limit is not None:
            sql += " WHERE n_ <= ?"
            params.append(limit)
        sql += " ORDER BY end_, n_"
        with self._read() as conn:
            rows = conn.execute(d.sql(sql), params).fetchall()
        out: dict[str, list[Edge]] = {}
        for r in rows:
            out.setdefault(r["end_"], []).append(d.rows.edge_from_row(r))
        return out

    def _edge_filter(
        self, types: Sequence[str] | None, visibility: Visibility
    ) -> tuple[str, list[Any]]:
        """The conditions (each starting `` AND``) that an edge ``e`` is of ``types`` and
        that ``visibility`` allows both its ends, and their parameters."""
        d = self._dialect
        sql, params = "", []
        if types:
            cond, more = d.any_of("e.type", types)
            sql, params = f" AND {cond}", more
        if visibility.scopes is not None:
            cond, more = d.any_of("i.scope", sorted(visibility.scopes))
            for end in ("src", "dst"):
                sql += (
                    " AND EXISTS (SELECT 1 FROM items i WHERE i.workspace = e.workspace "
                    f"AND i.id = e.{end} AND {cond})"
                )
                params += more
        return sql, params

    def workspaces(self) -> list[str]:
        with self._read() as conn:
            rows = conn.execute("SELECT DISTINCT workspace FROM items ORDER BY workspace")
            return [str(r["workspace"]) for r in rows]

    def counts(self, workspace: str) -> dict[str, int]:
        d = self._dialect
        with self._read() as conn:
            rows = conn.execute(
                d.sql(
                    "SELECT class, indexed, tombstoned_at IS NOT NULL AS forgotten, "
                    "count(*) AS n FROM items WHERE workspace = ? GROUP BY 1, 2, 3"
                ),
                (workspace,),
            ).fetchall()
            edges = conn.execute(
                d.sql("SELECT count(*) AS n FROM edges WHERE workspace = ?"), (workspace,)
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
        out["edges"] = int(edges["n"])
        return out
