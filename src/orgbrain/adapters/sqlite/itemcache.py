"""Items read by id, kept in memory while no item changes.

A search reads its ~100 candidates' sketches and its hits in full by id (``item_sketches``,
``get_items``), and the next search reads most of the same items again: on a LoCoMo brain
the two reads were ~0.5 ms of a ~8 ms search, the rows' decoding most of it. Every insert,
update and delete of an ``items`` row bumps ``item_seq`` in ``meta`` (a trigger, migration
``0016_item_seq``), so one look at that counter says whether what is held is still what
the file holds: when it moved, everything is dropped. What is held is the decoded value
of every column the read selects, for every reader: the reader's visibility is applied
on the way out, as the SQL's ``scope IN (...)`` was.

A read inside a transaction goes to the file and keeps nothing: its rows may be a write's
own, uncommitted, that a rollback takes back while the counter goes back with them.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from typing import Generic, Protocol, TypeVar

from ...scopes import Visibility
from .snapshot import watermark

__all__ = ["BATCH", "ITEM_SEQ", "ItemCache"]

ITEM_SEQ = "item_seq"
"""The ``meta`` counter every change of an ``items`` row bumps."""
BATCH = 500
"""Ids per ``IN (...)`` read (below SQLite's bound parameters, with the scopes)."""


class _Scoped(Protocol):
    @property
    def scope(self) -> str: ...


T = TypeVar("T", bound=_Scoped)


class ItemCache(Generic[T]):
    """One read by id (``load``: the values of the ids it is given that exist, in any
    visibility), its results held until ``item_seq`` moves; at most ``limit`` of them."""

    def __init__(
        self, load: Callable[[str, Sequence[str]], dict[str, T]], *, limit: int = 1 << 14
    ) -> None:
        self._load = load
        self._limit = limit
        self._lock = threading.Lock()
        self._seq = -1
        self._held: dict[str, dict[str, T]] = {}  # by workspace, then id
        self._count = 0

    def read(
        self,
        conn: sqlite3.Connection,
        workspace: str,
        ids: Sequence[str],
        visibility: Visibility,
    ) -> dict[str, T]:
        """The visible values of ``ids``, by id, in the order SQLite gives them: each batch
        of ``BATCH`` distinct ids (in the order asked) by id."""
        unique = list(dict.fromkeys(ids))
        held: dict[str, T] = {}
        if conn.in_transaction:
            loaded = self._load(workspace, unique)
        else:
            held, loaded = self._held_and_loaded(conn, workspace, unique)
        scopes = visibility.scopes
        out: dict[str, T] = {}
        for start in range(0, len(unique), BATCH):
            for item_id in sorted(unique[start : start + BATCH]):
                value = held.get(item_id)
                if value is None:
                    value = loaded.get(item_id)
                if value is not None and (scopes is None or value.scope in scopes):
                    out[item_id] = value
        return out

    def _held_and_loaded(
        self, conn: sqlite3.Connection, workspace: str, unique: list[str]
    ) -> tuple[dict[str, T], dict[str, T]]:
        """What is held of the workspace's items, and those of ``unique`` it lacked, read
        from the file (and held from now on, unless the counter moved meanwhile)."""
        # The counter first: rows read after it are at least as new as it says, so a
        # change after this read moves it past what the rows are kept under.
        seq = watermark(conn, ITEM_SEQ)
        with self._lock:
            if seq != self._seq:
                self._held, self._count, self._seq = {}, 0, seq
            held = self._held.setdefault(workspace, {})
            missing = [i for i in unique if i not in held]
        if not missing:
            return held, {}
        loaded = self._load(workspace, missing)
        with self._lock:
            if seq == self._seq:  # no other reader saw the counter move meanwhile
                if self._count + len(loaded) > self._limit:
                    self._held, self._count = {workspace: {}}, 0
                self._held[workspace].update(loaded)
                self._count += len(loaded)
        return held, loaded
