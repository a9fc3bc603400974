"""The job queue in the brain's SQLite file (migration ``0005_jobs``).

Every process that opens the file sees the same queue. A claim is one ``BEGIN
IMMEDIATE`` transaction, so two workers — threads or processes — never take the same
job: SQLite lets one writer in at a time and the second sees the first one's lease.
Every write commits with ``synchronous=FULL`` in WAL mode, so it is on disk before the
call returns.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

from ...errors import InvalidInput
from ...ids import new_id
from ...model import utcnow
from ...ports import Job, JobBacklog, JobPage, JobRequest, JobState, JobTiming
from .db import Database
from .rows import ROWS
from .schema import migrate

__all__ = ["SQLiteJobQueue"]

_LEASE_LOST = "the lease expired on its last attempt: its worker stopped or hung"


def _ts(when: datetime) -> str:
    # Fixed width (microseconds always written), so string order is time order.
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


_job = ROWS.job_from_row


class SQLiteJobQueue:
    """``JobQueue`` over ``path`` (normally ``<brain>/brain.sqlite``); one connection per
    thread, like the store's."""

    def __init__(
        self,
        path: str | Path,
        *,
        timeout: float = 30.0,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.path = Path(path)
        self._clock = clock
        self._db = Database(self.path, timeout=timeout, what="job queue")
        migrate(self._conn())

    def _conn(self) -> sqlite3.Connection:
        return self._db.conn()

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
        return self._db.tx()

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
        now = _ts(self._clock())
        out = []
        with self._tx() as conn:
            for key, payload, subject in requests:
                conn.execute(
                    "INSERT INTO jobs (id, workspace, kind, key, subject, actor, payload, state, "
                    "max_attempts, run_after, created_at, updated_at) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?) "
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
                conn.execute(
                    "UPDATE jobs SET state = 'queued', attempts = 0, run_after = ?, "
                    "updated_at = ?, finished_at = NULL WHERE workspace = ? AND key = ? "
                    "AND state = 'failed'",
                    (now, now, workspace, key),
                )
                row = conn.execute(
                    "SELECT * FROM jobs WHERE workspace = ? AND key = ?", (workspace, key)
                ).fetchone()
                out.append(_job(row))
        return out

    def claim(
        self, owner: str, kinds: Sequence[str], *, limit: int = 1, lease_s: float = 60.0
    ) -> list[Job]:
        if not kinds or limit < 1:
            return []
        now = self._clock()
        at, until = _ts(now), _ts(now + timedelta(seconds=lease_s))
        marks = ", ".join("?" * len(kinds))
        ready = (
            f"kind IN ({marks}) AND ((state = 'queued' AND run_after <= ?) "
            "OR (state = 'running' AND lease_until <= ?))"
        )
        # Idle workers poll: look first without the write lock, which other processes and
        # the store's own writes need.
        if (
            self._conn()
            .execute(f"SELECT 1 FROM jobs WHERE {ready} LIMIT 1", (*kinds, at, at))
            .fetchone()
            is None
        ):
            return []
        with self._tx() as conn:
            conn.execute(
                "UPDATE jobs SET state = 'failed', last_error = ?, lease_owner = NULL, "
                "lease_until = NULL, finished_at = ?, updated_at = ? "
                f"WHERE state = 'running' AND kind IN ({marks}) AND lease_until <= ? "
                "AND attempts >= max_attempts",
                (_LEASE_LOST, at, at, *kinds, at),
            )
            # Workspaces take turns (each one's oldest ready job, then each one's next), so
            # one workspace's bulk upload never makes another's one file wait behind it.
            rowids = [
                int(r[0])
                for r in conn.execute(
                    "SELECT rowid FROM (SELECT rowid, run_after, row_number() OVER "
                    "(PARTITION BY workspace ORDER BY run_after, rowid) AS turn "
                    f"FROM jobs WHERE {ready}) ORDER BY turn, run_after, rowid LIMIT ?",
                    (*kinds, at, at, limit),
                )
            ]
            if not rowids:
                return []
            picked = ", ".join("?" * len(rowids))
            conn.execute(
                "UPDATE jobs SET state = 'running', attempts = attempts + 1, lease_owner = ?, "
                f"lease_until = ?, updated_at = ? WHERE rowid IN ({picked})",
                (owner, until, at, *rowids),
            )
            rows = conn.execute(f"SELECT * FROM jobs WHERE rowid IN ({picked})", rowids)
            by_rowid = {int(r["rowid"]): r for r in rows}
        return [_job(by_rowid[r]) for r in rowids]  # in the order they were picked

    def extend(self, job_ids: Sequence[str], owner: str, lease_s: float) -> list[str]:
        if not job_ids:
            return []
        now = self._clock()
        marks = ", ".join("?" * len(job_ids))
        with self._tx() as conn:
            rows = conn.execute(
                f"UPDATE jobs SET lease_until = ?, updated_at = ? WHERE id IN ({marks}) "
                "AND state = 'running' AND lease_owner = ? RETURNING id",
                (_ts(now + timedelta(seconds=lease_s)), _ts(now), *job_ids, owner),
            ).fetchall()
        held = {r[0] for r in rows}
        return [i for i in job_ids if i in held]

    def complete(self, job_id: str, owner: str) -> bool:
        now = _ts(self._clock())
        with self._tx() as conn:
            cur = conn.execute(
                "UPDATE jobs SET state = 'done', lease_owner = NULL, lease_until = NULL, "
                "last_error = NULL, finished_at = ?, updated_at = ? "
                "WHERE id = ? AND state = 'running' AND lease_owner = ?",
                (now, now, job_id, owner),
            )
            return cur.rowcount == 1

    def fail(self, job_id: str, owner: str, error: str, *, retry_in: float | None = None) -> bool:
        now = self._clock()
        at = _ts(now)
        with self._tx() as conn:
            row = conn.execute(
                "SELECT attempts, max_attempts FROM jobs "
                "WHERE id = ? AND state = 'running' AND lease_owner = ?",
                (job_id, owner),
            ).fetchone()
            if row is None:
                return False
            if retry_in is not None and int(row[0]) < int(row[1]):
                conn.execute(
                    "UPDATE jobs SET state = 'queued', last_error = ?, run_after = ?, "
                    "lease_owner = NULL, lease_until = NULL, updated_at = ? WHERE id = ?",
                    (error, _ts(now + timedelta(seconds=max(0.0, retry_in))), at, job_id),
                )
            else:
                conn.execute(
                    "UPDATE jobs SET state = 'failed', last_error = ?, lease_owner = NULL, "
                    "lease_until = NULL, finished_at = ?, updated_at = ? WHERE id = ?",
                    (error, at, at, job_id),
                )
            return True

    # -- reads --------------------------------------------------------------------------

    def get(self, job_id: str) -> Job | None:
        row = self._conn().execute("SELECT * FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return None if row is None else _job(row)

    def find(self, workspace: str, keys: Sequence[str]) -> dict[str, Job]:
        out: dict[str, Job] = {}
        unique = list(dict.fromkeys(keys))
        conn = self._conn()
        for i in range(0, len(unique), 500):
            batch = unique[i : i + 500]
            sql = (
                f"SELECT * FROM jobs WHERE workspace = ? AND key IN ({', '.join('?' * len(batch))})"
            )
            for row in conn.execute(sql, (workspace, *batch)):
                out[row["key"]] = _job(row)
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
            where.append("rowid < ?")
            params.append(int(cursor))
        sql = "SELECT * FROM jobs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self._conn().execute(sql + " ORDER BY rowid DESC LIMIT ?", (*params, limit + 1))
        found = rows.fetchall()
        more = len(found) > limit
        found = found[:limit]
        next_cursor = str(found[-1]["rowid"]) if more and found else None
        return JobPage(tuple(_job(r) for r in found), next_cursor)

    def counts(self) -> dict[JobState, int]:
        rows = self._conn().execute("SELECT state, count(*) FROM jobs GROUP BY state")
        out: dict[JobState, int] = {"queued": 0, "running": 0, "done": 0, "failed": 0}
        for state, n in rows:
            out[cast(JobState, state)] = int(n)
        return out

    def backlog(self, workspace: str, *, actor: str | None = None) -> list[JobBacklog]:
        sql = (
            "SELECT kind, state, count(*), min(created_at) FROM jobs WHERE workspace = ? "
            "AND state IN ('queued', 'running', 'failed')"
        )
        params: list[object] = [workspace]
        if actor is not None:
            sql, params = sql + " AND actor = ?", [*params, actor]
        rows = self._conn().execute(sql + " GROUP BY kind, state ORDER BY kind, state", params)
        return [
            JobBacklog(kind, cast(JobState, state), int(n), datetime.fromisoformat(oldest))
            for kind, state, n, oldest in rows
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
            "SELECT kind, created_at, finished_at FROM jobs WHERE workspace = ? AND state = 'done'"
        )
        params: list[object] = [workspace]
        if actor is not None:
            sql, params = sql + " AND actor = ?", [*params, actor]
        if since is not None:
            sql, params = sql + " AND finished_at >= ?", [*params, _ts(since)]
        rows = self._conn().execute(sql + " ORDER BY rowid DESC LIMIT ?", (*params, limit))
        return [
            JobTiming(kind, datetime.fromisoformat(created), datetime.fromisoformat(done))
            for kind, created, done in rows
            if done is not None
        ]
