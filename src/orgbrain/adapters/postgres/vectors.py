"""Vectors in pgvector: one row per vector of an answerable item (``item_vectors``), an
HNSW index (cosine) per storage class, and a search that still fills ``limit`` with
visible items when filters cut into the approximate results.

pgvector 0.6 has no iterative index scans: an HNSW scan yields at most ``hnsw.ef_search``
rows, and the workspace and scope filters apply after it, so a filtered search can come
back short. Each search therefore first asks the planner what share of the class's rows
the reader may see (two plans, no rows read: ``visible_share``) and widens ``ef_search``
so that the read should still hold ``limit`` visible items with a margin (at least twice
the rows it needs: an item of several vectors takes several rows). When that would be
past pgvector's ceiling of 1,000, or the filtered approximate answer still holds fewer
than ``limit`` items, the search is answered exactly: every visible row of the workspace
and class, scored and grouped by item. That read is one range of the covering btree
``item_vectors_visible`` (workspace, class, scope, with each row's item and vector;
migration ``0012``, vectors of up to ``schema.COVER_MAX_DIM`` dimensions), so its cost
follows the rows the reader may see, not the size of the brain.
"""

from __future__ import annotations

import math
from collections.abc import Collection

import numpy as np

from ...errors import InvalidInput
from ...model import STORAGE_CLASSES
from ...ports import ScoredId, Vector
from .db import Connection

__all__ = [
    "MAX_VECTORS",
    "approximate_sql",
    "ef_search_for",
    "vector_rows",
    "vector_search",
    "visible_share",
]

MAX_VECTORS = 64
"""The most vectors one item's embedding may hold (its own and its passages')."""
_EF_MAX = 1000  # pgvector's ceiling for hnsw.ef_search
_ROWS_PER_ITEM = 2  # rows read per item asked for: an item may hold several vectors
_EF_MARGIN = 1.5
"""The HNSW read is this many times wider than the items asked for divided by the
estimated share of rows the reader sees."""


def vector_rows(embedding: Vector | None, dim: int | None) -> np.ndarray | None:
    """The embedding as rows of float32 vectors, checked; None for none."""
    if embedding is None:
        return None
    vec = np.asarray(embedding, dtype=np.float32)
    width = int(vec.shape[-1]) if vec.ndim else 0
    if vec.ndim not in (1, 2) or width == 0 or vec.size == 0:
        raise InvalidInput("an embedding is one vector, or one row per vector")
    if dim is not None and width != dim:
        raise InvalidInput(f"embedding has {width} dims, brain has {dim}")
    rows = vec.reshape(-1, width)
    if rows.shape[0] > MAX_VECTORS:
        raise InvalidInput(f"an item holds at most {MAX_VECTORS} vectors, not {rows.shape[0]}")
    if not np.isfinite(rows).all():
        raise InvalidInput("an embedding holds a NaN or an infinity")
    return rows


def approximate_sql(dim: int, storage_class: str, *, filtered: bool) -> str:
    """The first read of a search: the ``rows`` nearest vectors through the class's HNSW
    index, then the workspace (and, ``filtered``, the ``scopes``) filter. The class and
    dimension are written into the statement (the caller has checked both) so the
    planner can match that class's partial expression index."""
    return (
        f"SELECT item_pk, embedding::vector({dim}) <=> %(q)s AS d FROM item_vectors "
        f"WHERE {_where(storage_class, filtered)} "
        f"ORDER BY embedding::vector({dim}) <=> %(q)s LIMIT %(rows)s"
    )


def _exact_sql(dim: int, storage_class: str, *, filtered: bool) -> str:
    """Every visible row scored, each item by its best: the answer when the first read
    came up short."""
    return (
        f"SELECT item_pk, min(embedding::vector({dim}) <=> %(q)s) AS d FROM item_vectors "
        f"WHERE {_where(storage_class, filtered)} "
        "GROUP BY item_pk ORDER BY d, item_pk LIMIT %(limit)s"
    )


def _where(storage_class: str, filtered: bool) -> str:
    where = f"class = '{storage_class}' AND workspace = %(ws)s"
    return where + " AND scope = ANY(%(scopes)s)" if filtered else where


def vector_search(
    conn: Connection,
    workspace: str,
    storage_class: str,
    query: Vector,
    limit: int,
    scopes: Collection[str] | None,
    dim: int,
) -> list[ScoredId]:
    q = np.asarray(query, dtype=np.float32).reshape(-1)
    if q.shape[0] != dim:
        raise InvalidInput(f"query has {q.shape[0]} dims, the store has {dim}")
    if storage_class not in STORAGE_CLASSES or limit <= 0:
        return []
    if scopes is not None and not scopes:
        return []
    filtered = scopes is not None
    rows_wanted = limit * _ROWS_PER_ITEM
    params: dict[str, object] = {"ws": workspace, "q": q, "limit": limit, "rows": rows_wanted}
    if scopes is not None:
        params["scopes"] = sorted(scopes)
    with conn.transaction():
        ef = ef_search_for(conn, storage_class, filtered, params, limit)
        best: dict[int, float] = {}
        if ef is not None:
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
            near = conn.execute(
                approximate_sql(dim, storage_class, filtered=filtered), params
            ).fetchall()
            for r in near:
                best.setdefault(int(r["item_pk"]), float(r["d"]))
        if len(best) < limit:  # the filters cut into it, or there are only so many
            exact = conn.execute(
                _exact_sql(dim, storage_class, filtered=filtered), params
            ).fetchall()
            best = {int(r["item_pk"]): float(r["d"]) for r in exact}
        top = sorted(best.items(), key=lambda kv: (kv[1], kv[0]))[:limit]
        if not top:
            return []
        ids = conn.execute(
            "SELECT pk, id FROM items WHERE pk = ANY(%s)", ([pk for pk, _ in top],)
        ).fetchall()
    by_pk = {int(r["pk"]): str(r["id"]) for r in ids}
    return [(by_pk[pk], 1.0 - d) for pk, d in top if pk in by_pk]


def visible_share(
    conn: Connection, storage_class: str, filtered: bool, params: dict[str, object]
) -> float:
    """The planner's estimate of the share of the class's vector rows the search may see
    (its workspace, and its scopes when ``filtered``): two plans, no rows read."""
    seen = _estimate(
        conn, f"SELECT 1 FROM item_vectors WHERE {_where(storage_class, filtered)}", params
    )
    every = _estimate(conn, f"SELECT 1 FROM item_vectors WHERE class = '{storage_class}'", {})
    return min(1.0, seen / max(every, 1.0))


def _estimate(conn: Connection, sql: str, params: dict[str, object]) -> float:
    row = conn.execute("EXPLAIN (FORMAT JSON) " + sql, params).fetchone()
    assert row is not None
    plan = next(iter(row.values()))
    return float(plan[0]["Plan"]["Plan Rows"])


def ef_search_for(
    conn: Connection,
    storage_class: str,
    filtered: bool,
    params: dict[str, object],
    limit: int,
) -> int | None:
    """How wide the HNSW read must be for ``limit`` items to pass the filters (with a
    margin), by the estimated share of rows the reader sees; at least twice the rows
    read. None when that is past pgvector's ceiling: the search goes straight to the
    exact read of the visible rows."""
    share = visible_share(conn, storage_class, filtered, params)
    need = _EF_MARGIN * limit / max(share, 1e-9)
    if need > _EF_MAX:
        return None
    return int(min(_EF_MAX, max(40, 2 * limit * _ROWS_PER_ITEM, math.ceil(need))))
