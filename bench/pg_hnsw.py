"""pgvector's HNSW recall@50 on the synthetic brain's section vectors, by how the index
was built: serially, or in parallel (one worker and the leader, as ``bench/backends.py``
builds it), with pgvector's default ``m`` 16 and ``ef_construction`` 64 unless told.

    python -m bench.pg_hnsw [--sections 1000000] [--builds serial,parallel] [--usearch]

``--usearch`` builds the same graph (m, ef_construction) in usearch too, if it is
installed (it is not a dependency), as a reference HNSW outside PostgreSQL.

The vectors are the ones ``bench/_synth.py`` generates for a brain of that size (the same
ones ``bench/backends.py`` measures), in a bare table (``id``, ``embedding vector(384)``),
with no filter: this isolates the graph from the store's SQL. Recall is against exact
float32 search over the same vectors, for 100 SciFact claims.
"""

from __future__ import annotations

import argparse
import os
import statistics
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
import psycopg
from pgvector.psycopg import register_vector

from bench._common import append_results, percentile
from bench._pg import server
from bench._synth import DIM, batches, queries, real_vectors
from orgbrain.adapters.embed_minilm import MiniLMEmbedder

K = 50
BUILDS = {"serial": 0, "parallel": 1}  # max_parallel_maintenance_workers


def section_vectors(n: int, real: int) -> np.ndarray:
    texts, base = real_vectors(real)
    x = np.empty((n, DIM), dtype=np.float32)
    k = 0
    for batch in batches(n, texts, base, size=20_000):
        for item, vec in batch:
            if item.storage_class == "section":
                x[k] = vec
                k += 1
    assert k == n
    return x


def load(conn: psycopg.Connection, x: np.ndarray) -> float:
    t = time.perf_counter()
    conn.execute("CREATE TABLE v (id bigint PRIMARY KEY, embedding vector(384) NOT NULL)")
    head = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
    row_head = struct.pack(">hi", 2, 8)
    vec_head = struct.pack(">ihh", 4 + 4 * DIM, DIM, 0)
    with conn.cursor().copy("COPY v (id, embedding) FROM STDIN (FORMAT BINARY)") as copy:
        copy.write(head)
        big = x.astype(">f4")
        for start in range(0, len(x), 50_000):
            copy.write(
                b"".join(
                    row_head + struct.pack(">q", i) + vec_head + big[i].tobytes()
                    for i in range(start, min(start + 50_000, len(x)))
                )
            )
        copy.write(struct.pack(">h", -1))
    conn.execute("VACUUM ANALYZE v")
    return time.perf_counter() - t


Search = Callable[[np.ndarray], list[int]]


def measure(
    search: Search, x: np.ndarray, qvecs: np.ndarray, truth: list[set[int]]
) -> tuple[float, float, float, float, float]:
    """Recall@50 (mean, 10th percentile, min), similarity kept (the found 50's summed
    similarity to the query over the exact 50's) and p50 ms."""
    recalls, kept, ms = [], [], []
    for q, want in zip(qvecs, truth, strict=True):
        t = time.perf_counter()
        got = search(q)
        ms.append((time.perf_counter() - t) * 1000)
        recalls.append(len(set(got) & want) / K)
        kept.append(float(np.sum(x[got] @ q) / np.sum(x[sorted(want)] @ q)))
    return (
        statistics.fmean(recalls),
        percentile(recalls, 10),
        min(recalls),
        statistics.fmean(kept),
        percentile(ms, 50),
    )


def pg_search(conn: psycopg.Connection, ef: int) -> Search:
    def search(q: np.ndarray) -> list[int]:
        with conn.transaction():
            conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
            rows = conn.execute(
                "SELECT id FROM v ORDER BY embedding <=> %s LIMIT %s", (q, K)
            ).fetchall()
        return [int(r[0]) for r in rows]

    return search


def usearch_index(x: np.ndarray, m: int, ef_construction: int) -> Any:
    """The same graph parameters in usearch (a reference HNSW outside PostgreSQL)."""
    from usearch.index import Index

    index = Index(
        ndim=DIM, metric="cos", dtype="f32", connectivity=m, expansion_add=ef_construction
    )
    index.add(np.arange(len(x)), x, threads=os.cpu_count() or 1)
    return index


def usearch_search(index: Any, ef: int) -> Search:
    def search(q: np.ndarray) -> list[int]:
        index.expansion_search = ef
        return [int(k) for k in index.search(q, K, threads=1).keys]

    return search


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sections", type=int, default=1_000_000)
    ap.add_argument("--builds", default="serial,parallel")
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, default=64)
    ap.add_argument("--usearch", action="store_true", help="also usearch, same m and ef")
    ap.add_argument("--real", type=int, default=40000, help="as bench/backends.py")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    x = section_vectors(args.sections, args.real)
    qvecs = np.asarray(MiniLMEmbedder().embed(queries()[:100]), dtype=np.float32)
    truth = [{int(i) for i in np.argpartition(-(x @ q), K)[:K]} for q in qvecs]
    rows = [
        "| build | build s | ef_search | recall@50 | 10th percentile | min | similarity kept "
        "| p50 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def record(name: str, built: float, ef: int, search: Search) -> None:
        mean, p10, low, kept, p50 = measure(search, x, qvecs, truth)
        rows.append(
            f"| {name} | {built:.0f} | {ef} | {mean:.4f} | {p10:.2f} | {low:.2f} | "
            f"{kept:.4f} | {p50:.1f} |"
        )
        print(rows[-1], flush=True)

    if args.usearch:
        t = time.perf_counter()
        index = usearch_index(x, args.m, args.ef_construction)
        built = time.perf_counter() - t
        for ef in (200, 1000):
            record("usearch (reference)", built, ef, usearch_search(index, ef))
        del index
    with server() as url, psycopg.connect(url, autocommit=True) as conn:
        register_vector(conn)
        print(f"loaded {len(x):,} vectors in {load(conn, x):.0f} s", flush=True)
        for name in args.builds.split(","):
            conn.execute(f"SET max_parallel_maintenance_workers = {BUILDS[name]}")
            t = time.perf_counter()
            conn.execute(
                f"CREATE INDEX v_hnsw ON v USING hnsw (embedding vector_cosine_ops) "
                f"WITH (m = {args.m}, ef_construction = {args.ef_construction})"
            )
            built = time.perf_counter() - t
            for ef in (200, 1000):
                record(f"pgvector, {name}", built, ef, pg_search(conn, ef))
            conn.execute("DROP INDEX v_hnsw")
    body = "\n".join(
        [
            f"pgvector's HNSW alone over the {args.sections:,} section vectors of the synthetic "
            f"brain (a bare table, no filter; m {args.m}, ef_construction "
            f"{args.ef_construction}), 100 SciFact claims, top 50 against exact search.",
            "",
            *rows,
            "",
            "Similarity kept: the found 50's summed cosine similarity to the query over the "
            "exact 50's (1.0: as close as the exact answer).",
            "",
            f"Command: `python -m bench.pg_hnsw --sections {args.sections} "
            f"--builds {args.builds}{' --usearch' if args.usearch else ''}`.",
        ]
    )
    print(body)
    if not args.no_write:
        append_results("Backends side by side", body)


if __name__ == "__main__":
    main()
