"""The store's event log, as this backend writes and counts it: one part of ``SQLiteStore``,
kept apart so the items and search stay readable (``store.py``). Events are numbered by
``rowid`` and stamped as UTC ISO text; the edges, the counts and the reading of the log are both
stores' (``adapters/sql/``)."""

from __future__ import annotations

import json
import re
import sqlite3
from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime

from ...errors import InvalidInput
from ...model import utcnow
from ..sql.edges import Edges
from ..sql.events import EventLog

__all__ = ["EdgesAndLog"]

_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class EdgesAndLog(Edges, EventLog):
    """Edges and counts (``Edges``), and the event log (read by ``EventLog``)."""

    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...

    @abstractmethod
    def _lazy_tx(self) -> AbstractContextManager[sqlite3.Connection]:
        """A write transaction whose commit is not flushed to disk on its own (the
        ``durable=False`` of ``log_event``)."""

    # -- events -------------------------------------------------------------------------

    def log_event(
        self, workspace: str, kind: str, record: dict[str, object], *, durable: bool = True
    ) -> int:
        actor = record.get("actor")
        subject = record.get("item_id")  # the item an event is about, for its story
        with self._tx() if durable else self._lazy_tx() as conn:
            cur = conn.execute(
                "INSERT INTO events (workspace, kind, at, actor, subject, record) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    workspace,
                    kind,
                    utcnow().isoformat(),
                    None if actor is None else str(actor),
                    None if subject is None else str(subject),
                    json.dumps(record, default=str),
                ),
            )
            return int(cur.lastrowid or 0)

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
        # Each field as JSON, so a value keeps its type: one field through `->` (JSON text,
        # NULL when absent); several through one json_extract, which parses the record once
        # (not once a field) and gives them as a JSON array (null when absent).
        if len(by) > 1:
            picked = f"json_extract(record, {', '.join('?' for _ in by)}), "
        else:
            picked = "".join("record -> ?, " for _ in by)
        sql = f"SELECT {picked}count(*) FROM events WHERE workspace = ? AND kind = ?"
        params: list[object] = [*(f"$.{f}" for f in by), workspace, kind]
        if since is not None:
            # Stamps are UTC ISO text (log_event), so text order is time order.
            at = since if since.tzinfo else since.replace(tzinfo=UTC)
            sql += " AND at >= ?"
            params.append(at.astimezone(UTC).isoformat())
        if actor is not None:
            sql += " AND actor = ?"
            params.append(actor)
        if scopes is not None:
            if not scopes:
                return {}
            sql += f" AND record ->> '$.scope' IN ({', '.join('?' * len(scopes))})"
            params += list(scopes)
        if by:
            sql += " GROUP BY 1"
        out: dict[tuple[object, ...], int] = {}
        for row in self._conn().execute(sql, params):
            if not row[-1]:
                continue  # no GROUP BY: one row, a count of 0 when nothing matched
            if len(by) > 1:
                key = tuple(json.loads(row[0]))
            else:
                key = tuple(None if v is None else json.loads(v) for v in row[: len(by)])
            out[key] = out.get(key, 0) + int(row[-1])
        return out
