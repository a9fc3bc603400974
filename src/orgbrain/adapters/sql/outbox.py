"""The outbox, for both SQL stores: work a write owes (``ports.outbox.Owed``), recorded in
the write's own transaction so that a crash after the commit cannot lose it; the relay
(``derive.outbox``) reads it, asks for the work and settles it.

The job queue lives in the same database, but the store does not write jobs itself: the
relay knows how owed work becomes jobs (a derive job's key is a digest of the item as it
is when the job is asked for), and a context may pair the store with another queue.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import replace

from ...model import Edge, Item, utcnow
from ...ports import Owed
from .dialect import Connection, Part

__all__ = ["OUTBOX_POSTGRES", "OUTBOX_SQLITE", "Outbox"]

_COLUMNS = "id, workspace, kind, actor, payload, subjects, created_at"
OUTBOX_SQLITE = (
    "0018_outbox",
    f"CREATE TABLE outbox ({_COLUMNS.replace(', ', ' TEXT NOT NULL, ')} TEXT NOT NULL);",
)
OUTBOX_POSTGRES = (
    "0017_outbox",
    "CREATE TABLE outbox (pk bigserial PRIMARY KEY, id text NOT NULL UNIQUE, "
    "workspace text NOT NULL, kind text NOT NULL, actor text NOT NULL, "
    "payload text NOT NULL, subjects text NOT NULL, created_at timestamptz NOT NULL);",
)


class Outbox(Part):
    """``OutboxStore``, and what commits with a write of items (``put_items``)."""

    @abstractmethod
    def _supersede(self, conn: Connection, edge: Edge) -> bool: ...

    @abstractmethod
    def _lazy_tx(self) -> AbstractContextManager[Connection]:
        """A write transaction whose commit is not flushed to disk on its own."""

    def _commit_with(
        self,
        conn: Connection,
        asked: Sequence[Item],
        stored: Sequence[Item],
        supersede: Sequence[Edge],
        owed: Owed | None,
    ) -> list[Item]:
        """In the transaction that wrote ``asked`` (as ``stored``, in order): the
        supersessions it claims, each ``src`` read as the id its item is stored under,
        and its owed work. Returns ``stored`` as committed (``supersedes`` set)."""
        stored_as = {a.id: s.id for a, s in zip(asked, stored, strict=True)}
        out = {s.id: s for s in stored}
        for edge in supersede:
            src = stored_as.get(edge.src, edge.src)
            self._supersede(conn, replace(edge, src=src))
            if (new := out.get(src)) is not None and new.supersedes is None:
                out[src] = replace(new, supersedes=edge.dst)  # as the store set it, once
        self._owe(conn, owed, stored)
        return [out[s.id] for s in stored]

    def _owe(self, conn: Connection, owed: Owed | None, stored: Sequence[Item]) -> None:
        """Record ``owed`` about ``stored`` in ``conn``'s transaction (nothing stored,
        nothing owed)."""
        if owed is None or not stored:
            return
        d = self._dialect
        conn.execute(
            d.sql(f"INSERT INTO outbox ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)"),
            (
                owed.id,
                stored[0].workspace,
                owed.kind,
                owed.actor,
                json.dumps(dict(owed.payload), sort_keys=True, default=str),
                json.dumps([i.id for i in stored]),
                d.rows.time(utcnow()),
            ),
        )

    def owed(self, *, ids: Sequence[str] | None = None, limit: int = 100) -> list[Owed]:
        d = self._dialect
        where, params = "", list[object]()
        if ids is not None:
            if not ids:
                return []
            cond, params = d.any_of("id", list(ids))
            where = f" WHERE {cond}"
        with self._read() as conn:
            rows = conn.execute(
                d.sql(f"SELECT {_COLUMNS} FROM outbox{where} ORDER BY {d.pos} LIMIT ?"),
                [*params, limit],
            ).fetchall()
        return [
            Owed(
                id=r["id"],
                kind=r["kind"],
                actor=r["actor"],
                payload=json.loads(r["payload"]),
                subjects=tuple(json.loads(r["subjects"])),
                workspace=r["workspace"],
                created_at=d.rows.when(r["created_at"]),
            )
            for r in rows
        ]

    def settle_owed(self, ids: Sequence[str]) -> None:
        if not ids:
            return
        cond, params = self._dialect.any_of("id", list(ids))
        # Not flushed on its own: a settle a crash loses is relayed again, which asks for
        # nothing new (relaying is idempotent), and a write saves an fsync.
        with self._lazy_tx() as conn:
            conn.execute(self._dialect.sql(f"DELETE FROM outbox WHERE {cond}"), params)
