"""How well pgvector's HNSW read alone finds the top 50, as ``hnsw.ef_search`` grows: the
first read ``PostgresStore.vector_search`` makes (``approximate_sql``, 100 rows), with no
exact fallback, against exact float32 search over the same rows and scope filter."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import psycopg
from numpy.typing import NDArray
from pgvector.psycopg import register_vector

from bench._common import percentile
from bench._sides import FILTERS, K, exact_top
from bench._synth import WORKSPACE
from orgbrain.adapters.postgres.vectors import approximate_sql

__all__ = ["EF_SEARCH", "Sweep", "hnsw_sweep", "sweep_rows"]

EF_SEARCH = (200, 400, 1000)
"""200 is what ``vector_search`` asks for top 50; 1000 is pgvector's ceiling."""
FILTER = "team:eng member (~90% visible)"


@dataclass
class Sweep:
    ef: int
    recall: list[float]
    ms: list[float]


def hnsw_sweep(
    url: str,
    ids: Sequence[str],
    scopes: NDArray[np.str_],
    x: NDArray[np.float32],
    qvecs: NDArray[np.float32],
) -> list[Sweep]:
    vis, mask_of = FILTERS[FILTER]
    mask = mask_of(scopes)
    truth = [exact_top(x, q, mask) for q in qvecs]
    params: dict[str, object] = {"ws": WORKSPACE, "rows": 2 * K}
    if vis.scopes is not None:
        params["scopes"] = sorted(vis.scopes)
    sql = approximate_sql(x.shape[1], "section", filtered=vis.scopes is not None)
    out = []
    with psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        position = {sid: n for n, sid in enumerate(ids)}
        at = {
            int(pk): position[str(item_id)]
            for pk, item_id in conn.execute("SELECT pk, id FROM items WHERE class = 'section'")
        }
        for ef in EF_SEARCH:
            sweep = Sweep(ef, [], [])
            for q, want in zip(qvecs, truth, strict=True):
                with conn.transaction():
                    conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
                    t = time.perf_counter()
                    rows = conn.execute(sql, {**params, "q": q}).fetchall()
                    sweep.ms.append((time.perf_counter() - t) * 1000)
                got = {at[int(r[0])] for r in rows[:K]}
                sweep.recall.append(len(got & want) / K)
            out.append(sweep)
            print(
                f"ef_search {ef}: recall@50 {statistics.fmean(sweep.recall):.4f}, "
                f"p50 {percentile(sweep.ms, 50):.1f} ms",
                flush=True,
            )
    return out


def sweep_rows(sweeps: dict[int, list[Sweep]]) -> str:
    rows = [
        "| sections | hnsw.ef_search | recall@50 | 10th percentile | min | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for n, by_ef in sweeps.items():
        rows += [
            f"| {n:,} | {s.ef} | {statistics.fmean(s.recall):.4f} | "
            f"{percentile(s.recall, 10):.2f} | {min(s.recall):.2f} | "
            f"{percentile(s.ms, 50):.1f} | {percentile(s.ms, 95):.1f} |"
            for s in by_ef
        ]
    return "\n".join(rows)
