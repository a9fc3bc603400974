"""Running counts of the event log (``Store.rolled_counts``): one part of ``SQLiteStore``.

``event_rollups`` holds, per workspace, kind, lens (everyone's ``''``, ``actor:<who>``,
``scope:<scope>``), period (a UTC day ``D2026-11-05`` and month ``M2026-11``) and key (the
JSON array of the kind's ``EVENT_ROLLUPS`` fields), how many events there were. A trigger
on ``events`` keeps it, in the transaction of each insert (``log_event``,
``import_records`` and any other), so the counts never drift from the log; the migration
that makes the table counts the events already there. The log is append-only.
"""

from __future__ import annotations

import json
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import datetime

from ..rollup_periods import lenses, merged, rolled_fields, window

__all__ = ["ROLLUP_MIGRATION", "Rollups"]

# The key of each kind: its EVENT_ROLLUPS fields as JSON, in order (a field an event
# lacks is null). Written out here, not built from the constant: a migration never changes.
# json_extract of several paths parses the record once and gives their values as an array.
_KEY = """CASE {e}kind
            WHEN 'search' THEN json_extract({e}record, '$.surface', '$.spoke', '$.latency_ms',
                                            '$.error')
            WHEN 'gate' THEN json_array({e}record -> '$.decision')
            WHEN 'review' THEN json_extract({e}record, '$.outcome', '$.waited_s')
            ELSE json_array() END"""
_KINDS = "('search', 'gate', 'review', 'writeback')"

ROLLUP_MIGRATION = (
    "0013_event_rollups",
    f"""
    CREATE TABLE event_rollups (
        workspace TEXT NOT NULL,
        kind TEXT NOT NULL,
        lens TEXT NOT NULL,
        period TEXT NOT NULL,
        key TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (workspace, kind, lens, period, key)
    ) WITHOUT ROWID;
    WITH e AS (
        SELECT workspace, kind, actor, record ->> '$.scope' AS scope, substr(at, 1, 10) AS day,
               {_KEY.format(e="")} AS key
        FROM events WHERE kind IN {_KINDS}
    ), l AS (
        SELECT workspace, kind, '' AS lens, day, key FROM e
        UNION ALL SELECT workspace, kind, 'actor:' || actor, day, key FROM e
            WHERE actor IS NOT NULL
        UNION ALL SELECT workspace, kind, 'scope:' || scope, day, key FROM e
            WHERE scope IS NOT NULL
    )
    INSERT INTO event_rollups (workspace, kind, lens, period, key, n)
    SELECT workspace, kind, lens, 'D' || day, key, count(*) FROM l GROUP BY 1, 2, 3, 4, 5
    UNION ALL
    SELECT workspace, kind, lens, 'M' || substr(day, 1, 7), key, count(*) FROM l
        GROUP BY 1, 2, 3, 4, 5;
    CREATE TRIGGER events_rollup AFTER INSERT ON events
    WHEN new.kind IN {_KINDS}
    BEGIN
        INSERT INTO event_rollups (workspace, kind, lens, period, key, n)
        SELECT new.workspace, new.kind, l.lens, p.period, {_KEY.format(e="new.")}, 1
        FROM (SELECT '' AS lens
              UNION ALL SELECT 'actor:' || new.actor WHERE new.actor IS NOT NULL
              UNION ALL SELECT 'scope:' || (new.record ->> '$.scope')
                  WHERE (new.record ->> '$.scope') IS NOT NULL) AS l,
             (SELECT 'D' || substr(new.at, 1, 10) AS period
              UNION ALL SELECT 'M' || substr(new.at, 1, 7)) AS p
        WHERE true
        ON CONFLICT (workspace, kind, lens, period, key) DO UPDATE SET n = n + excluded.n;
    END;
    """,
)
"""The table, its back-fill from the events already logged, and the trigger."""


class Rollups(ABC):
    """``rolled_counts`` over the store's connection."""

    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

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
            "SELECT key, n FROM event_rollups WHERE workspace = ? AND kind = ? "
            f"AND lens IN ({', '.join('?' * len(lens))}) AND period >= ? AND period < ?"
        )
        parts, params = [rolled], [workspace, kind, *lens, *w.months]
        if w.days is not None:
            parts.append(rolled)
            params += [workspace, kind, *lens, *w.days]
        if w.less is not None:
            parts.append(rolled.replace("SELECT key, n", "SELECT key, -n"))
            params += [workspace, kind, *lens, *w.less]
        if w.raw is not None:
            # Stamps are UTC ISO text (log_event), so text order is time order.
            if len(fields) > 1:  # the record parsed once, the values as a JSON array
                key = f"json_extract(record, {', '.join('?' for _ in fields)})"
            else:
                key = f"json_array({', '.join('record -> ?' for _ in fields)})"
            raw = (
                f"SELECT {key} AS key, 1 AS n FROM events "
                "WHERE workspace = ? AND kind = ? AND at >= ? AND at < ?"
            )
            params += [*(f"$.{f}" for f in fields), workspace, kind]
            params += [w.raw[0].isoformat(), w.raw[1].isoformat()]
            if actor is not None:
                raw += " AND actor = ?"
                params.append(actor)
            if scopes is not None:
                raw += f" AND record ->> '$.scope' IN ({', '.join('?' * len(lens))})"
                params += [s.removeprefix("scope:") for s in lens]
            parts.append(raw)
        sql = f"SELECT key, sum(n) FROM ({' UNION ALL '.join(parts)}) GROUP BY key"
        rows = self._conn().execute(sql, params).fetchall()
        return dict(merged([(tuple(json.loads(k)), int(n)) for k, n in rows]))
