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
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import datetime, timedelta
from pathlib import Path

from ...errors import InvalidInput
from ...ids import new_id
from ...model import utcnow
from ...ports import Job, JobRequest
from ..sql.jobs import Jobs
from .db import Database
from .rows import JOBS_DIALECT, job_stamp
from .schema import migrate

__all__ = ["SQLiteJobQueue"]

_LEASE_LOST = "the lease expired on its last attempt: its worker stopped or hung"


_job = JOBS_DIALECT.rows.job_from_row


class SQLiteJobQueue(Jobs):
    """``JobQueue`` over ``path`` (normally ``<brain>/brain.sqlite``); one connection per
    thread, like the store's."""

    _dialect = JOBS_DIALECT

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

    def _read(self) -> AbstractContextManager[sqlite3.Connection]:
        return nullcontext(self._conn())

    def _tx(self) -> AbstractContextManager[sqlite3.Connection]:
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
        now = job_stamp(self._clock())
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
        at, until = job_stamp(now), job_stamp(now + timedelta(seconds=lease_s))
        marks = ", ".join("?" * len(kinds))
        only, only_args = "", tuple[str, ...]()
        if keys is not None:
            only = f" AND workspace = ? AND key IN ({', '.join('?' * len(keys[1]))})"
            only_args = (keys[0], *keys[1])
        ready = (
            f"kind IN ({marks}) AND ((state = 'queued' AND run_after <= ?) "
            f"OR (state = 'running' AND lease_until <= ?)){only}"
        )
        ready_args = (*kinds, at, at, *only_args)
        # Idle workers poll: look first without the write lock, which other processes and
        # the store's own writes need.
        if (
            self._conn().execute(f"SELECT 1 FROM jobs WHERE {ready} LIMIT 1", ready_args).fetchone()
            is None
        ):
            return []
        with self._tx() as conn:
            conn.execute(
                "UPDATE jobs SET state = 'failed', last_error = ?, lease_owner = NULL, "
                "lease_until = NULL, finished_at = ?, updated_at = ? "
                f"WHERE state = 'running' AND kind IN ({marks}) AND lease_until <= ? "
                f"AND attempts >= max_attempts{only}",
                (_LEASE_LOST, at, at, *kinds, at, *only_args),
            )
            # One workspace a claim, so a slow job holds only its own workspace's batch: the
            # one with nothing running under a live lease first, then the one served least
            # recently (its latest claimed or settled job), so workspaces take turns.
            picked_ws = conn.execute(
                "SELECT workspace FROM (SELECT workspace, MIN(run_after) AS oldest, "
                f"MIN(rowid) AS first FROM jobs WHERE {ready} GROUP BY workspace) AS w "
                "ORDER BY EXISTS (SELECT 1 FROM jobs b WHERE b.workspace = w.workspace "
                f"AND b.state = 'running' AND b.lease_until > ? AND b.kind IN ({marks})), "
                "COALESCE((SELECT MAX(s.updated_at) FROM jobs s WHERE s.workspace = "
                f"w.workspace AND s.state != 'queued' AND s.kind IN ({marks})), ''), "
                "oldest, first LIMIT 1",
                (*ready_args, at, *kinds, *kinds),
            ).fetchone()
            if picked_ws is None:
                return []
            rowids = [
                int(r[0])
                for r in conn.execute(
                    f"SELECT rowid FROM jobs WHERE workspace = ? AND {ready} "
                    "ORDER BY run_after, rowid LIMIT ?",
                    (picked_ws[0], *ready_args, limit),
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
