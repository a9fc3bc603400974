"""What both SQL job queues do alike: a lease's owner extends, completes or fails its job
(every such write names the owner in its WHERE clause, so a worker that lost its lease
cannot overwrite the outcome of the one that took over), and the reads. Each backend
keeps its own ``enqueue_many`` and ``claim``: how a claim keeps two workers off one job
is where they differ (SQLite's one writer, PostgreSQL's ``FOR UPDATE SKIP LOCKED``)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import cast

from ...errors import InvalidInput
from ...ports import Job, JobBacklog, JobPage, JobRequest, JobState, JobTiming
from .dialect import Part

__all__ = ["Jobs"]


class Jobs(Part):
    """The ``JobQueue`` methods both SQL queues share, over the ``jobs`` table."""

    _clock: Callable[[], datetime]

    @abstractmethod
    def enqueue_many(
        self,
        workspace: str,
        kind: str,
        requests: Sequence[JobRequest],
        *,
        actor: str,
        max_attempts: int = 5,
    ) -> list[Job]: ...

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

    def extend(self, job_ids: Sequence[str], owner: str, lease_s: float) -> list[str]:
        if not job_ids:
            return []
        d = self._dialect
        now = self._clock()
        until = d.rows.time(now + timedelta(seconds=lease_s))
        held, params = d.any_of("id", job_ids)
        with self._tx() as conn:
            rows = conn.execute(
                d.sql(
                    f"UPDATE jobs SET lease_until = ?, updated_at = ? WHERE {held} "
                    "AND state = 'running' AND lease_owner = ? RETURNING id"
                ),
                (until, d.rows.time(now), *params, owner),
            ).fetchall()
        kept = {r["id"] for r in rows}
        return [i for i in job_ids if i in kept]

    def complete(self, job_id: str, owner: str) -> bool:
        d = self._dialect
        now = d.rows.time(self._clock())
        with self._tx() as conn:
            cur = conn.execute(
                d.sql(
                    "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, "
                    "last_error = NULL, finished_at = ?, updated_at = ? "
                    "WHERE id = ? AND state = 'running' AND lease_owner = ?"
                ),
                (now, now, job_id, owner),
            )
            return cur.rowcount == 1

    def fail(self, job_id: str, owner: str, error: str, *, retry_in: float | None = None) -> bool:
        d = self._dialect
        now = self._clock()
        at = d.rows.time(now)
        with self._tx() as conn:
            row = conn.execute(
                d.sql(
                    "SELECT attempts, max_attempts FROM jobs "
                    f"WHERE id = ? AND state = 'running' AND lease_owner = ?{d.lock_rows}"
                ),
                (job_id, owner),
            ).fetchone()
            if row is None:
                return False
            if retry_in is not None and int(row["attempts"]) < int(row["max_attempts"]):
                again = d.rows.time(now + timedelta(seconds=max(0.0, retry_in)))
                conn.execute(
                    d.sql(
                        "UPDATE jobs SET state = 'queued', last_error = ?, run_after = ?, "
                        "lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ?"
                    ),
                    (error, again, at, job_id),
                )
            else:
                conn.execute(
                    d.sql(
                        "UPDATE jobs SET state = 'failed', last_error = ?, lease_owner = NULL, "
                        "lease_until = NULL, finished_at = ?, updated_at = ? WHERE id = ?"
                    ),
                    (error, at, at, job_id),
                )
            return True

    # -- reads --------------------------------------------------------------------------

    def get(self, job_id: str) -> Job | None:
        d = self._dialect
        with self._read() as conn:
            row = conn.execute(d.sql("SELECT * FROM jobs WHERE id = ?"), (job_id,)).fetchone()
        return None if row is None else d.rows.job_from_row(row)

    def find(self, workspace: str, keys: Sequence[str]) -> dict[str, Job]:
        d = self._dialect
        out: dict[str, Job] = {}
        unique = list(dict.fromkeys(keys))
        with self._read() as conn:
            for i in range(0, len(unique), 500):  # SQLite's bound on marks a statement
                named, params = d.any_of("key", unique[i : i + 500])
                sql = d.sql(f"SELECT * FROM jobs WHERE workspace = ? AND {named}")
                for row in conn.execute(sql, (workspace, *params)).fetchall():
                    out[row["key"]] = d.rows.job_from_row(row)
        return out

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
        d = self._dialect
        where: list[str] = []
        params: list[object] = []
        for column, value in (
            ("workspace", workspace),
            ("state", state),
            ("kind", kind),
            ("actor", actor),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if cursor is not None:
            if not cursor.isdigit() or len(cursor) > 18:
                raise InvalidInput(f"invalid cursor {cursor!r}")
            where.append(f"{d.pos} < ?")
            params.append(int(cursor))
        sql = "SELECT * FROM jobs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY {d.pos} DESC LIMIT ?"
        with self._read() as conn:
            found = list(conn.execute(d.sql(sql), (*params, limit + 1)).fetchall())
        more = len(found) > limit
        found = found[:limit]
        next_cursor = str(found[-1][d.pos]) if more and found else None
        return JobPage(tuple(d.rows.job_from_row(r) for r in found), next_cursor)

    def counts(self) -> dict[JobState, int]:
        out: dict[JobState, int] = {"queued": 0, "running": 0, "done": 0, "failed": 0}
        with self._read() as conn:
            rows = conn.execute("SELECT state, count(*) AS n FROM jobs GROUP BY state").fetchall()
        for r in rows:
            out[cast(JobState, r["state"])] = int(r["n"])
        return out

    def backlog(self, workspace: str, *, actor: str | None = None) -> list[JobBacklog]:
        d = self._dialect
        sql = (
            "SELECT kind, state, count(*) AS n, min(created_at) AS oldest FROM jobs "
            "WHERE workspace = ? AND state IN ('queued', 'running', 'failed')"
        )
        params: list[object] = [workspace]
        if actor is not None:
            sql, params = sql + " AND actor = ?", [*params, actor]
        sql += " GROUP BY kind, state ORDER BY kind, state"
        with self._read() as conn:
            rows = conn.execute(d.sql(sql), params).fetchall()
        return [
            JobBacklog(r["kind"], cast(JobState, r["state"]), int(r["n"]), d.rows.at(r["oldest"]))
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
        d = self._dialect
        sql = (
            "SELECT kind, created_at, finished_at FROM jobs WHERE workspace = ? AND state = 'done'"
        )
        params: list[object] = [workspace]
        if actor is not None:
            sql, params = sql + " AND actor = ?", [*params, actor]
        if since is not None:
            sql, params = sql + " AND finished_at >= ?", [*params, d.rows.time(since)]
        sql += f" ORDER BY {d.pos} DESC LIMIT ?"
        with self._read() as conn:
            rows = conn.execute(d.sql(sql), (*params, limit)).fetchall()
        return [
            JobTiming(r["kind"], d.rows.at(r["created_at"]), d.rows.at(r["finished_at"]))
            for r in rows
            if r["finished_at"] is not None
        ]
