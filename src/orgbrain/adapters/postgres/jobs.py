"""The job queue in PostgreSQL: N workers on M machines drain one queue, no job run twice.

A claim is one transaction that picks the ready jobs (workspaces taking turns, oldest
first), locks them with ``FOR UPDATE SKIP LOCKED`` — a job another claimer holds is
skipped, never waited for — and marks them ``running`` under the worker's lease. Only the
lease's owner may extend, complete or fail a job (every such write names the owner in
its WHERE clause), so a worker that lost its lease cannot overwrite the outcome of the one
that took over. Every write has committed (durably) when it returns. Times come from the
queue's clock, not the server's, so leases expire when the tests say.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta

from ...errors import InvalidInput
from ...ids import new_id
from ...model import utcnow
from ...ports import Job, JobRequest
from ..sql.jobs import Jobs
from .db import DEFAULT_TIMEOUT_S, Connection, Database
from .rows import DIALECT
from .schema import migrate

__all__ = ["PostgresJobQueue"]

_LEASE_LOST = "the lease expired on its last attempt: its worker stopped or hung"
_READY = (
    "kind = ANY(%(kinds)s) AND ((state = 'queued' AND run_after <= %(at)s) "
    "OR (state = 'running' AND lease_until <= %(at)s))"
)


_job = DIALECT.rows.job_from_row


class PostgresJobQueue(Jobs):
    """``JobQueue`` over the PostgreSQL database at ``url`` (the store's tables' schema)."""

    _dialect = DIALECT

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_connections: int = 4,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.url = url
        self._clock = clock
        self._db = Database(url, timeout_s=timeout_s, max_size=max_connections, what="job queue")
        conn = self._db.connect()
        try:
            migrate(conn)
        finally:
            conn.close()
        self._db.open()

    def _read(self) -> AbstractContextManager[Connection]:
        return self._db.read()

    def _tx(self) -> AbstractContextManager[Connection]:
        return self._db.tx()

    def close(self) -> None:
        self._db.close()

    # -- writes -------------------------------------------------------------------------

    def enqueue_many(
        self,
        workspace: str,
        kind: str,
        requests: Sequence[JobRequest],
        *,
        actor: str,
        max_attempts: int = 5,
    ) -> list[Job]:
        if max_attempts < 1:
            raise InvalidInput("a job needs at least one attempt")
        now = self._clock()
        out = []
        with self._db.tx() as conn:
            for key, payload, subject in requests:
                conn.execute(
                    "INSERT INTO jobs (id, workspace, kind, key, subject, actor, payload, state, "
                    "max_attempts, run_after, created_at, updated_at) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, 'queued', %s, %s, %s, %s) "
                    "ON CONFLICT (workspace, key) DO NOTHING",
                    (
                        new_id("job"),
                        workspace,
                        kind,
                        key,
                        subject,
                        actor,
                        json.dumps(dict(payload), sort_keys=True, default=str),
                        max_attempts,
                        now,
                        now,
                        now,
                    ),
                )
                # Asked again after it failed: the same row runs again, from its first
                # attempt.
                row = conn.execute(
                    "UPDATE jobs SET state = 'queued', attempts = 0, run_after = %s, "
                    "updated_at = %s, finished_at = NULL WHERE workspace = %s AND key = %s "
                    "AND state = 'failed' RETURNING *",
                    (now, now, workspace, key),
                ).fetchone()
                if row is None:
                    row = conn.execute(
                        "SELECT * FROM jobs WHERE workspace = %s AND key = %s", (workspace, key)
                    ).fetchone()
                assert row is not None
                out.append(_job(row))
        return out

    def claim(
        self,
        owner: str,
        kinds: Sequence[str],
        *,
        limit: int = 1,
        lease_s: float = 60.0,
        keys: tuple[str, Sequence[str]] | None = None,
    ) -> list[Job]:
        if not kinds or limit < 1 or (keys is not None and not keys[1]):
            return []
        now = self._clock()
        p: dict[str, object] = {
            "kinds": list(kinds),
            "at": now,
            "until": now + timedelta(seconds=lease_s),
            "owner": owner,
            "error": _LEASE_LOST,
            "limit": limit,
        }
        ready, only = _READY, ""
        if keys is not None:
            only = " AND workspace = %(only_ws)s AND key = ANY(%(only_keys)s)"
            ready += only
            p |= {"only_ws": keys[0], "only_keys": list(keys[1])}
        # Idle workers poll: look first without a transaction.
        with self._db.read() as conn:
            if conn.execute(f"SELECT 1 FROM jobs WHERE {ready} LIMIT 1", p).fetchone() is None:
                return []
        with self._db.tx() as conn:
            conn.execute(
                "UPDATE jobs SET state = 'failed', last_error = %(error)s, lease_owner = NULL, "
                "lease_until = NULL, finished_at = %(at)s, updated_at = %(at)s "
                "WHERE pk IN (SELECT pk FROM jobs WHERE state = 'running' "
                "AND kind = ANY(%(kinds)s) AND lease_until <= %(at)s "
                f"AND attempts >= max_attempts{only} FOR UPDATE SKIP LOCKED)",
                p,
            )
            # One workspace a claim, so a slow job holds only its own workspace's batch: the
            # one with nothing running under a live lease first, then the one served least
            # recently (its latest claimed or settled job), so workspaces take turns.
            turns = [
                str(r["workspace"])
                for r in conn.execute(
                    "SELECT workspace FROM (SELECT workspace, MIN(run_after) AS oldest, "
                    f"MIN(pk) AS first FROM jobs WHERE {ready} GROUP BY workspace) w "
                    "ORDER BY EXISTS (SELECT 1 FROM jobs b WHERE b.workspace = w.workspace "
                    "AND b.state = 'running' AND b.lease_until > %(at)s "
                    "AND b.kind = ANY(%(kinds)s)), (SELECT MAX(s.updated_at) FROM jobs s "
                    "WHERE s.workspace = w.workspace AND s.state <> 'queued' "
                    "AND s.kind = ANY(%(kinds)s)) NULLS FIRST, oldest, first",
                    p,
                )
            ]
            picked: list[int] = []
            for workspace in turns:  # claimers racing skip the jobs the other one locked
                picked = [
                    int(r["pk"])
                    for r in conn.execute(
                        f"SELECT pk FROM jobs WHERE workspace = %(ws)s AND {ready} "
                        "ORDER BY run_after, pk LIMIT %(limit)s FOR UPDATE SKIP LOCKED",
                        {**p, "ws": workspace},
                    )
                ]
                if picked:
                    break
            if not picked:
                return []
            rows = conn.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, "
                "lease_owner = %(owner)s, lease_until = %(until)s, updated_at = %(at)s "
                "WHERE pk = ANY(%(pks)s) RETURNING *",
                {**p, "pks": picked},
            ).fetchall()
        by_pk = {int(r["pk"]): r for r in rows}
        return [_job(by_pk[pk]) for pk in picked]  # in the order they were picked
