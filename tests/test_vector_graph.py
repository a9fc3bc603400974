"""The approximate vector tier: an HNSW graph over a large shelf, kept beside the database.

The threshold is lowered to 2,000 rows so the graph is built in seconds; every search runs
against a real SQLite file written through ``SQLiteStore``, and the graph file is real.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.sqlite.vectors import VectorIndex
from orgbrain.model import utcnow
from tests.test_vectors import DIM, clustered, exact, fill, item, recall

THRESHOLD = 2000
ROWS = 3000


@pytest.fixture
def db(tmp_path: Path) -> Iterator[tuple[SQLiteStore, Path]]:
    path = tmp_path / "brain.sqlite"
    store = SQLiteStore(path, approx_above=THRESHOLD)
    store.bind_embedder("toy", DIM)
    yield store, path
    store.close()


@pytest.fixture
def conn(db: tuple[SQLiteStore, Path]) -> Iterator[sqlite3.Connection]:
    c = sqlite3.connect(db[1], isolation_level=None, check_same_thread=False)
    yield c
    c.close()


def ready(index: VectorIndex, conn: sqlite3.Connection, q: np.ndarray) -> None:
    """Search until the graph serves: a search starts its load or build, the one after the
    worker is done installs it (or refuses a loaded file that does not match and starts a
    build, so up to three rounds)."""
    for _ in range(3):
        index.search(conn, "section", q, 1, None)
        if index.graph_rows("section") > 0:
            return
        index.settle()
    assert index.graph_rows("section") > 0


def meta(path: Path) -> dict[str, object]:
    (found,) = path.parent.glob(f"{path.name}.hnsw-*.json")
    out: dict[str, object] = json.loads(found.read_text())
    return out


def test_the_graph_keeps_the_exact_top_50(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, path = db
    x = clustered(ROWS, 51)
    ids = [it.id for it in fill(store, x)]
    index = VectorIndex("w1", DIM, approx_above=THRESHOLD, path=path)
    index.search(conn, "section", x[0], 50, None)
    assert index.graph_rows("section") == 0  # building: the exact scan answers meanwhile
    ready(index, conn, x[0])
    assert index.graph_rows("section") == ROWS
    assert meta(path)["rows"] == ROWS and meta(path)["watermark"] == ROWS
    recalls = []
    for q in clustered(30, 52):
        got = index.search(conn, "section", q, 50, None)
        recalls.append(recall([i for i, _ in got], [ids[j] for j in exact(x, q, 50)]))
        row = {i: j for j, i in enumerate(ids)}
        assert np.allclose([s for _, s in got], [x[row[i]] @ q for i, _ in got], atol=1e-5)
    assert np.mean(recalls) >= 0.99
    # Below the threshold nothing is built, and nothing is written beside the database.
    small = VectorIndex("w1", DIM, approx_above=ROWS, path=path)
    small.search(conn, "section", x[0], 5, None)
    assert not small.settle() and small.graph_rows("section") == 0


def test_writes_after_the_build_are_found_and_removals_never_return(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, path = db
    x = clustered(ROWS, 53)
    items = fill(store, x)
    index = VectorIndex("w1", DIM, approx_above=THRESHOLD, path=path)
    ready(index, conn, x[0])
    built = index.graph_rows("section")
    # New rows, written after the graph's watermark: found on the next search.
    new = clustered(40, 54)
    added = store.put_items([(item(ROWS + n, key=f"new{n}"), new[n]) for n in range(40)])
    for n in range(40):
        assert index.search(conn, "section", new[n], 1, None)[0][0] == added[n].id
    # Rows moved to another vector after the build: found at the new one, scored there.
    moved = store.put_items([(items[n], new[n]) for n in range(10)])
    for n in range(10):
        top = index.search(conn, "section", new[n], 2, None)
        assert {i for i, _ in top} == {moved[n].id, added[n].id}
        assert top[0][1] == pytest.approx(1.0, abs=1e-5)
    # Tombstoned, unindexed and re-scoped rows: never returned to a reader who may not see
    # them, even though the graph still holds their vectors.
    store.put_items([(replace(it, tombstoned_at=utcnow()), None) for it in items[100:110]])
    store.put_items([(replace(it, indexed=False), None) for it in items[110:120]])
    store.put_items([(replace(it, scope="team:x"), x[n]) for n, it in enumerate(items)][120:130])
    gone = {it.id for it in items[100:130]}
    for n in range(100, 130):
        got = index.search(conn, "section", x[n], 50, frozenset({"org"}))
        assert len(got) == 50 and not gone & {i for i, _ in got}
    for n in range(120, 130):
        assert index.search(conn, "section", x[n], 1, None)[0][0] == items[n].id
    assert index.graph_rows("section") == built  # 80 fresh rows: no rebuild yet


def test_a_reader_who_sees_a_share_gets_limit_visible_rows(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, path = db
    x = clustered(4000, 55)
    scopes = ["org"] * 7 + ["team:a"] * 3  # team:a holds 30%: read through the graph
    items = fill(store, x, scopes)
    rare = store.put_items(
        [(item(5000 + n, scope="team:rare", key=f"rare{n}"), v) for n, v in enumerate(x[:30])]
    )
    index = VectorIndex("w1", DIM, approx_above=THRESHOLD, path=path)
    ready(index, conn, x[0])
    team_rows = [n for n, it in enumerate(items) if it.scope == "team:a"]
    recalls = []
    for q in clustered(20, 56):
        got = index.search(conn, "section", q, 50, frozenset({"team:a"}))
        assert len(got) == 50
        want = [items[j].id for j in exact(x, q, 50, team_rows)]
        recalls.append(recall([i for i, _ in got], want))
        assert {i for i, _ in got} <= {items[j].id for j in team_rows}
        # A reader who sees too few rows for the graph gets the exact scan of theirs.
        got = index.search(conn, "section", q, 20, frozenset({"team:rare"}))
        best = sorted(range(30), key=lambda n: -float(x[n] @ q))[:20]
        assert [i for i, _ in got] == [rare[n].id for n in best]
    assert np.mean(recalls) >= 0.98


def test_a_corrupt_or_stale_graph_file_is_rebuilt(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection
) -> None:
    store, path = db
    x = clustered(ROWS, 57)
    ids = [it.id for it in fill(store, x)]
    first = VectorIndex("w1", DIM, approx_above=THRESHOLD, path=path)
    ready(first, conn, x[0])
    build = meta(path)["build"]
    # A restart loads the file: no rebuild.
    again = VectorIndex("w1", DIM, approx_above=THRESHOLD, path=path)
    ready(again, conn, x[0])
    assert meta(path)["build"] == build
    # Bytes changed on disk: the CRC no longer matches, so the graph is rebuilt.
    (graph_file,) = path.parent.glob(f"{path.name}.hnsw-*-{build}.usearch")
    data = bytearray(graph_file.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 64] = b"\xff" * 64
    graph_file.write_bytes(bytes(data))
    corrupt = VectorIndex("w1", DIM, approx_above=THRESHOLD, path=path)
    assert corrupt.search(conn, "section", x[7], 1, None)[0][0] == ids[7]  # exact meanwhile
    ready(corrupt, conn, x[0])
    rebuilt = meta(path)["build"]
    assert rebuilt != build and not graph_file.exists()
    # A file that claims rows the database never had (a database restored from an older
    # copy): dropped when it is loaded, and rebuilt.
    json_file = next(path.parent.glob(f"{path.name}.hnsw-*.json"))
    stale = {**meta(path), "watermark": 10**9}
    json_file.write_text(json.dumps(stale))
    late = VectorIndex("w1", DIM, approx_above=THRESHOLD, path=path)
    late.search(conn, "section", x[0], 1, None)
    late.settle()
    assert late.search(conn, "section", x[9], 1, None)[0][0] == ids[9]
    assert late.graph_rows("section") == 0  # refused; its rebuild has started
    ready(late, conn, x[0])
    assert meta(path)["build"] not in (build, rebuilt)
    assert meta(path)["watermark"] == ROWS


def test_another_databases_graph_is_refused(tmp_path: Path) -> None:
    x = clustered(ROWS, 59)
    paths = [tmp_path / "a" / "brain.sqlite", tmp_path / "b" / "brain.sqlite"]
    for n, path in enumerate(paths):
        path.parent.mkdir()
        store = SQLiteStore(path, approx_above=THRESHOLD)
        store.bind_embedder("toy", DIM)
        fill(store, x if n == 0 else x[::-1].copy())
        store.close()
    with sqlite3.connect(paths[0], isolation_level=None) as conn:
        ready(VectorIndex("w1", DIM, approx_above=THRESHOLD, path=paths[0]), conn, x[0])
    for f in paths[0].parent.glob("brain.sqlite.hnsw-*"):
        (paths[1].parent / f.name).write_bytes(f.read_bytes())
    build = meta(paths[1])["build"]
    with sqlite3.connect(paths[1], isolation_level=None) as conn:
        index = VectorIndex("w1", DIM, approx_above=THRESHOLD, path=paths[1])
        ready(index, conn, x[0])
    assert meta(paths[1])["build"] != build  # the copied graph was dropped and rebuilt


SECOND = """
import json, sys
import numpy as np
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.scopes import Visibility
store = SQLiteStore(sys.argv[1], approx_above=int(sys.argv[2]))
queries = np.load(sys.argv[3])
search = lambda q: store.vector_search("w1", "section", q, 20, Visibility.everything())
search(queries[0])
store.settle_vectors()
out = [[i for i, _ in search(q)] for q in queries]
print(json.dumps({"rows": store._vectors["w1"].graph_rows("section"), "ids": out}))
store.close()
"""


def test_a_second_process_loads_the_graph_and_agrees(
    db: tuple[SQLiteStore, Path], conn: sqlite3.Connection, tmp_path: Path
) -> None:
    store, path = db
    x = clustered(ROWS, 61)
    fill(store, x)
    index = VectorIndex("w1", DIM, approx_above=THRESHOLD, path=path)
    ready(index, conn, x[0])
    build = meta(path)["build"]
    qs = clustered(10, 62)
    np.save(tmp_path / "q.npy", qs)
    ours = [[i for i, _ in index.search(conn, "section", q, 20, None)] for q in qs]
    done = subprocess.run(
        [sys.executable, "-c", SECOND, str(path), str(THRESHOLD), str(tmp_path / "q.npy")],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    theirs = json.loads(done.stdout)
    assert theirs["rows"] == ROWS  # loaded from the file, not rebuilt
    assert meta(path)["build"] == build
    assert theirs["ids"] == ours
