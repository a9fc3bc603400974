"""BM25 on PostgreSQL against the embedded engines, on SciFact: quality and latency.

Every SciFact document becomes an answerable note (title as label, text as body, as
``orgbrain eval beir`` writes them) in three stores: SQLite ranked by tantivy (the
default), SQLite ranked by FTS5, and PostgreSQL (BM25 in SQL over its postings tables,
adapters/postgres/keywords.py). Each query's terms (``retrieve.terms.query_terms``, what a
search sends) go to ``Store.keyword_search`` over notes, top 10; nDCG@10 against the
qrels, p50/p95 per search. No embedding is needed: this is the keyword stream alone,
which is what the ``bm25`` plan ranks with.

    python -m bench.postgres_keywords                  # a pgserver in a temp folder
    python -m bench.postgres_keywords --url postgresql://...   # a real server (empty schema)
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from bench._common import DATA, append_results, percentile
from orgbrain.adapters.postgres import PostgresStore
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.evals.beir import KEY_PREFIX, load_beir
from orgbrain.evals.metrics import mean, ndcg_at_k
from orgbrain.ids import new_id
from orgbrain.model import Item, Origin, utcnow
from orgbrain.ports import Store
from orgbrain.retrieve.terms import query_terms
from orgbrain.scopes import Visibility

WS = "scifact"
ALL = Visibility.everything()


@contextmanager
def local_server() -> Iterator[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        home = Path(tempfile.mkdtemp(prefix="orgbrain-bench-pg-"))
        server = pgserver.get_server(home / "data", cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


def fill(store: Store, docs: list[tuple[str, str, str]]) -> float:
    t = time.perf_counter()
    now = utcnow()
    batch: list[tuple[Item, None]] = []
    for doc_id, title, text in docs:
        body = (text or title).strip()
        item = Item(
            id=new_id("not"),
            workspace=WS,
            kind="note",
            storage_class="note",
            label=title.strip() or body.split("\n")[0][:200],
            body=body,
            source_key=KEY_PREFIX + doc_id,
            indexed=True,
            scope="org",
            origin=Origin("human:bench", "bench", now),
        )
        batch.append((item, None))
        if len(batch) == 500:
            store.put_items(batch)
            batch = []
    if batch:
        store.put_items(batch)
    return time.perf_counter() - t


def score(
    store: Store, queries: dict[str, str], qrels: dict[str, dict[str, int]]
) -> dict[str, float]:
    keys = {it.id: it.source_key[len(KEY_PREFIX) :] for it in all_items(store)}
    ndcgs, times = [], []
    for qid, text in queries.items():
        terms = query_terms(text)
        t = time.perf_counter()
        hits = store.keyword_search(WS, "note", terms, 10, ALL)
        times.append((time.perf_counter() - t) * 1000)
        ndcgs.append(ndcg_at_k([keys[i] for i, _ in hits], qrels[qid], 10))
    return {"ndcg": mean(ndcgs), "p50": percentile(times, 50), "p95": percentile(times, 95)}


def all_items(store: Store) -> Iterator[Item]:
    from orgbrain.ports import ItemFilter

    cursor = None
    while True:
        page = store.list_items(WS, ItemFilter(), ALL, limit=1000, cursor=cursor)
        yield from page.items
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DATA / "scifact")
    ap.add_argument("--split", default="train")
    ap.add_argument("--url", default=None, help="a PostgreSQL URL (default: a local pgserver)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    data = load_beir(args.data, args.split)
    docs = [(d.id, d.title, d.text) for d in data.corpus]
    rows = ["| store | nDCG@10 | p50 ms | p95 ms | load s |", "|---|---|---|---|---|"]
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for engine in ("tantivy", "fts5"):
            s = SQLiteStore(Path(tmp) / "brain.sqlite", keyword_engine=engine)  # type: ignore[arg-type]
            load = fill(s, docs) if engine == "tantivy" else 0.0
            score(s, {"warm": "warm up"}, {"warm": {}})
            results[f"sqlite-{engine}"] = {**score(s, data.queries, data.qrels), "load": load}
            s.close()
        with local_server() if args.url is None else _given(args.url) as url:
            pg = PostgresStore(url)
            load = fill(pg, docs)
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE")  # what autovacuum does soon after a load
            results["postgres"] = {**score(pg, data.queries, data.qrels), "load": load}
            pg.close()
    for name, r in results.items():
        rows.append(
            f"| {name} | {r['ndcg']:.3f} | {r['p50']:.2f} | {r['p95']:.2f} | {r['load']:.1f} |"
        )
    body = "\n".join(
        [
            f"`Store.keyword_search` over notes, top 10, SciFact {args.split} "
            f"({len(docs):,} docs, {len(data.queries)} queries; the query's terms as a search "
            "sends them). Load is `put_items` of every doc in batches of 500, no vectors "
            "(FTS5 reads the rows tantivy's store wrote); PostgreSQL is searched after a "
            "`VACUUM ANALYZE`, as autovacuum leaves a loaded table.",
            "",
            *rows,
        ]
    )
    print(body)
    if not args.no_write:
        append_results("PostgreSQL keyword ranking (BM25 in SQL)", body)


@contextmanager
def _given(url: str) -> Iterator[str]:
    yield url


if __name__ == "__main__":
    main()
