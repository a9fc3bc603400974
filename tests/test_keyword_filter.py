"""The tantivy keyword index filters class and scope after a search of the terms alone
when most rows are of the class asked for; the rows must be the ones the filtered query
gives, whatever the mix of classes and scopes."""

from __future__ import annotations

import random
import sqlite3

import pytest

from orgbrain.adapters.sqlite.keywords import KeywordIndex

WORDS = "billing invoice owner deploy freeze postgres migration stripe ledger audit".split()


def _brain(seed: int, sections: float) -> sqlite3.Connection:
    rng = random.Random(seed)
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
        "INSERT INTO meta VALUES ('kw_seq', '1');"
        "CREATE TABLE items (rowid INTEGER PRIMARY KEY, id TEXT, workspace TEXT, class TEXT,"
        " scope TEXT, label TEXT, body TEXT, keys TEXT, indexed INT, tombstoned_at TEXT);"
        "CREATE TABLE kw_changes (item_rowid INTEGER PRIMARY KEY, workspace TEXT, seq INT);"
    )
    for n in range(600):
        cls = "section" if rng.random() < sections else rng.choice(["file", "note"])
        scope = rng.choice(["org", "team:eng", "team:ops", "user:ann"])
        body = " ".join(rng.choices(WORDS, k=rng.randint(3, 30)))
        conn.execute(
            "INSERT INTO items VALUES (?, ?, 'ws', ?, ?, NULL, ?, NULL, 1, NULL)",
            (n + 1, f"it_{n}", cls, scope, body),
        )
    return conn


def _filtered(index: KeywordIndex, *args: object) -> list[tuple[str, float]]:
    mostly = index._mostly
    index._mostly = lambda _cls: False  # type: ignore[method-assign]
    try:
        return index.search(*args)  # type: ignore[arg-type]
    finally:
        index._mostly = mostly  # type: ignore[method-assign]


@pytest.mark.parametrize("sections", [1.0, 0.9, 0.6, 0.3])  # 1.0: one class alone
def test_filtering_after_gives_the_filtered_rows(sections: float) -> None:
    conn = _brain(7, sections)
    index = KeywordIndex("ws")
    rng = random.Random(1)
    for _ in range(40):
        terms = rng.sample(WORDS, rng.randint(1, 4))
        scopes = rng.choice([None, {"org"}, {"org", "team:eng"}, {"user:ann"}, set()])
        for cls in ("section", "file", "note"):
            limit = rng.choice([1, 5, 50, 500])
            got = index.search(conn, cls, terms, limit, scopes)
            want = _filtered(index, conn, cls, terms, limit, scopes)
            assert [i for i, _ in got] == [i for i, _ in want]
            assert [s for _, s in got] == pytest.approx([s for _, s in want])
    assert index._mostly("section") == (sections > 0.5)


def test_a_class_without_rows_finds_nothing_until_one_is_written() -> None:
    conn = _brain(3, 1.0)  # sections only
    index = KeywordIndex("ws")
    assert index.search(conn, "file", ["billing"], 50, None) == []
    assert index.search(conn, "section", ["billing"], 50, None)
    conn.execute(
        "INSERT INTO items VALUES (601, 'it_file', 'ws', 'file', 'org', NULL, 'billing owner',"
        " NULL, 1, NULL)"
    )
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'kw_seq'")
    conn.execute("INSERT INTO kw_changes VALUES (601, 'ws', 2)")
    assert [i for i, _ in index.search(conn, "file", ["billing"], 50, None)] == ["it_file"]
    assert index.search(conn, "note", ["billing"], 50, None) == []
