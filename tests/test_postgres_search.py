"""PostgreSQL's keyword and vector reads past the small brains of the contract suite: a
keyword search that reads a bounded number of postings per term (and still ranks by exact
BM25 where it can), common terms' document frequencies remembered and counted again as
the brain grows, and filtered vector reads for readers who see little."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import psycopg
import psycopg.rows
import pytest
from pgvector.psycopg import register_vector

from orgbrain.adapters.postgres import PostgresStore, keywords, vectors
from orgbrain.adapters.postgres.vectors import visible_share
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
            {
                "ws": "w1",
                "cls": "note",
                "terms": ["common"],
                "idf": [1.0],
                "k1p": 2.2,
                "k1b": 0.3,
                "norm": 0.1,
                "depth": 10,
                "best": 10,
                "scopes": ["org"],
            },
        ).fetchall()
    lines = [r[0] for r in plan]
    at = next(i for i, line in enumerate(lines) if "kw_postings_impact" in line)
    # Each term's postings come out of the index in order, straight into the limit.
    assert "Index Only Scan" in lines[at] and "Limit" in lines[at - 1], lines
    store.close()


# -- vectors ------------------------------------------------------------------------------


def scoped_brain(pg_url: str, n: int) -> tuple[PostgresStore, list[Item], np.ndarray]:
    """``n`` notes of random 16-dim vectors: 80% org, 15% team:eng, 5% user:bob."""
    store = PostgresStore(pg_url)
    store.bind_embedder("toy", 16)
    rng = np.random.default_rng(6)
    vecs = np.stack([unit(rng.standard_normal(16)) for _ in range(n)])
    scopes = ["org"] * 16 + ["team:eng"] * 3 + ["user:bob"]
    items = store.put_items([(note(f"n{i}", scope=scopes[i % 20]), vecs[i]) for i in range(n)])
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE item_vectors")
    return store, items, vecs


def test_the_visible_share_is_estimated_without_reading_rows(pg_url: str) -> None:
    store, _, _ = scoped_brain(pg_url, 2000)
    with psycopg.connect(pg_url, autocommit=True, row_factory=psycopg.rows.dict_row) as conn:
        share = {
            name: visible_share(conn, "note", True, {"ws": "w1", "scopes": scopes})
            for name, scopes in {"bob": ["user:bob"], "eng": ["org", "team:eng"]}.items()
        }
        everything = visible_share(conn, "note", False, {"ws": "w1"})
        elsewhere = visible_share(conn, "note", False, {"ws": "w2"})
    assert 0.03 < share["bob"] < 0.07 and 0.9 < share["eng"] < 1.0
    assert everything == 1.0 and elsewhere < 0.01
    store.close()


def test_the_exact_read_is_one_range_of_the_covering_index(pg_url: str) -> None:
    store, _, vecs = scoped_brain(pg_url, 2000)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        register_vector(conn)
        plan = conn.execute(
            "EXPLAIN " + vectors._exact_sql(16, "note", filtered=True),
            {"ws": "w1", "q": vecs[0], "limit": 10, "scopes": ["user:bob"]},
        ).fetchall()
    text = " ".join(r[0] for r in plan)
    assert "Index Only Scan using item_vectors_visible" in text, text
    store.close()


@pytest.mark.parametrize("scopes", [["user:bob"], ["team:eng"], ["org", "team:eng"]])
def test_readers_who_see_little_get_the_exact_answer(pg_url: str, scopes: list[str]) -> None:
    store, items, vecs = scoped_brain(pg_url, 3000)
    rng = np.random.default_rng(7)
    seen = [i for i, it in enumerate(items) if it.scope in scopes]
    for _ in range(5):
        q = unit(rng.standard_normal(16))
        got = store.vector_search("w1", "note", q, 20, Visibility(frozenset(scopes)))
        exact = sorted(seen, key=lambda i: -float(vecs[i] @ q))[:20]
        assert len(got) == 20
        overlap = len({i for i, _ in got} & {items[i].id for i in exact})
        assert overlap >= 18  # the HNSW read (90%) may miss one or two; the exact, none
    if scopes == ["user:bob"]:  # 5% visible: 40 items would need ef_search 1,200
        got = store.vector_search("w1", "note", q, 40, Visibility(frozenset(scopes)))
        exact = sorted(seen, key=lambda i: -float(vecs[i] @ q))[:40]
        assert [i for i, _ in got] == [items[i].id for i in exact]
    store.close()


def test_an_older_brain_gets_the_covering_index_from_its_migration(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.bind_embedder("toy", 16)
    store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP INDEX item_vectors_visible")
        conn.execute("DELETE FROM migrations WHERE name = '0012_vectors_by_scope'")
    PostgresStore(pg_url).close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        names = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes")}
    assert "item_vectors_visible" in names
