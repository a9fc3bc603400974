"""Keyword engines side by side: FTS5 and the derived tantivy index behind one Store port.

Both run ``SQLiteStore.keyword_search`` on the same synthetic brain (bench/_synth.py), one
section stream of the real query terms of SciFact claims, as a team member would: class
and scope filters apply. Prints p50/p95, the first search (which loads the tantivy index
from the rows), the agreement of the two top-10s, and appends the table to
docs/benchmarks.md.

    python -m bench.keywords --sections 100000
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench._common import append_results, peak_rss_mb, percentile
from bench._synth import WORKSPACE, build, queries, real_vectors
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.sqlite.store import KeywordEngine
from orgbrain.retrieve.terms import query_terms
from orgbrain.scopes import Visibility

READER = Visibility(frozenset({"org", "team:eng", "user:alice"}))
ENGINES: tuple[KeywordEngine, ...] = ("fts5", "tantivy")


def run(db: Path, engine: KeywordEngine, terms: list[list[str]]) -> dict[str, object]:
    store = SQLiteStore(db, keyword_engine=engine)
    try:
        t = time.perf_counter()
        store.keyword_search(WORKSPACE, "section", ["warm"], 50, READER)
        first = time.perf_counter() - t
        times, tops = [], []
        for ts in terms:
            t = time.perf_counter()
            hits = store.keyword_search(WORKSPACE, "section", ts, 50, READER)
            times.append((time.perf_counter() - t) * 1000)
            tops.append({i for i, _ in hits[:10]})
    finally:
        store.close()
    return {
        "first_s": first,
        "p50": percentile(times, 50),
        "p95": percentile(times, 95),
        "tops": tops,
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sections", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    texts, base = real_vectors(3000)
    terms = [query_terms(q) for q in queries()[: args.queries]]
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp), args.sections, texts, base)
        results = {e: run(Path(tmp) / "brain.sqlite", e, terms) for e in ENGINES}
    a, b = (results[e]["tops"] for e in ENGINES)
    assert isinstance(a, list) and isinstance(b, list)
    overlap = sum(len(x & y) / max(1, len(x)) for x, y in zip(a, b, strict=True)) / len(a)
    rows = ["| engine | p50 ms | p95 ms | first search s |", "|---|---|---|---|"]
    for e in ENGINES:
        r = results[e]
        rows.append(f"| {e} | {r['p50']:.2f} | {r['p95']:.2f} | {r['first_s']:.2f} |")
    body = "\n".join(
        [
            f"`SQLiteStore.keyword_search`, section stream, top 50, {len(terms)} SciFact claims "
            f"(avg {sum(map(len, terms)) / len(terms):.1f} terms) against {args.sections:,} "
            "synthetic sections; the reader is a team member, so class and scope filters "
            "apply. The first search of a fresh store loads the tantivy index from the rows.",
            "",
            *rows,
            "",
            f"Top-10 agreement tantivy vs FTS5: {overlap:.2f} (both BM25; FTS5 stems with "
            "Porter, tantivy with Snowball; both score label and body as one text). "
            f"Peak RSS {peak_rss_mb():.0f} MB. "
            f"Command: `python -m bench.keywords --sections {args.sections}`.",
        ]
    )
    print(body)
    if not args.no_write:
        append_results("Keyword engine", body)


if __name__ == "__main__":
    main()
