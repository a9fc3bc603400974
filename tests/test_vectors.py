"""The SQLite store's vector index: exact when small, near-exact when large, never stale.

The int8-scan path is forced on a few thousand vectors by lowering ``exact_below``; every
search runs against a real SQLite file written through ``SQLiteStore``.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.sqlite.shelf import EXACT_BELOW, quantise
from orgbrain.adapters.sqlite.vectors import VectorIndex
from orgbrain.errors import InvalidInput
from orgbrain.ids import new_id
from orgbrain.model import Item, Origin, StorageClass, utcnow
from orgbrain.scopes import Visibility

DIM = 384
ALL = Visibility.everything()
F32 = NDArray[np.float32]


def clustered(n: int, seed: int, centres: int = 60) -> F32:
    """Unit vectors in clumps around fixed centres: every seed draws from one distribution,
    as queries and documents embedded by one model do."""
    rng = np.random.default_rng(seed)
    c = np.random.default_rng(0).standard_normal((centres, DIM)).astype(np.float32)
    x = c[rng.integers(0, centres, n)] + 0.9 * rng.standard_normal((n, DIM)).astype(np.float32)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def item(i: int, *, cls: StorageClass = "section", scope: str = "org", key: str = "") -> Item:
    return Item(
        id=new_id(cls[:3]),
        workspace="w1",
        kind=cls,
        storage_class=cls,
        label=f"row{i}",
        body=f"row {i}",
        source_key=key or f"k{i}",
        indexed=True,
        scope=scope,
        origin=Origin("human:test", "test", utcnow()),
    )


@pytest.fixture
def db(tmp_path: Path) -> Iterator[tuple[SQLiteStore, Path]]:
    path = tmp_path / "brain.sqlite"
    store = SQLiteStore(path)
    store.bind_embedder("toy", DIM)
    yield store, path
    store.close()


@pytest.fixture
def conn(db: tuple[SQLiteStore, Path]) -> Iterator[sqlite3.Connection]:
    """A second connection to the same file, as another process would hold."""
    c = sqlite3.connect(db[1], isolation_level=None, check_same_thread=False)
    yield c
    c.close()


def fill(store: SQLiteStore, x: F32, scopes: Sequence[str] = ("org",)) -> list[Item]:
    out: list[Item] = []
    for start in range(0, len(x), 1000):
        out += store.put_items(
            [
                (item(i, scope=scopes[i % len(scopes)]), x[i])
                for i in range(start, min(start + 1000, len(x)))
            ]
        )
    return out


def exact(x: F32, q: F32, k: int, rows: Sequence[int] | None = None) -> list[int]:
    idx = np.arange(len(x)) if rows is None else np.asarray(rows)
    s = x[idx] @ q
    return [int(idx[i]) for i in np.argsort(-s, kind="stable")[:k]]


def recall(got: Sequence[str], want: Sequence[str]) -> float:
    return len(set(got) & set(want)) / len(want)


def test_small_shelf_is_exact(db: tuple[SQLiteStore, Path], conn: sqlite3.Connection) -> None:
    store, _ = db
    x = clustered(600, 1)
    ids = [it.id for it in fill(store, x)]
    index = VectorIndex("w1", DIM)
    assert 600 <= EXACT_BELOW
    for q in clustered(5, 2):
        got = index.search(conn, "section", q, 10, None)
        want = exact(x, q, 10)
        assert [i for i, _ in got] == [ids[j] for j in want]
        assert np.allclose([s for _, s in got], x[want] @ q, atol=1e-6)


def test_large_shelf_recalls_exact_top_50(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    x = clustered(3000, 3)
    ids = [it.id for it in fill(store, x)]
    row_of = {i: j for j, i in enumerate(ids)}
    index = VectorIndex("w1", DIM, exact_below=500)
    recalls = []
    for q in clustered(20, 4):
        got = index.search(conn, "section", q, 50, None)
        assert len(got) == 50
        scores = [s for _, s in got]
        assert scores == sorted(scores, reverse=True)
        # Candidates are rescored in float32: the scores are the exact cosines.
        assert np.allclose(scores, x[[row_of[i] for i, _ in got]] @ q, atol=1e-5)
        recalls.append(recall([i for i, _ in got], [ids[j] for j in exact(x, q, 50)]))
    assert float(np.mean(recalls)) >= 0.95


def test_scope_filter_fills_top_k_with_visible_rows(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    scopes = [f"team:t{i}" for i in range(10)]
    x = clustered(3000, 5)
    items = fill(store, x, scopes)
    index = VectorIndex("w1", DIM, exact_below=200)
    by_id = {it.id: it for it in items}
    visible = [j for j, it in enumerate(items) if it.scope == "team:t3"]
    for q in clustered(10, 6):
        # 300 visible rows: above exact_below, so the int8 scan runs with the mask.
        got = [i for i, _ in index.search(conn, "section", q, 50, {"team:t3", "user:nobody"})]
        assert len(got) == 50
        assert {by_id[i].scope for i in got} == {"team:t3"}
        assert recall(got, [items[j].id for j in exact(x, q, 50, visible)]) >= 0.9
    assert index.search(conn, "section", x[0], 10, {"team:absent"}) == []
    assert index.search(conn, "section", x[0], 10, set()) == []


def test_tiny_visible_subset_is_exact_and_complete(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    x = clustered(2000, 8)
    fill(store, x)
    secret = store.put_items([(item(9000 + i, scope="user:ann"), x[i]) for i in range(7)])
    index = VectorIndex("w1", DIM, exact_below=100)
    got = index.search(conn, "section", x[0], 10, {"user:ann"})
    assert got[0][0] == secret[0].id
    assert {i for i, _ in got} == {s.id for s in secret}


def test_storage_class_filter(db: tuple[SQLiteStore, Path], conn: sqlite3.Connection) -> None:
    store, _ = db
    x = clustered(1500, 9)
    q = x[0]
    near = x[np.argsort(-(x @ q))[:100]]
    # The hundred rows nearest the query are files; sections must still fill top-k.
    files = store.put_items([(item(i, cls="file", key=f"f{i}"), v) for i, v in enumerate(near)])
    sections = fill(store, x[1:])
    for exact_below in (EXACT_BELOW, 100):
        index = VectorIndex("w1", DIM, exact_below=exact_below)
        got = index.search(conn, "section", q, 20, None)
        assert len(got) == 20 and {i for i, _ in got} <= {s.id for s in sections}
        assert index.search(conn, "file", q, 1, None)[0][0] == files[0].id
        assert index.search(conn, "note", q, 5, None) == []
        assert index.search(conn, "no-such-class", q, 5, None) == []


def test_a_reclassified_row_moves_shelf(db: tuple[SQLiteStore, Path]) -> None:
    store, _ = db
    x = clustered(3, 10)
    a = store.put_item(item(0, cls="note", key="same"), x[0])
    assert store.vector_search("w1", "note", x[0], 1, ALL)[0][0] == a.id
    store.put_item(item(0, cls="file", key="same"), x[0])
    assert store.vector_search("w1", "note", x[0], 5, ALL) == []
    assert store.vector_search("w1", "file", x[0], 1, ALL)[0][0] == a.id


def test_other_writers_are_caught_up_on_the_scan_path(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    writer, path = db
    x = clustered(1200, 11)
    items = fill(writer, x)
    index = VectorIndex("w1", DIM, exact_below=300)
    q = clustered(1, 12)[0]
    assert index.search(conn, "section", q, 1, None)[0][0] == items[exact(x, q, 1)[0]].id
    # A new row equal to the query wins; a moved row follows its new vector.
    other = SQLiteStore(path)
    try:
        new = other.put_item(item(5000), q)
        assert index.search(conn, "section", q, 1, None)[0] == (new.id, pytest.approx(1.0))
        moved = other.put_item(replace(items[7], id="ignored"), -q)
        assert moved.id == items[7].id
        assert index.search(conn, "section", -q, 1, None)[0][0] == items[7].id
        assert items[7].id not in [i for i, _ in index.search(conn, "section", x[7], 50, None)]
        other.put_item(replace(new, indexed=False))
        assert new.id not in [i for i, _ in index.search(conn, "section", q, 50, None)]
    finally:
        other.close()


def test_deletions_and_compaction(db: tuple[SQLiteStore, Path], conn: sqlite3.Connection) -> None:
    store, _ = db
    x = clustered(2400, 13)
    items = fill(store, x)
    index = VectorIndex("w1", DIM, exact_below=200)
    index.search(conn, "section", x[0], 1, None)
    gone = set(range(0, 2400, 3)) | set(range(1, 2400, 3))  # two thirds: forces a compaction
    store.put_items([(replace(items[j], indexed=False), None) for j in sorted(gone)])
    kept = [j for j in range(2400) if j not in gone]
    assert len(index) == 2400
    for q in clustered(5, 14):
        got = [i for i, _ in index.search(conn, "section", q, 30, None)]
        assert set(got) <= {items[j].id for j in kept}
        assert recall(got, [items[j].id for j in exact(x, q, 30, kept)]) >= 0.95
    assert len(index) == len(kept)
    again = store.put_items([(replace(items[0]), x[0])])
    assert index.search(conn, "section", x[0], 1, None)[0][0] == again[0].id


def test_reopen_and_nothing_persisted_beside_the_database(tmp_path: Path) -> None:
    path = tmp_path / "brain.sqlite"
    store = SQLiteStore(path)
    store.bind_embedder("toy", DIM)
    x = clustered(50, 15)
    items = fill(store, x)
    assert store.vector_search("w1", "section", x[3], 1, ALL)[0][0] == items[3].id
    store.close()
    assert {p.name for p in tmp_path.iterdir()} <= {
        "brain.sqlite",
        "brain.sqlite-wal",
        "brain.sqlite-shm",
    }
    again = SQLiteStore(path)
    try:
        assert again.vector_search("w1", "section", x[3], 1, ALL)[0][0] == items[3].id
    finally:
        again.close()


_CRASHING_WRITER = """
import os, signal, sys
import numpy as np
from orgbrain.adapters.sqlite import SQLiteStore
sys.path.insert(0, sys.argv[2])
from test_vectors import clustered, item
store = SQLiteStore(sys.argv[1])
with store._tx() as conn:
    store._put(conn, item(777, key="torn"), clustered(1, 16)[0])
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_writer_killed_mid_transaction_leaves_search_correct(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, path = db
    x = clustered(800, 17)
    items = fill(store, x)
    index = VectorIndex("w1", DIM, exact_below=100)
    q = clustered(1, 16)[0]
    before = index.search(conn, "section", q, 5, None)
    proc = subprocess.run(
        [sys.executable, "-c", _CRASHING_WRITER, str(path), str(Path(__file__).parent)],
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr.decode()
    assert index.search(conn, "section", q, 5, None) == before
    fresh = VectorIndex("w1", DIM, exact_below=100)
    assert fresh.search(conn, "section", q, 5, None) == before
    assert store.get_by_source_key("w1", "torn", ALL, scope="org") is None
    assert before[0][0] == items[exact(x, q, 1)[0]].id


def test_concurrent_searches_while_writing(db: tuple[SQLiteStore, Path]) -> None:
    store, _ = db
    x = clustered(1000, 18)
    fill(store, x)
    errors: list[BaseException] = []

    def search() -> None:
        try:
            for i in range(30):
                got = store.vector_search("w1", "section", x[i], 5, ALL)
                assert len(got) == 5
        except BaseException as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=search) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(20):
        store.put_item(item(2000 + i), x[i])
    for t in threads:
        t.join()
    assert errors == []


def test_quantise_round_trips_dot_products() -> None:
    x = clustered(200, 19)
    x[0] = 0.0
    codes, scales = quantise(x)
    assert codes.dtype == np.int8 and not np.isnan(scales).any()
    q = x[1]
    qc, qs = quantise(q[None])
    approx = (codes.astype(np.int32) @ qc[0].astype(np.int32)) * scales * qs[0]
    assert np.max(np.abs(approx - x @ q)) < 0.02


def test_a_query_of_the_wrong_dimension_is_refused(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    fill(store, clustered(3, 20))
    with pytest.raises(InvalidInput, match="dims"):
        VectorIndex("w1", DIM).search(conn, "section", np.ones(8, dtype=np.float32), 3, None)


def test_an_older_database_file_rebuilds_the_index(tmp_path: Path) -> None:
    """If the watermark goes backwards (a restored backup), nothing newer may linger."""
    x = clustered(40, 21)
    old_path, new_path = tmp_path / "old.sqlite", tmp_path / "new.sqlite"
    stores = [SQLiteStore(old_path), SQLiteStore(new_path)]
    for s in stores:
        s.bind_embedder("toy", DIM)
    old_items = fill(stores[0], x[:20])
    fill(stores[1], x)
    for s in stores:
        s.close()
    index = VectorIndex("w1", DIM)
    for path, want in ((new_path, 40), (old_path, 20)):
        c = sqlite3.connect(path, isolation_level=None)
        try:
            got = index.search(c, "section", x[0], 100, None)
        finally:
            c.close()
        assert len(got) == want
    assert {i for i, _ in got} == {it.id for it in old_items}


def test_a_catch_up_reads_only_what_changed(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    x = clustered(3000, 22)
    items = fill(store, x)
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    conn.set_progress_handler(count, 100)
    index = VectorIndex("w1", DIM)
    index.search(conn, "section", x[0], 1, None)
    full, steps[0] = steps[0], 0
    store.put_items([(items[5], x[6])])
    got = {i for i, _ in index.search(conn, "section", x[6], 2, None)}
    assert got == {items[5].id, items[6].id}
    # SQLite virtual-machine steps: a walk of the vec_seq index, not of the workspace.
    assert steps[0] * 20 < full


@pytest.mark.parametrize("exact_below", [EXACT_BELOW, 100])
def test_an_item_with_passages_scores_its_best_vector_once(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection, exact_below: int
) -> None:
    store, _ = db
    x = clustered(900, 21)
    # Items of 1-3 vectors each: its own first, then its passages'.
    groups = [x[3 * n : 3 * n + 1 + n % 3] for n in range(300)]
    items = store.put_items([(item(n), g) for n, g in enumerate(groups)])
    index = VectorIndex("w1", DIM, exact_below=exact_below)
    for q in clustered(8, 22):
        got = index.search(conn, "section", q, 20, None)
        ids = [i for i, _ in got]
        assert len(ids) == len(set(ids)) == 20
        best = {it.id: float((g @ q).max()) for it, g in zip(items, groups, strict=True)}
        want = sorted(best, key=lambda i: -best[i])[:20]
        assert recall(ids, want) >= 0.95
        assert np.allclose([s for _, s in got], [best[i] for i in ids], atol=1e-5)
    assert len(index) == len(items)
    # A passage far from the item's own vector still finds it.
    assert len(groups[2]) == 3
    probe = groups[2][2]
    assert index.search(conn, "section", probe, 1, None)[0][0] == items[2].id
    # Fewer vectors on re-index: the dropped passage no longer answers for the item.
    store.put_item(replace(items[2]), groups[2][:1])
    top = dict(index.search(conn, "section", probe, 300, None))
    assert top[items[2].id] == pytest.approx(float(groups[2][0] @ probe), abs=1e-5)
    assert len(index) == len(items)
    store.put_items([(replace(items[2], indexed=False), None)])
    assert items[2].id not in [i for i, _ in index.search(conn, "section", probe, 300, None)]
    assert len(index) == len(items) - 1


def test_embeddings_of_the_wrong_shape_are_refused(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    for bad in (
        np.zeros((2, 2, DIM), dtype=np.float32),
        np.zeros((2, DIM + 1), dtype=np.float32),
        np.zeros((65, DIM), dtype=np.float32),
        np.full(DIM, np.nan, dtype=np.float32),
        np.zeros((0, DIM), dtype=np.float32),
    ):
        with pytest.raises(InvalidInput):
            store.put_item(item(0), bad)
    assert conn.execute("SELECT count(*) FROM items").fetchone()[0] == 0


def test_keys_of_many_near_vectors_still_fill_top_k(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, _ = db
    rng = np.random.default_rng(31)
    q = clustered(1, 32)[0]
    # 40 items of 30 vectors each, all close to the query: the first int8 shortlist (256
    # rows) holds under 10 distinct items, so the search must widen it to fill 20.
    spread = (0.002 + 0.001 * np.arange(40, dtype=np.float32))[:, None, None]  # 0 nearest
    near = q + spread * rng.standard_normal((40, 30, DIM)).astype(np.float32)
    near /= np.linalg.norm(near, axis=2, keepdims=True)
    far = clustered(2000, 33)
    items = store.put_items(
        [(item(n), near[n]) for n in range(40)] + [(item(40 + n), far[n]) for n in range(2000)]
    )
    index = VectorIndex("w1", DIM, exact_below=100)
    got = index.search(conn, "section", q, 20, None)
    best = {items[n].id: float((near[n] @ q).max()) for n in range(40)}
    best |= {items[40 + n].id: float(far[n] @ q) for n in range(2000)}
    ids = [i for i, _ in got]
    assert len(ids) == len(set(ids)) == 20
    assert recall(ids, sorted(best, key=lambda i: -best[i])[:20]) >= 0.9


def test_the_removal_log_is_pruned_and_a_late_reader_reloads(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    import orgbrain.adapters.sqlite.store as store_module

    monkeypatch.setattr(store_module, "VEC_LOG_KEEP", 10)
    store, _ = db
    x = clustered(100, 41)
    items = fill(store, x)
    late = VectorIndex("w1", DIM)  # looks once now, then not until after the pruning
    assert len(late.search(conn, "section", x[0], 100, None)) == 100
    for it in items[:50]:
        store.put_items([(replace(it, indexed=False), None)])
    logged = conn.execute("SELECT count(*) FROM vec_deleted").fetchone()[0]
    assert 0 < logged <= 2 * 10
    floor = int(conn.execute("SELECT value FROM meta WHERE key = 'vector_floor'").fetchone()[0])
    assert floor > 0
    gone = {it.id for it in items[:50]}
    for index in (late, VectorIndex("w1", DIM)):
        got = {i for i, _ in index.search(conn, "section", x[0], 100, None)}
        assert got == {it.id for it in items[50:]} and not got & gone
        assert len(index) == 50
