"""Running counts of the event log (``Store.rolled_counts``): one part of ``PostgresStore``.

``event_rollups`` holds, per workspace, kind, lens (everyone's ``''``, ``actor:<who>``,
``scope:<scope>``), period (a UTC day ``D2026-11-05`` and month ``M2026-11``) and key (the
JSON array of the kind's ``EVENT_ROLLUPS`` fields), how many events there were. A trigger
on ``events`` keeps it, in the transaction of each insert (``log_event``,
``import_records`` and any other), so the counts never drift from the log; the migration
that makes the table counts the events already there. The log is append-only, and event
appends to a workspace take turns (``log_event``), so the counts' rows never deadlock.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime

from ..rollup_periods import lenses, merged, rolled_fields, window
from .db import Connection

__all__ = ["ROLLUP_MIGRATION", "Rollups"]

# The key of each kind: its EVENT_ROLLUPS fields as JSON, in order (a field an event
# lacks is null). Written out here, not built from the constant: a migration never changes.
_KEY = """CASE {e}kind
            WHEN 'search' THEN jsonb_build_array({r} -> 'surface', {r} -> 'spoke',
                                                 {r} -> 'latency_ms', {r} -> 'error')::text
            WHEN 'gate' THEN jsonb_build_array({r} -> 'decision')::text
            WHEN 'review' THEN jsonb_build_array({r} -> 'outcome', {r} -> 'waited_s')::text
            ELSE '[]' END"""
_KINDS = "('search', 'gate', 'review', 'writeback')"

ROLLUP_MIGRATION = (
    "0013_event_rollups",
    f"""
    CREATE TABLE event_rollups (
        workspace text NOT NULL,
        kind text NOT NULL,
        lens text NOT NULL,
        period text NOT NULL,
        key text NOT NULL,
        n bigint NOT NULL,
        PRIMARY KEY (workspace, kind, lens, period, key)
    );
    CREATE FUNCTION events_rollup() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
        r jsonb := NEW.record::jsonb;  -- parsed once
        d text := to_char(NEW.at AT TIME ZONE 'UTC', 'YYYY-MM-DD');
        k text := {_KEY.format(e="NEW.", r="r")};
    BEGIN
        INSERT INTO event_rollups AS t (workspace, kind, lens, period, key, n)
        SELECT NEW.workspace, NEW.kind, l.lens, p.period, k, 1
        FROM unnest(ARRAY['', 'actor:' || NEW.actor,
                          'scope:' || (r ->> 'scope')]) AS l(lens),
             unnest(ARRAY['D' || d, 'M' || left(d, 7)]) AS p(period)
        WHERE l.lens IS NOT NULL
        ON CONFLICT (workspace, kind, lens, period, key) DO UPDATE SET n = t.n + 1;
        RETURN NULL;
    END
    $fn$;
    -- The trigger first: it locks out other writers of events until this commits, so
    -- the back-fill below counts every event logged before it and none twice.
    CREATE TRIGGER events_rollup AFTER INSERT ON events FOR EACH ROW
        WHEN (NEW.kind IN {_KINDS}) EXECUTE FUNCTION events_rollup();
    INSERT INTO event_rollups (workspace, kind, lens, period, key, n)
    SELECT e.workspace, e.kind, l.lens, p.period, e.key, count(*)
    FROM (
        SELECT workspace, kind, actor, record::jsonb ->> 'scope' AS scope,
               to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
               {_KEY.format(e="", r="record::jsonb")} AS key
        FROM events WHERE kind IN {_KINDS}
    ) AS e,
        unnest(ARRAY['', 'actor:' || e.actor, 'scope:' || e.scope]) AS l(lens),
        unnest(ARRAY['D' || e.day, 'M' || left(e.day, 7)]) AS p(period)
    WHERE l.lens IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5;
    """,
)
"""The table, the trigger that keeps it, and its back-fill from the events already logged."""


class Rollups(ABC):
    """``rolled_counts`` over the store's read connections."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Connection]: ...

    def rolled_counts(
        self,
        workspace: str,
        kind: str,
        *,
        since: datetime | None = None,
        actor: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> dict[tuple[object, ...], int]:
        fields = rolled_fields(kind)
        lens = lenses(actor, scopes)
        if not lens:
            return {}  # no scopes: nothing
        w = window(since)
        rolled = (
            "SELECT key, n FROM event_rollups WHERE workspace = %s AND kind = %s "
            "AND lens = ANY(%s) AND period >= %s AND period < %s"
        )
        parts = [rolled]
        params: list[object] = [workspace, kind, lens, *w.months]
        if w.days is not None:
            parts.append(rolled)
            params += [workspace, kind, lens, *w.days]
        if w.less is not None:
            parts.append(rolled.replace("SELECT key, n", "SELECT key, -n"))
            params += [workspace, kind, lens, *w.less]
        if w.raw is not None:
            # Each record parsed once (OFFSET 0 keeps the cast from being inlined into
            # each field's read).
            key = ", ".join("r -> %s::text" for _ in fields)
            raw = (
                "SELECT record::jsonb AS r FROM events "
                "WHERE workspace = %s AND kind = %s AND at >= %s AND at < %s"
            )
            params += [*fields, workspace, kind, *w.raw]  # in the order they are written
            if actor is not None:
                raw += " AND actor = %s"
                params.append(actor)
            if scopes is not None:
                raw += " AND record::jsonb ->> 'scope' = ANY(%s)"
                params.append([s.removeprefix("scope:") for s in lens])
            raw = f"SELECT jsonb_build_array({key})::text AS key, 1 AS n FROM ({raw} OFFSET 0) AS e"
            parts.append(raw)
        sql = f"SELECT key, sum(n) AS n FROM ({' UNION ALL '.join(parts)}) AS c GROUP BY key"
        with self._read() as conn:
            rows = [(tuple(json.loads(r["key"])), int(r["n"])) for r in conn.execute(sql, params)]
        return dict(merged(rows))
