"""The store's event log, as this backend writes and counts it: one part of ``PostgresStore``,
kept apart so the items and search stay readable (``store.py``). Events are numbered by
``seq`` and stamped with ``timestamptz``; the edges, the counts and the reading of the log are both
stores' (``adapters/sql/``)."""

from __future__ import annotations

import json
import re
from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime

from ...errors import InvalidInput
from ...model import utcnow
from ..sql.edges import Edges
from ..sql.events import EventLog
from .db import Connection

__all__ = ["EdgesAndLog"]

_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class EdgesAndLog(Edges, EventLog):
    """Edges and counts (``Edges``), and the event log (read by ``EventLog``)."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _lazy_tx(self) -> AbstractContextManager[Connection]:
        """A write transaction whose commit is not flushed to disk on its own (the
        ``durable=False`` of ``log_event``)."""

    # -- events -------------------------------------------------------------------------

    def log_event(
        self, workspace: str, kind: str, record: dict[str, object], *, durable: bool = True
    ) -> int:
        actor = record.get("actor")
        subject = record.get("item_id")  # the item an event is about, for its story
        with self._tx() if durable else self._lazy_tx() as conn:
            # One writer per workspace at a time takes a sequence number and commits, so
            # numbers become visible in order: a reader of events after N (events_after)
            # never passes one that commits later with a smaller number.
            conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext('orgbrain-events:' || %s))", (workspace,)
            )
            row = conn.execute(
                "INSERT INTO events (workspace, kind, at, actor, subject, record) "
                "VALUES (%s, %s, %s, %s, %s, %s) RETURNING seq",
                (
                    workspace,
                    kind,
                    utcnow(),
                    None if actor is None else str(actor),
                    None if subject is None else str(subject),
                    json.dumps(record, default=str),
                ),
            ).fetchone()
        assert row is not None
        return int(row["seq"])

    def event_counts(
        self,
        workspace: str,
        kind: str,
        by: Sequence[str],
        *,
        since: datetime | None = None,
        actor: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> dict[tuple[object, ...], int]:
        if isinstance(by, str) or not all(isinstance(f, str) and _FIELD.fullmatch(f) for f in by):
            raise InvalidInput(f"event fields are plain names, not {by!r}")
        # ``->`` gives each field as JSON (NULL when absent), so a value keeps its type.
        picked = "".join(f"(record::jsonb -> %s::text)::text AS f{i}, " for i in range(len(by)))
        sql = f"SELECT {picked}count(*) AS n FROM events WHERE workspace = %s AND kind = %s"
        params: list[object] = [*by, workspace, kind]
        if since is not None:
            sql += " AND at >= %s"
            params.append(since if since.tzinfo else since.replace(tzinfo=UTC))
        if actor is not None:
            sql += " AND actor = %s"
            params.append(actor)
        if scopes is not None:
            if not scopes:
                return {}
            sql += " AND record::jsonb ->> 'scope' = ANY(%s)"
            params.append(list(scopes))
        if by:
            sql += " GROUP BY " + ", ".join(str(i + 1) for i in range(len(by)))
        out: dict[tuple[object, ...], int] = {}
        with self._read() as conn:
            for row in conn.execute(sql, params):
                values = list(row.values())
                if not values[-1]:
                    continue  # no GROUP BY: one row, a count of 0 when nothing matched
                key = tuple(None if v is None else json.loads(v) for v in values[: len(by)])
                out[key] = out.get(key, 0) + int(values[-1])
        return out
