"""PostgreSQL's keyword and vector reads past the small brains of the contract suite: a
keyword search that reads a bounded number of postings per term (and still ranks by exact
BM25 where it can), common terms' document frequencies remembered and counted again as
the brain grows, and filtered vector reads for readers who see little."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import psycopg
import pytest

from orgbrain.adapters.postgres import PostgresStore, keywords
from orgbrain.ids import new_id
from orgbrain.model import Item, Origin, utcnow
from orgbrain.scopes import Visibility

ALL = Visibility.everything()


def note(body: str, *, scope: str = "org") -> Item:
    return Item(
        id=new_id("not"),
        workspace="w1",
        kind="note",
        storage_class="note",
        label="",
        body=body,
        source_key=f"k:{new_id('k')}",
        indexed=True,
        scope=scope,
        origin=Origin("human:test", "test", utcnow()),
    )


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def bm25(items: list[Item], query: list[str]) -> dict[str, float]:
    """BM25 (k1 1.2, b 0.75) of every item over ``query``, counted the long way."""
    docs = {it.id: keywords.document_terms(it.label, it.body) for it in items}
    n = len(docs)
    avgdl = sum(length for _, length in docs.values()) / n
    df = Counter(t for terms, _ in docs.values() for t in terms)
    out = {}
    for id_, (terms, length) in docs.items():
        s = 0.0
        for t in dict.fromkeys(keywords.analyze(" ".join(query))):
            tf = terms.get(t, 0)
            if tf:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avgdl))
        if s:
            out[id_] = s
    return out


@pytest.fixture
def shallow(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read at most 40 postings per term and count document frequencies under 30: the
    cut-short paths, on a brain of hundreds instead of millions."""
    monkeypatch.setattr(keywords, "DEPTH_MIN", 40)
    monkeypatch.setattr(keywords, "DEPTH_PER_HIT", 1)
    monkeypatch.setattr(keywords, "DF_EXACT", 30)


def corpus(rng: np.random.Generator, n: int) -> list[Item]:
    words = ["alpha", "beta", "gamma", "delta", "omega"]
    out = []
    for i in range(n):
        body = " ".join(rng.choice(words, size=int(rng.integers(3, 30))))
        if i % 25 == 0:
            body += " zebra" * int(rng.integers(1, 3))
        out.append(note(f"common {body}", scope="org" if i % 3 else "team:eng"))
    return out


def test_cut_short_terms_still_rank_the_rare_terms_items_by_exact_bm25(
    pg_url: str, shallow: None
) -> None:
    store = PostgresStore(pg_url)
    items = store.put_items([(it, None) for it in corpus(np.random.default_rng(4), 400)])
    query = ["zebra", "alpha", "common"]
    want = sorted(bm25(items, query).items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    got = store.keyword_search("w1", "note", query, 10, ALL)
    assert [i for i, _ in got] == [i for i, _ in want]
    assert all(abs(a - b) < 1e-6 for (_, a), (_, b) in zip(got, want, strict=True))
    # A reader who sees a third: the same ranking over what it can see.
    eng = Visibility(frozenset({"team:eng"}))
    seen = [it for it in items if it.scope == "team:eng"]
    scores = bm25(items, query)
    want_eng = sorted((-scores[it.id], it.id) for it in seen if it.id in scores)[:5]
    got_eng = store.keyword_search("w1", "note", query, 5, eng)
    assert [i for i, _ in got_eng] == [i for _, i in want_eng]
    store.close()


def test_common_terms_document_frequencies_are_remembered_and_counted_again(
    pg_url: str, shallow: None
) -> None:
    store = PostgresStore(pg_url)
    rng = np.random.default_rng(5)
    store.put_items([(it, None) for it in corpus(rng, 200)])
    store.keyword_search("w1", "note", ["common", "zebra"], 5, ALL)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        rows = conn.execute("SELECT term, df, docs FROM kw_df").fetchall()
    assert rows == [("common", 200, 200)]  # zebra (8 documents) is counted every time
    store.put_items([(it, None) for it in corpus(rng, 10)])
    store.keyword_search("w1", "note", ["common"], 5, ALL)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT df FROM kw_df").fetchall() == [(200,)]  # within 10%
    store.put_items([(it, None) for it in corpus(rng, 40)])
    items = store.put_items([(note("zebra common"), None)])
    got = store.keyword_search("w1", "note", ["common"], 5, ALL)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT df, docs FROM kw_df").fetchall() == [(251, 251)]
    assert got[0][0] == items[0].id  # the shortest document, read first
    store.close()


def test_the_search_reads_postings_through_the_impact_index(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.put_items([(note(f"word{i % 7} common"), None) for i in range(300)])
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ANALYZE kw_postings")
        conn.execute("SET enable_seqscan = off")
        plan = conn.execute(
            "EXPLAIN " + keywords._TOP.format(visible="k.scope = ANY(%(scopes)s)"),
            {"ws": "w1", "cls": "note", "terms": ["common"], "depth": 10, "scopes": ["org"]},
        ).fetchall()
    text = " ".join(r[0] for r in plan)
    assert "kw_postings_impact" in text and "Sort" not in text, text
    store.close()
