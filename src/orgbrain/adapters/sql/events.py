"""Reading the store's event log, for both SQL stores. Writing it and counting it stay
each backend's own (``graphlog.py``): how a sequence number is taken, and how a field is
pulled out of a record's JSON, are where they differ."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .dialect import Part
from .rows import Row

__all__ = ["EventLog"]


class EventLog(Part):
    """``events`` and ``events_after``: records with ``id`` (the event's sequence number)
    and ``at`` (ISO 8601)."""

    def events(
        self, workspace: str, kind: str, *, limit: int = 20, actor: str | None = None
    ) -> list[dict[str, object]]:
        d = self._dialect
        sql = f"SELECT {d.seq} AS seq, at, record FROM events WHERE workspace = ? AND kind = ?"
        params: list[object] = [workspace, kind]
        if actor is not None:
            sql += " AND actor = ?"
            params.append(actor)
        sql += f" ORDER BY {d.seq} DESC LIMIT ?"
        with self._read() as conn:
            rows = conn.execute(d.sql(sql), [*params, limit]).fetchall()
        return [self._event(r) for r in rows]

    def events_after(
        self,
        workspace: str,
        after: int,
        *,
        kinds: Sequence[str] | None = None,
        subject: str | None = None,
        limit: int = 100,
    ) -> list[dict[str, object]]:
        """Records after sequence number ``after``, oldest first, each with ``id`` (its
        sequence number), ``kind`` and ``at``."""
        d = self._dialect
        sql = (
            f"SELECT {d.seq} AS seq, kind, at, record FROM events "
            f"WHERE workspace = ? AND {d.seq} > ?"
        )
        params: list[Any] = [workspace, after]
        if kinds is not None:
            cond, more = d.any_of("kind", kinds)
            sql, params = f"{sql} AND {cond}", params + more
        if subject is not None:
            sql += " AND subject = ?"
            params.append(subject)
        sql += f" ORDER BY {d.seq} LIMIT ?"
        with self._read() as conn:
            rows = conn.execute(d.sql(sql), [*params, limit]).fetchall()
        return [{**self._event(r), "kind": r["kind"]} for r in rows]

    def _event(self, r: Row) -> dict[str, object]:
        data: dict[str, object] = json.loads(r["record"])
        data.update(id=int(r["seq"]), at=self._dialect.rows.at(r["at"]).isoformat())
        return data
