"""The SQLite store's reads by id held in memory (adapters/sqlite/itemcache.py): what they
give is what the file gives, in the same order, after any write; a write's own rows are
never kept; and what is held is bounded. The contract suite checks reads after writes
from two handles (``test_reads_by_id_see_every_write_from_any_handle``)."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import numpy as np

from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.sqlite.itemcache import ItemCache
from orgbrain.ids import new_id
from orgbrain.model import Item, Origin, utcnow
from orgbrain.scopes import Visibility

ALL = Visibility.everything()


def _note(body: str, scope: str = "org") -> Item:
    return Item(
        id=new_id("not"),
        workspace="w1",
        kind="note",
        storage_class="note",
        label=body.split()[0],
        body=body,
        source_key=f"k:{body}",
        indexed=True,
        scope=scope,
        origin=Origin("human:test", "test", utcnow()),
    )


def _store(path: Path, bodies: Sequence[str]) -> tuple[SQLiteStore, list[Item]]:
    store = SQLiteStore(path)
    store.bind_embedder("toy", 4)
    vector = np.ones(4, dtype=np.float32) / 2
    scopes = ["org", "team:eng", "user:bob"]
    return store, [store.put_item(_note(b, scopes[n % 3]), vector) for n, b in enumerate(bodies)]


class _Row(NamedTuple):
    id: str
    scope: str
    body: str


class _Counted:
    """A load by id straight from the file, counting the ids it is asked for."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.asked = 0

    def __call__(self, workspace: str, ids: Sequence[str]) -> dict[str, _Row]:
        self.asked += len(ids)
        marks = ", ".join("?" * len(ids))
        rows = self.conn.execute(
            f"SELECT id, scope, body FROM items WHERE workspace = ? AND id IN ({marks})",
            [workspace, *ids],
        )
        return {r[0]: _Row(*r) for r in rows}


def test_held_reads_are_the_files_in_its_order(tmp_path: Path) -> None:
    """Over 500 ids (two ``IN`` batches), shuffled, repeated and some missing, through
    every visibility: the second read (from memory) equals the first (from the file),
    order included, and each is each batch's ids in order."""
    store, notes = _store(tmp_path / "b.sqlite", [f"note {n}" for n in range(620)])
    rng = random.Random(7)
    for vis in (ALL, Visibility(frozenset({"org", "user:bob"})), Visibility(frozenset())):
        ids = [n.id for n in rng.sample(notes, 560)] + ["not_missing"] + [notes[3].id]
        first = store.item_sketches("w1", ids, vis)
        assert list(store.item_sketches("w1", ids, vis).items()) == list(first.items())
        full = store.get_items("w1", ids, vis)
        assert list(store.get_items("w1", ids, vis).items()) == list(full.items())
        assert list(full) == list(first)
        unique = list(dict.fromkeys(ids))
        want = [
            i
            for batch in (unique[:500], unique[500:])
            for i in sorted(batch)
            if i in {n.id for n in notes if vis.allows(n.scope)}
        ]
        assert list(first) == want


def test_a_read_inside_a_transaction_keeps_nothing(tmp_path: Path) -> None:
    """An uncommitted write's rows are seen by its own transaction but never held: after a
    rollback and another write that brings the counter back to where the rolled-back one
    had it, the file's row is read, not the rolled-back one."""
    path = tmp_path / "b.sqlite"
    _, (a, b) = _store(path, ["alpha one", "beta two"])
    conn = sqlite3.connect(path, isolation_level=None)
    load = _Counted(conn)
    cache = ItemCache(load)
    assert cache.read(conn, "w1", [a.id], ALL)[a.id].body == "alpha one"
    conn.execute("BEGIN")
    conn.execute("UPDATE items SET body = 'not for long' WHERE id = ?", (a.id,))
    assert cache.read(conn, "w1", [a.id], ALL)[a.id].body == "not for long"
    conn.execute("ROLLBACK")
    other = sqlite3.connect(path, isolation_level=None)  # item_seq one step on, as before
    other.execute("UPDATE items SET body = 'beta changed' WHERE id = ?", (b.id,))
    assert cache.read(conn, "w1", [a.id, b.id], ALL) == {
        a.id: _Row(a.id, "org", "alpha one"),
        b.id: _Row(b.id, "team:eng", "beta changed"),
    }


def test_what_is_held_is_bounded_and_dropped_on_a_write(tmp_path: Path) -> None:
    path = tmp_path / "b.sqlite"
    store, (a, b, c) = _store(path, ["alpha one", "beta two", "gamma three"])
    conn = sqlite3.connect(path, isolation_level=None)
    load = _Counted(conn)
    cache = ItemCache(load, limit=2)
    cache.read(conn, "w1", [a.id, b.id], ALL)
    cache.read(conn, "w1", [b.id, a.id], ALL)
    assert load.asked == 2  # the second read came from memory
    cache.read(conn, "w1", [c.id], ALL)  # a third would pass the limit: all are let go
    cache.read(conn, "w1", [c.id], ALL)
    assert load.asked == 3
    cache.read(conn, "w1", [a.id], ALL)
    assert load.asked == 4
    store.put_item(replace(c, body="gamma changed"), None)
    assert cache.read(conn, "w1", [c.id], ALL)[c.id].body == "gamma changed"
    assert load.asked == 5
