"""The loop's counts at scale, on both backends: ``loop_stats`` over a month of 100,000
search events (bench/ui.py's), counted from the running counts (``Store.rolled_counts``)
and, for comparison, by reading every event (``Store.event_counts``, as before them); what
the running counts cost an event; and how long the migration takes to count the events
an existing brain already holds.

    python -m bench.stats [--events 100000] [--rounds 15] [--no-write]

Results go to ``docs/benchmarks.md`` under "## Loop stats".
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, cast

from bench._common import append_results, percentile
from bench.ui import loop_events
from orgbrain.adapters.postgres import PostgresStore
from orgbrain.adapters.postgres import rollups as pg_rollups
from orgbrain.adapters.postgres import schema as pg_schema
from orgbrain.adapters.postgres.db import Database
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.sqlite import rollups as sqlite_rollups
from orgbrain.adapters.sqlite import schema as sqlite_schema
from orgbrain.ports import EVENT_ROLLUPS, Store
from orgbrain.stats import loop_stats

WORKSPACE = "bench"


class EveryEvent:
    """A store whose counts read every event (``event_counts``), as ``loop_stats`` did
    before the running counts."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def rolled_counts(self, workspace: str, kind: str, **kw: Any) -> dict[tuple[object, ...], int]:
        return self._store.event_counts(workspace, kind, EVENT_ROLLUPS[kind], **kw)

    def pending_proposals(self, workspace: str, **kw: Any) -> tuple[int, datetime | None]:
        return self._store.pending_proposals(workspace, **kw)


def timed(f: Callable[[], object], rounds: int) -> tuple[float, float]:
    ms = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        ms.append((time.perf_counter() - t0) * 1000)
    return percentile(ms, 50), percentile(ms, 95)


@contextmanager
def backends(tmp: Path) -> Iterator[list[tuple[str, Callable[[], Store], Callable[[], float]]]]:
    """(name, a store on an empty brain, the migration's back-fill timed) per backend."""
    from bench import _pg

    with _pg.server() as server:

        def pg_store() -> Store:
            return PostgresStore(_pg.new_schema(server))

        def sqlite_store() -> Store:
            return SQLiteStore(Path(tempfile.mkdtemp(dir=tmp)) / "brain.sqlite")

        def pg_backfill() -> float:
            url = _pg.new_schema(server)
            conn = Database(url, timeout_s=600, what="bench").connect()
            try:
                before = pg_schema.MIGRATIONS
                pg_schema.migrate(conn, before[: before.index(pg_rollups.ROLLUP_MIGRATION)])
                with conn.cursor() as cur:
                    cur.executemany(
                        "INSERT INTO events (workspace, kind, at, actor, subject, record) "
                        "VALUES (%s, %s, %s, %s, %s, %s)",
                        [_row(e)[1:] for e in EVENTS],
                    )
                t0 = time.perf_counter()
                pg_schema.migrate(conn, (pg_rollups.ROLLUP_MIGRATION,))
                return time.perf_counter() - t0
            finally:
                conn.close()

        def sqlite_backfill() -> float:
            path = Path(tempfile.mkdtemp(dir=tmp)) / "brain.sqlite"
            conn = sqlite3.connect(path, isolation_level=None)
            try:
                before = sqlite_schema.MIGRATIONS
                sqlite_schema.migrate(conn, before[: before.index(sqlite_rollups.ROLLUP_MIGRATION)])
                conn.execute("BEGIN")
                conn.executemany(
                    "INSERT INTO events (rowid, workspace, kind, at, actor, subject, record) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [(*_row(e)[:3], _text(e["at"]), *_row(e)[4:]) for e in EVENTS],
                )
                conn.execute("COMMIT")
                t0 = time.perf_counter()
                sqlite_schema.migrate(conn, (sqlite_rollups.ROLLUP_MIGRATION,))
                return time.perf_counter() - t0
            finally:
                conn.close()

        yield [
            ("SQLite", sqlite_store, sqlite_backfill),
            ("PostgreSQL", pg_store, pg_backfill),
        ]


EVENTS: list[dict[str, object]] = []


def _row(e: dict[str, object]) -> tuple[object, ...]:
    at = e["at"]
    assert isinstance(at, datetime)
    return (e["id"], e["workspace"], e["kind"], at, e["actor"], None, e["record"])


def _text(at: object) -> str:
    assert isinstance(at, datetime)
    return at.isoformat()


def measure(
    name: str, make: Callable[[], Store], backfill: Callable[[], float], rounds: int
) -> list[str]:
    rows = []
    store = make()
    try:
        t0 = time.perf_counter()
        for page in range(0, len(EVENTS), 5000):
            store.import_records("events", EVENTS[page : page + 5000])
        imported = time.perf_counter() - t0
        every = cast(Store, EveryEvent(store))
        at = datetime.now(UTC)
        lenses: Sequence[tuple[str, dict[str, Any]]] = (
            ("the workspace", {"lens": "workspace"}),
            ("a reader's own", {"lens": "reader", "actor": "human:alice", "scopes": ["org"]}),
        )
        for label, lens in lenses:
            for window, since in (("30 days", at - timedelta(days=30)), ("ever", None)):

                def count(s: Store, since: datetime | None = since, lens: Any = lens) -> object:
                    return loop_stats(s, WORKSPACE, at=at, since=since, **lens)

                old = timed(lambda: count(every), 3)
                new = timed(lambda: count(store), rounds)
                assert count(store) == count(every)
                rows.append(
                    f"| {name} | {label}, {window} | {old[0]:.1f} | {old[1]:.1f} "
                    f"| {new[0]:.1f} | {new[1]:.1f} |"
                )
                print(rows[-1], flush=True)
    finally:
        store.close()
    seconds = backfill()
    rows.append(
        f"| {name} | _import of {len(EVENTS):,} events (their counts kept as they come): "
        f"{imported:.1f} s; the migration counting them in an existing brain: "
        f"{seconds:.1f} s_ | | | | |"
    )
    print(rows[-1], flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    for e in loop_events(args.events, datetime.now(UTC)):
        EVENTS.append({**e, "workspace": WORKSPACE})
    load = [os.getloadavg()[0]]
    rows: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, backends(Path(tmp)) as sides:
        for name, make, backfill in sides:
            rows += measure(name, make, backfill, args.rounds)
    load.append(os.getloadavg()[0])
    table = "\n".join(
        [
            f"`loop_stats` over {args.events:,} search events in 30 days (4 surfaces, 37 "
            f"actors, a tenth the reader's) and {args.events // 50:,} gate and review "
            f"events, in process (`python -m bench.stats --events {args.events}`; load "
            f"average {load[0]:.1f} at the start, {load[1]:.1f} at the end). Reading every "
            "event is 3 rounds, the running counts "
            f"{args.rounds}; both give the same `LoopStats`.",
            "",
            "| backend | lens, window | every event p50 ms | p95 ms | running counts p50 ms "
            "| p95 ms |",
            "|---|---|---|---|---|---|",
            *rows,
        ]
    )
    print(table)
    if not args.no_write:
        append_results("Loop stats", table)


if __name__ == "__main__":
    main()
