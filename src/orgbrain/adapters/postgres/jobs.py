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
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import cast

from ...errors import InvalidInput
from ...ids import new_id
from ...model import utcnow
from ...ports import Job, JobBacklog, JobPage, JobRequest, JobState, JobTiming
from .db import DEFAULT_TIMEOUT_S, Database
from .rows import ROWS
from .schema import migrate

__all__ = ["PostgresJobQueue"]

_LEASE_LOST = "the lease expired on its last attempt: its worker stopped or hung"
_READY = (
    "kind = ANY(%(kinds)s) AND ((state = 'queued' AND run_after <= %(at)s) "
    "OR (state = 'running' AND lease_until <= %(at)s))"
)


_job = ROWS.job_from_row


class PostgresJobQueue:
    """``JobQueue`` over the PostgreSQL database at ``url`` (the store's tables' schema)."""

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

    def close(self) -> None:
        self._db.close()

    # -- writes -------------------------------------------------------------------------

    def enqueue(
        self,
        workspace: str,
        kind: str,
        key: str,
        payload: Mapping[str, object],
        *,
        actor: str,
        subject: str | None = None,
        max_attempts: int = 5,
    ) -> Job:
        return self.enqueue_many(
            workspace, kind, [(key, payload, subject)], actor=actor, max_attempts=max_attempts
        )[0]

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
        self, owner: str, kinds: Sequence[str], *, limit: int = 1, lease_s: float = 60.0
    ) -> list[Job]:
        if not kinds or limit < 1:
            return []
        now = self._clock()
        p: dict[str, object] = {
            "kinds": list(kinds),
            "at": now,
            "until": now + timedelta(seconds=lease_s),
            "owner": owner,
            "error": _LEASE_LOST,
            "limit": limit,
            # Claimers racing for the same jobs skip each other's: pick a few spare.
            "pick": limit * 2 + 8,
        }
        # Idle workers poll: look first without a transaction.
        with self._db.read() as conn:
            if conn.execute(f"SELECT 1 FROM jobs WHERE {_READY} LIMIT 1", p).fetchone() is None:
                return []
        with self._db.tx() as conn:
            conn.execute(
                "UPDATE jobs SET state = 'failed', last_error = %(error)s, lease_owner = NULL, "
                "lease_until = NULL, finished_at = %(at)s, updated_at = %(at)s "
                "WHERE pk IN (SELECT pk FROM jobs WHERE state = 'running' "
                "AND kind = ANY(%(kinds)s) AND lease_until <= %(at)s "
                "AND attempts >= max_attempts FOR UPDATE SKIP LOCKED)",
                p,
            )
            # Workspaces take turns (each one's oldest ready job, then each one's next), so
            # one workspace's bulk upload never makes another's one file wait behind it.
            order = [
                int(r["pk"])
                for r in conn.execute(
                    "SELECT pk FROM (SELECT pk, run_after, row_number() OVER "
                    "(PARTITION BY workspace ORDER BY run_after, pk) AS turn "
                    f"FROM jobs WHERE {_READY}) t ORDER BY turn, run_after, pk LIMIT %(pick)s",
                    p,
                )
            ]
            if not order:
                return []
            # Lock the first ``limit`` of them that no other claimer holds, in turn order.
            picked = [
                int(r["pk"])
                for r in conn.execute(
                    f"SELECT pk FROM jobs WHERE pk = ANY(%(pks)s) AND {_READY} "
                    "ORDER BY array_position(%(pks)s, pk) LIMIT %(limit)s "
                    "FOR UPDATE SKIP LOCKED",
                    {**p, "pks": order},
                )
            ]
            if not picked:
                # Other claimers hold every one of those: take any ready job they do not.
                picked = [
                    int(r["pk"])
                    for r in conn.execute(
                        f"SELECT pk FROM jobs WHERE {_READY} ORDER BY run_after, pk "
                        "LIMIT %(limit)s FOR UPDATE SKIP LOCKED",
                        p,
                    )
                ]
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

    def extend(self, job_ids: Sequence[str], owner: str, lease_s: float) -> list[str]:
        if not job_ids:
            return []
        now = self._clock()
        with self._db.tx() as conn:
            rows = conn.execute(
                "UPDATE jobs SET lease_until = %s, updated_at = %s WHERE id = ANY(%s) "
                "AND state = 'running' AND lease_owner = %s RETURNING id",
                (now + timedelta(seconds=lease_s), now, list(job_ids), owner),
            ).fetchall()
        held = {r["id"] for r in rows}
        return [i for i in job_ids if i in held]

    def complete(self, job_id: str, owner: str) -> bool:
        now = self._clock()
        with self._db.tx() as conn:
            cur = conn.execute(
                "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, "
                "last_error = NULL, finished_at = %s, updated_at = %s "
                "WHERE id = %s AND state = 'running' AND lease_owner = %s",
                (now, now, job_id, owner),
            )
            return cur.rowcount == 1

    def fail(self, job_id: str, owner: str, error: str, *, retry_in: float | None = None) -> bool:
        now = self._clock()
        with self._db.tx() as conn:
            row = conn.execute(
                "SELECT attempts, max_attempts FROM jobs "
                "WHERE id = %s AND state = 'running' AND lease_owner = %s FOR UPDATE",
                (job_id, owner),
            ).fetchone()
            if row is None:
                return False
            if retry_in is not None and int(row["attempts"]) < int(row["max_attempts"]):
                conn.execute(
                    "UPDATE jobs SET state = 'queued', last_error = %s, run_after = %s, "
                    "lease_owner = NULL, lease_until = NULL, updated_at = %s WHERE id = %s",
                    (error, now + timedelta(seconds=max(0.0, retry_in)), now, job_id),
                )
            else:
                conn.execute(
                    "UPDATE jobs SET state = 'failed', last_error = %s, lease_owner = NULL, "
                    "lease_until = NULL, finished_at = %s, updated_at = %s WHERE id = %s",
                    (error, now, now, job_id),
                )
            return True

    # -- reads --------------------------------------------------------------------------

    def get(self, job_id: str) -> Job | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT * FROM jobs WHERE id = %s", (job_id,)).fetchone()
        return None if row is None else _job(row)

    def find(self, workspace: str, keys: Sequence[str]) -> dict[str, Job]:
        unique = list(dict.fromkeys(keys))
        if not unique:
            return {}
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT * FROM jobs WHERE workspace = %s AND key = ANY(%s)", (workspace, unique)
            ).fetchall()
        return {r["key"]: _job(r) for r in rows}

    def list_jobs(
        self,
        workspace: str | None,
        *,
        state: JobState | None = None,
        kind: str | None = None,
        actor: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> JobPage:
        where: list[str] = []
        params: list[object] = []
        for column, value in (
            ("workspace", workspace),
            ("state", state),
            ("kind", kind),
            ("actor", actor),
        ):
            if value is not None:
                where.append(f"{column} = %s")
                params.append(value)
        if cursor is not None:
            if not cursor.isdigit() or len(cursor) > 18:
                raise InvalidInput(f"invalid cursor {cursor!r}")
            where.append("pk < %s")
            params.append(int(cursor))
        sql = "SELECT * FROM jobs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        with self._db.read() as conn:
            found = conn.execute(
                sql + " ORDER BY pk DESC LIMIT %s", (*params, limit + 1)
            ).fetchall()
        more = len(found) > limit
        found = found[:limit]
        next_cursor = str(found[-1]["pk"]) if more and found else None
        return JobPage(tuple(_job(r) for r in found), next_cursor)

    def counts(self) -> dict[JobState, int]:
        out: dict[JobState, int] = {"queued": 0, "running": 0, "done": 0, "failed": 0}
        with self._db.read() as conn:
            for r in conn.execute("SELECT state, count(*) AS n FROM jobs GROUP BY state"):
                out[cast(JobState, r["state"])] = int(r["n"])
        return out

    def backlog(self, workspace: str, *, actor: str | None = None) -> list[JobBacklog]:
        sql = (
            "SELECT kind, state, count(*) AS n, min(created_at) AS oldest FROM jobs "
            "WHERE workspace = %s AND state IN ('queued', 'running', 'failed')"
        )
        params: list[object] = [workspace]
        if actor is not None:
            sql, params = sql + " AND actor = %s", [*params, actor]
        with self._db.read() as conn:
            rows = conn.execute(sql + " GROUP BY kind, state ORDER BY kind, state", params)
            return [
                JobBacklog(r["kind"], cast(JobState, r["state"]), int(r["n"]), r["oldest"])
                for r in rows
            ]

    def finished(
        self,
        workspace: str,
        *,
        actor: str | None = None,
        since: datetime | None = None,
        limit: int = 1000,
    ) -> list[JobTiming]:
        sql = (
            "SELECT kind, created_at, finished_at FROM jobs WHERE workspace = %s AND state = 'done'"
        )
        params: list[object] = [workspace]
        if actor is not None:
            sql, params = sql + " AND actor = %s", [*params, actor]
        if since is not None:
            sql, params = sql + " AND finished_at >= %s", [*params, since]
        with self._db.read() as conn:
            rows = conn.execute(sql + " ORDER BY pk DESC LIMIT %s", (*params, limit))
            return [
                JobTiming(r["kind"], r["created_at"], r["finished_at"])
                for r in rows
                if r["finished_at"] is not None
            ]
