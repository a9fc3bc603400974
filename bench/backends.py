"""The embedded backend (SQLite) and the server backend (PostgreSQL with pgvector) side by
side in one run: the same synthetic brain on both, then the same measurements on each in
turn.

    python -m bench.backends [--sizes 100000,1000000] [--parts search,recall,hnsw,...]

Needs the SciFact data (``../shared/data/scifact``: real text for the brain, the queries,
and the BM25 eval) and the ``pgserver`` wheel (PostgreSQL 16 with pgvector 0.6, started
in a folder under /tmp with ``bench/_pg.SETTINGS``).

- **build**: each size's brain is generated once (``bench/_synth.py``: 80% org, 10%
  team:eng, 9% another user's, 1% team:legal) and each batch written to both: SQLite through
  ``put_items``, PostgreSQL by COPY with keys and indexes rebuilt after (``bench/_pg.py``).
- **search**: SciFact claims searched by a team:eng member (scope filters in every
  stream), query embedding included, sides taking turns per query; p50/p95 and where the
  time goes.
- **recall**: ``Store.vector_search`` top 50 of the sections under four scope filters
  (everything, ~90%, ~10% and ~1% visible), against exact float32 search over the same
  vectors; how many answers came back short, and on PostgreSQL how often the search was
  answered exactly (the reader's share too small for an HNSW read, or that read short).
- **hnsw**: PostgreSQL's HNSW read alone (no exact fallback) at ``hnsw.ef_search`` 200,
  400 and 1000: recall@50 for a team:eng member and its latency.
- **writes**: ``add_note`` until durable, into the big brain, 1 and 4 writers.
- **index**: add a folder of text files and ``index_pending`` on fresh brains, against
  the raw embedder on the same texts.
- **scifact**: BM25 nDCG@10 on SciFact (train split) with ``orgbrain eval beir``'s writer
  and scorer, on both, and FTS5 for reference.

Results are appended to docs/benchmarks.md under "Backends side by side".
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import psycopg

from bench import _report as report
from bench._common import DATA, append_results, peak_rss_mb, scifact_texts
from bench._hnsw import hnsw_sweep
from bench._pg import BulkLoader, new_schema, server
from bench._sides import (
    Side,
    fresh_folder,
    index_throughput,
    note_writes,
    scifact_bm25,
    search_latency,
    vector_recall,
)
from bench._synth import DIM, MODEL, WORKSPACE, batches, queries, real_vectors
from bench.index import make_files
from bench.write import ConstantEmbedder
from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.evals.beir import load_beir

PARTS = ("search", "recall", "hnsw", "writes", "index", "scifact")
STORAGE = "constant (storage only)"


def build(n: int, texts: list[str], base: np.ndarray, pg_url: str) -> report.Built:
    """One brain of ``n`` sections, each batch written to both sides."""
    folder = fresh_folder("orgbrain-bench-sqlite-")
    store = SQLiteStore(folder / "brain.sqlite")
    store.bind_embedder(MODEL, DIM)
    loader = BulkLoader(pg_url, MODEL, DIM)
    ids: list[str] = []
    scopes: list[str] = []
    vecs = np.empty((n, DIM), dtype=np.float32)
    sqlite_s = 0.0
    t0 = time.perf_counter()
    for batch in batches(n, texts, base, size=5000):
        t = time.perf_counter()
        store.put_items(batch)
        sqlite_s += time.perf_counter() - t
        loader.add(batch)
        for item, vec in batch:
            if item.storage_class == "section":
                vecs[len(ids)] = vec
                ids.append(item.id)
                scopes.append(item.scope)
        if len(ids) % 100_000 < 5000:
            print(f"  {len(ids):,} sections in {time.perf_counter() - t0:.0f} s", flush=True)
    counts = store.counts(WORKSPACE)
    store.close()
    assert counts.get("section") == n == len(ids), counts
    pg_steps = loader.finish(WORKSPACE)
    return report.Built(
        n=n,
        sqlite=folder,
        pg_url=pg_url,
        sqlite_s=sqlite_s,
        pg_steps=pg_steps,
        ids=ids,
        scopes=np.array(scopes),
        vectors=vecs,
        sqlite_mb=(folder / "brain.sqlite").stat().st_size / 2**20,
        pg_mb=_schema_mb(pg_url),
    )


def _schema_mb(url: str) -> float:
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind = 'r'"
        ).fetchone()
    return float(row[0] if row else 0) / 2**20


def _relations(url: str) -> list[tuple[str, str, float]]:
    """The schema's tables (with their TOAST) and indexes of a megabyte or more, by size."""
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.relname, CASE c.relkind WHEN 'r' THEN 'table' ELSE 'index' END, "
            "CASE c.relkind WHEN 'r' THEN pg_table_size(c.oid) "
            "ELSE pg_relation_size(c.oid) END AS bytes "
            "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'i') "
            "ORDER BY bytes DESC"
        ).fetchall()
    return [(str(name), str(kind), b / 2**20) for name, kind, b in rows if b >= 2**20]


def _drop(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS " + _schema_of(conn) + " CASCADE")


def _schema_of(conn: psycopg.Connection) -> str:
    row = conn.execute("SELECT current_schema()").fetchone()
    assert row is not None
    return str(row[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sizes", default="100000")
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--queries", type=int, default=200, help="SciFact claims searched")
    ap.add_argument("--recall-queries", type=int, default=100)
    ap.add_argument("--notes", type=int, default=200, help="notes written per side")
    ap.add_argument("--minilm-notes", type=int, default=40)
    ap.add_argument("--files", type=int, default=20, help="text files for index throughput")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument(
        "--real",
        type=int,
        default=40000,
        help="real SciFact sentences embedded once (cached): the mixtures' ingredients",
    )
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    if unknown := parts - set(PARTS):
        sys.exit(f"unknown parts {sorted(unknown)}: use {','.join(PARTS)}")
    scifact = DATA / "scifact"
    if not (scifact / "corpus.jsonl").is_file():
        sys.exit(f"this bench needs the SciFact data in {scifact} (docs/eval.md)")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    load_start = os.getloadavg()
    texts, base = real_vectors(args.real)
    qs = queries()[: args.queries]
    minilm = MiniLMEmbedder()
    qvecs = np.asarray(minilm.embed(qs[: args.recall_queries]), dtype=np.float32)
    notes = [f"{t}. {body[:300]}" for t, body in scifact_texts(args.notes)]
    out = report.Results(sizes=sizes, command=_command(args))
    with server() as pg_url:
        for n in sizes:
            print(f"building {n:,} sections on both sides ...", flush=True)
            url = new_schema(pg_url)
            built = build(n, texts, base, url)
            out.built.append(built.summary())
            out.relations[n] = _relations(url)
            print(report.relation_rows({n: out.relations[n]}), flush=True)
            print(out.built[-1], flush=True)
            blobs = fresh_folder("orgbrain-bench-blobs-")
            sides = [
                Side("SQLite", built.sqlite, built.sqlite),
                Side("PostgreSQL", url, blobs),
            ]
            try:
                if "search" in parts:
                    out.search[n] = search_latency(sides, minilm, qs)
                    print(report.search_rows({n: out.search[n]}), flush=True)
                if "recall" in parts:
                    out.recall[n] = vector_recall(
                        sides, built.ids, built.scopes, built.vectors, qvecs
                    )
                    print(report.recall_rows({n: out.recall[n]}), flush=True)
                if "hnsw" in parts:
                    out.hnsw[n] = hnsw_sweep(url, built.ids, built.scopes, built.vectors, qvecs)
                if "writes" in parts:
                    # Writes into the brain built in MiniLM's space: the stand-in says so.
                    storage = ConstantEmbedder(name=MODEL)
                    out.writes[n] = [
                        (STORAGE, 1, note_writes(sides, storage, notes, 1)),
                        (STORAGE, 4, note_writes(sides, storage, notes, 4)),
                        ("MiniLM", 1, note_writes(sides, minilm, notes[: args.minilm_notes], 1)),
                    ]
                    print(report.write_rows({n: out.writes[n]}), flush=True)
            finally:
                shutil.rmtree(built.sqlite, ignore_errors=True)
                shutil.rmtree(blobs, ignore_errors=True)
                _drop(url)
            del built
        if "index" in parts:
            out.index = index_throughput(
                lambda: _fresh_sides(pg_url), minilm, make_files(args.files), args.rounds
            )
        if "scifact" in parts:
            out.scifact = scifact_bm25(
                _fresh_sides(pg_url),
                load_beir(scifact, split="train"),
                [("SQLite, FTS5 engine", {"keyword_engine": "fts5"})],
            )
    for folder in _MADE:
        shutil.rmtree(folder, ignore_errors=True)
    out.load = (load_start, os.getloadavg())
    out.rss_mb = peak_rss_mb()
    body = report.render(out)
    print(body)
    if not args.no_write:
        append_results("Backends side by side", body)


_MADE: list[Path] = []


def _fresh_sides(pg_url: str) -> list[Side]:
    """Two empty brains (removed at the end of the run, with the server)."""
    folder = fresh_folder("orgbrain-bench-fresh-")
    _MADE.append(folder)
    return [Side("SQLite", folder, folder), Side("PostgreSQL", new_schema(pg_url), folder / "pg")]


def _command(args: argparse.Namespace) -> str:
    extra = "" if args.parts == ",".join(PARTS) else f" --parts {args.parts}"
    return f"python -m bench.backends --sizes {args.sizes}{extra}"


if __name__ == "__main__":
    main()
