"""The store's refusal to copy a forgotten item's words again (issue 12).

A derivation reads its item, works for a while, then writes; the item may be forgotten
meanwhile, and forgetting's purge only removes what was written before it. So every
write of a derived copy (a statement, its evidence, an edge) first reads the items it
names in its own transaction and refuses when one is tombstoned: on PostgreSQL with
their rows locked, so a forget's tombstone either committed first (and the write is
refused) or waits for this write (and its purge, which comes after, removes it); on
SQLite the write transaction holds the whole database.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import Conflict
from .dialect import Connection, Dialect

__all__ = ["forgotten_among", "refused"]


def forgotten_among(conn: Connection, d: Dialect, workspace: str, ids: Sequence[str]) -> list[str]:
    """Which of ``ids`` are forgotten items (an unknown id is not), their rows held until
    the transaction ends."""
    cond, params = d.any_of("id", sorted(set(ids)))
    rows = conn.execute(
        d.sql(
            f"SELECT id, tombstoned_at FROM items WHERE workspace = ? AND {cond} "
            f"ORDER BY id{d.lock_rows}"
        ),
        [workspace, *params],
    ).fetchall()
    return [str(r["id"]) for r in rows if r["tombstoned_at"] is not None]


def refused(ids: Sequence[str]) -> Conflict:
    return Conflict(f"{ids[0]} is forgotten: nothing derived from it is written any more")
