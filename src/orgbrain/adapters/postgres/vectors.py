"""Vectors in pgvector: one row per vector of an answerable item (``item_vectors``), an
HNSW index (cosine) per storage class, and a search that still fills ``limit`` with
visible items when filters cut into the approximate results.

pgvector 0.6 has no iterative index scans: an HNSW scan yields at most ``hnsw.ef_search``
rows, and the workspace and scope filters apply after it, so a filtered search can come
back short. Each search therefore widens ``ef_search`` to several times what it needs
(an item of several vectors takes several rows), and when the filtered, approximate
answer still holds fewer than ``limit`` items it is answered again exactly: every visible
row of the workspace and class, scored and grouped by item (a btree index on workspace,
class and scope narrows that read; a short answer means few rows passed the filters,
which is when the exact read is cheap).
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from ...errors import InvalidInput
from ...model import STORAGE_CLASSES
from ...ports import ScoredId, Vector
from .db import Connection

__all__ = ["MAX_VECTORS", "approximate_sql", "vector_rows", "vector_search"]

MAX_VECTORS = 64
"""The most vectors one item's embedding may hold (its own and its passages')."""
_EF_MAX = 1000  # pgvector's ceiling for hnsw.ef_search
_ROWS_PER_ITEM = 2  # rows read per item asked for: an item may hold several vectors


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
        conn.execute(
            "SELECT set_config('hnsw.ef_search', %s, true)",
            (str(min(_EF_MAX, max(40, 2 * rows_wanted))),),
        )
        near = conn.execute(
            approximate_sql(dim, storage_class, filtered=filtered), params
        ).fetchall()
        best: dict[int, float] = {}
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
