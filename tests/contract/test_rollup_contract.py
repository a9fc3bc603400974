"""The Store contract for the loop's running counts (``Store.rolled_counts``): on every
backend they equal ``event_counts`` over the kind's ``EVENT_ROLLUPS`` fields, for any
window, actor or scopes, whichever way the events came in (``log_event``,
``import_records``, or already there when the migration made the table)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from orgbrain.adapters.memory import MemoryStore, Tables
from orgbrain.adapters.postgres import PostgresStore
from orgbrain.adapters.postgres import rollups as pg_rollups
from orgbrain.adapters.postgres import schema as pg_schema
from orgbrain.adapters.postgres.db import Database
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.sqlite import rollups as sqlite_rollups
from orgbrain.adapters.sqlite import schema as sqlite_schema
from orgbrain.errors import InvalidInput
from orgbrain.ports import EVENT_ROLLUPS, Store

StoreFactory = Callable[[], Store]
NOW = datetime.now(UTC)
ACTORS = ("human:a", "human:b", None)
SCOPES = ("org", "team:eng", "user:a", None)


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """("sqlite", a file path) or ("postgres", a URL of a fresh schema): the stores that
    migrate (the in-memory one is born with its counts)."""
    if request.param == "postgres":
        yield "postgres", request.getfixturevalue("pg_url")
    else:
        yield "sqlite", str(tmp_path / "brain.sqlite")


@pytest.fixture(params=["sqlite", "postgres", "memory"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """Handles on one brain: a SQLite file, a fresh PostgreSQL schema, or memory."""
    made: list[Store] = []
    tables = Tables()  # the in-memory brain every memory handle shares
    name, where = request.param, str(tmp_path / "brain.sqlite")
    if name == "postgres":
        where = request.getfixturevalue("pg_url")

    def factory() -> Store:
        if name == "memory":
            s: Store = MemoryStore(tables)
        else:
            s = PostgresStore(where) if name == "postgres" else SQLiteStore(Path(where))
        made.append(s)
        return s

    yield factory
    for s in made:
        s.close()


def events(n: int, seed: int, first: int = 1) -> list[dict[str, object]]:
    """``n`` events of every kind over the last 70 days (across days and months), with
    actors, scopes, latencies, errors and missing fields drawn at random."""
    rng = np.random.default_rng(seed)
    out: list[dict[str, object]] = []
    kinds = (*EVENT_ROLLUPS, "turn")
    for i in range(n):
        kind = kinds[int(rng.integers(len(kinds)))]
        record: dict[str, object] = {}
        if kind == "search":
            record = {"surface": ["http", "ui", "mcp"][int(rng.integers(3))], "k": 5}
            if rng.random() < 0.9:
                record["spoke"] = bool(rng.random() < 0.6)
            record["latency_ms"] = int(rng.integers(0, 6)) * 10
            if rng.random() < 0.1:
                record["error"] = "Unavailable"
        elif kind == "gate":
            record = {"decision": ["written", "inbox", "skipped"][int(rng.integers(3))]}
        elif kind == "review":
            record = {"outcome": ["approved", "rejected"][int(rng.integers(2))]}
            record["waited_s"] = [3600.0, 86_400.5, None][int(rng.integers(3))]
        scope = SCOPES[int(rng.integers(len(SCOPES)))]
        if scope is not None:
            record["scope"] = scope
        actor = ACTORS[int(rng.integers(len(ACTORS)))]
        at = NOW - timedelta(seconds=float(rng.uniform(-3600, 70 * 86_400)))
        out.append(
            {
                "id": first + i,
                "workspace": ("w1", "w2")[int(rng.random() < 0.2)],
                "kind": kind,
                "at": at,
                "actor": actor,
                "subject": None,
                "record": json.dumps(record),
            }
        )
    return out


def windows() -> list[datetime | None]:
    """Ever; month starts; early and late in last month; a midnight; mid-day in this month
    and the last two; a minute ago; the future."""
    midnight = NOW.replace(hour=0, minute=0, second=0, microsecond=0)
    month = midnight.replace(day=1)
    last = (month - timedelta(days=1)).replace(day=1)
    return [
        None,
        month,
        last,
        last + timedelta(days=2, hours=3),  # early in a month: its row less two days
        last + timedelta(days=20, hours=3),  # late: the days to its end
        midnight - timedelta(days=3),
        NOW - timedelta(days=30),
        NOW - timedelta(days=45, hours=7, microseconds=11),
        month - timedelta(hours=5),
        NOW - timedelta(minutes=1),
        NOW + timedelta(days=2),
    ]


def agrees(s: Store, workspace: str = "w1") -> None:
    for kind, fields in EVENT_ROLLUPS.items():
        for since in windows():
            for lens in ({}, {"actor": "human:a"}, {"scopes": ["org", "user:a"]}, {"scopes": []}):
                want = s.event_counts(workspace, kind, fields, since=since, **lens)  # type: ignore[arg-type]
                got = s.rolled_counts(workspace, kind, since=since, **lens)  # type: ignore[arg-type]
                assert got == want, (kind, since, lens)


def test_running_counts_equal_the_logs_counts_for_any_window_and_lens(
    make_store: StoreFactory,
) -> None:
    s = make_store()
    s.import_records("events", events(600, seed=1))
    s.import_records("events", events(600, seed=1))  # again: nothing new, nothing counted
    s.log_event("w1", "search", {"surface": "http", "spoke": True, "latency_ms": 7})
    s.log_event("w1", "gate", {"decision": "inbox", "scope": "org", "actor": "human:a"})
    s.log_event("w1", "writeback", {"run_id": "r", "actor": "human:a"})
    agrees(s)
    agrees(s, "w2")
    assert sum(s.rolled_counts("w1", "search").values()) == sum(
        s.event_counts("w1", "search", []).values()
    )
    assert s.rolled_counts("w3", "search") == {}
    assert s.rolled_counts("w1", "writeback", actor="human:a")[()] >= 1
    other = make_store()  # another handle (another process) reads the same counts
    assert other.rolled_counts("w1", "gate") == s.rolled_counts("w1", "gate")


def test_a_failed_import_counts_nothing(make_store: StoreFactory) -> None:
    s = make_store()
    good = events(50, seed=2)
    s.import_records("events", good)
    before = s.rolled_counts("w1", "search")
    bad = events(20, seed=3, first=1000)
    bad[-1] = {**bad[-1], "at": None}  # the whole page is refused
    with pytest.raises((InvalidInput, Exception)):
        s.import_records("events", bad)
    assert s.rolled_counts("w1", "search") == before
    agrees(s)


def test_only_rolled_kinds_and_one_lens_at_a_time(make_store: StoreFactory) -> None:
    s = make_store()
    for kind in ("turn", "", "search; drop table events"):
        with pytest.raises(InvalidInput):
            s.rolled_counts("w1", kind)
    with pytest.raises(InvalidInput):
        s.rolled_counts("w1", "search", actor="human:a", scopes=["org"])


def rows(e: dict[str, object]) -> tuple[object, ...]:
    """An event's columns: id, workspace, kind, at, actor, subject, record."""
    at = e["at"]
    assert isinstance(at, datetime)
    return (e["id"], e["workspace"], e["kind"], at.isoformat(), e["actor"], None, e["record"])


def test_the_migration_counts_the_events_already_logged(backend: tuple[str, str]) -> None:
    """A brain from before the running counts gets them when it next opens."""
    name, where = backend
    old = events(400, seed=4)
    if name == "sqlite":
        migrations = sqlite_schema.MIGRATIONS
        before = migrations[: migrations.index(sqlite_rollups.ROLLUP_MIGRATION)]
        conn = sqlite3.connect(where, isolation_level=None)
        sqlite_schema.migrate(conn, before)
        conn.executemany(
            "INSERT INTO events (rowid, workspace, kind, at, actor, subject, record) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(*rows(e)[:3], str(rows(e)[3]), *rows(e)[4:]) for e in old],
        )
        assert "event_rollups" not in {
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        conn.close()
        s: Store = SQLiteStore(Path(where))
    else:
        migrations = pg_schema.MIGRATIONS
        before = migrations[: migrations.index(pg_rollups.ROLLUP_MIGRATION)]
        conn = Database(where, timeout_s=30, what="test").connect()
        try:
            pg_schema.migrate(conn, before)
            with conn.cursor() as cur:
                cur.executemany(
                    "INSERT INTO events (workspace, kind, at, actor, subject, record) "
                    "VALUES (%s, %s, %s, %s, %s, %s)",
                    [rows(e)[1:] for e in old],
                )
        finally:
            conn.close()
        s = PostgresStore(where)
    try:
        s.log_event("w1", "search", {"surface": "cli", "spoke": False, "latency_ms": 3})
        agrees(s)
        agrees(s, "w2")
    finally:
        s.close()
