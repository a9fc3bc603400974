"""The approximate vector tier of a large shelf (``adapters/sqlite/coarse.py``): near-exact
on clumped vectors, and never hiding a row, whatever was written while or after it was built.

The thresholds are lowered so that a few thousand rows go through the tier; every search
runs against a real SQLite file written through ``SQLiteStore``.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np

from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.sqlite.coarse import assign, build_centroids, probe_rows
from orgbrain.adapters.sqlite.shelf import Shelf
from orgbrain.adapters.sqlite.vectors import VectorIndex

from .test_vectors import DIM, clustered, conn, db, exact, fill, item, recall

__all__ = ["conn", "db"]  # the fixtures, shared with test_vectors

N = 6000


def tiered() -> VectorIndex:
    """An index whose section shelf goes through the tier above 4,000 rows, reading about
    a third of them."""
    return VectorIndex("w1", DIM, exact_below=500, approx_above=4000, probe_min=2000)


def built(index: VectorIndex, conn: sqlite3.Connection, q: np.ndarray) -> Shelf:
    """Search once (which starts the build), wait for it, search again (which installs it)."""
    index.search(conn, "section", q, 1, None)
    assert index.settle(60)
    index.search(conn, "section", q, 1, None)
    shelf = index._shelves[1]
    assert shelf.files is not None
    return shelf


def test_the_tier_reads_a_part_and_keeps_the_exact_top_50(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    x = clustered(N, 31, centres=20)
    ids = [it.id for it in fill(store, x)]
    index = tiered()
    queries = clustered(20, 32, centres=20)
    shelf = built(index, conn, queries[0])
    recalls = []
    for q in queries:
        rows = shelf._tier_rows(shelf.live)
        assert rows is not None and rows < N  # a part, not every row
        got = index.search(conn, "section", q, 50, None)
        assert len(got) == 50
        recalls.append(recall([i for i, _ in got], [ids[j] for j in exact(x, q, 50)]))
    assert float(np.mean(recalls)) >= 0.95


def test_rows_written_after_the_build_are_found_at_once(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    x = clustered(N, 33)
    items = fill(store, x)
    index = tiered()
    q = clustered(1, 34)[0]
    built(index, conn, q)
    # A new row far from every list's centroid, equal to the query: it must still win.
    odd = -x[:50].mean(axis=0)
    odd = (odd / np.linalg.norm(odd)).astype(np.float32)
    new = store.put_item(item(90_000), odd)
    assert index.search(conn, "section", odd, 1, None)[0][0] == new.id
    # A row moved to another vector follows it; a row taken out of answers is gone.
    moved = store.put_item(replace(items[5], id="ignored"), -q)
    assert index.search(conn, "section", -q, 1, None)[0][0] == moved.id
    store.put_item(replace(new, indexed=False))
    assert new.id not in [i for i, _ in index.search(conn, "section", odd, 50, None)]
    # Many writes make the pending rows stale: grouped again, still found.
    more = clustered(5000, 35)
    added = fill(store, more)
    for j in (0, 2500, 4999):
        assert added[j].id in [i for i, _ in index.search(conn, "section", more[j], 5, None)]
    assert index._shelves[1].files is not None
    assert index._shelves[1].files.pending_n == 0


def test_rows_written_while_building_are_filed(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    x = clustered(N, 36)
    items = fill(store, x)
    index = tiered()
    index.search(conn, "section", x[0], 1, None)  # starts the build
    late = clustered(300, 37)
    added = fill(store, late)
    moved = store.put_item(replace(items[9], id="ignored"), late[0] * -1)
    assert index.settle(60)
    for j in (0, 150, 299):
        assert index.search(conn, "section", late[j], 1, None)[0][0] == added[j].id
    assert index._shelves[1].files is not None
    assert index.search(conn, "section", -late[0], 1, None)[0][0] == moved.id


def test_scopes_and_compaction_through_the_tier(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    x = clustered(N, 38, centres=20)
    items = fill(store, x, scopes=("org", "org", "org", "team:a"))
    index = tiered()
    q = clustered(1, 39, centres=20)[0]
    built(index, conn, q)
    org = [j for j in range(N) if j % 4 != 3]
    got = [i for i, _ in index.search(conn, "section", q, 30, ["org"])]
    assert set(got) <= {items[j].id for j in org}
    assert recall(got, [items[j].id for j in exact(x, q, 30, org)]) >= 0.9
    # Take out a third of the rows: the shelf compacts and its lists follow the slots.
    gone = set(range(0, N, 3)) | set(range(1, N, 3))
    store.put_items([(replace(items[j], indexed=False), None) for j in sorted(gone)])
    kept = [j for j in range(N) if j not in gone]
    got = [i for i, _ in index.search(conn, "section", q, 30, None)]
    assert set(got) <= {items[j].id for j in kept}
    assert recall(got, [items[j].id for j in exact(x, q, 30, kept)]) >= 0.9


def test_below_the_threshold_nothing_is_built(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    x = clustered(3000, 40)
    fill(store, x)
    index = tiered()
    index.search(conn, "section", x[0], 1, None)
    assert index.settle(1)
    index.search(conn, "section", x[0], 1, None)
    assert index._shelves[1].files is None


def test_kmeans_and_probe_sizes() -> None:
    x = clustered(4000, 41, centres=8)
    c = build_centroids(x, 8)
    assert c.shape == (8, DIM)
    assert np.allclose(np.linalg.norm(c, axis=1), 1.0, atol=1e-5)
    owner = assign(x, c)
    assert owner.shape == (4000,) and owner.min() >= 0 and owner.max() < 8
    assert np.bincount(owner, minlength=8).min() > 0
    assert probe_rows(40, least=10) == 10
    assert probe_rows(1_000_000, share=8) == 1_000_000 // 8
