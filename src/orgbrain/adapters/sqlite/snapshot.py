"""Reading a derived index's changes from SQLite as one consistent snapshot."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["read_snapshot", "watermark"]


@contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """One read transaction (unless one is open), so a watermark and rows agree."""
    own_tx = not conn.in_transaction
    if own_tx:
        conn.execute("BEGIN")
    try:
        yield
    finally:
        if own_tx and conn.in_transaction:
            conn.execute("COMMIT")


def watermark(conn: sqlite3.Connection, key: str) -> int:
    """The change counter ``key`` in ``meta`` (``vec_seq``, ``kw_seq``); 0 if unset."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return int(row[0]) if row else 0
