"""A ``JobQueue`` in this process's memory: the same rules as the SQLite queue (one
contract suite runs both), for tests and for a brain built without a durable queue.
Nothing survives the process, so it is never what ``Brain.open`` uses."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from ..errors import InvalidInput, Unavailable
from ..ids import new_id
from ..model import utcnow
from ..ports import Job, JobBacklog, JobPage, JobRequest, JobState, JobTiming

__all__ = ["MemoryJobQueue"]

_LEASE_LOST = "the lease expired on its last attempt: its worker stopped or hung"
_NEVER = datetime.min.replace(tzinfo=UTC)


class MemoryJobQueue:
    def __init__(self, *, clock: Callable[[], datetime] = utcnow) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._jobs: list[Job] = []  # in enqueue order; a job's position is its rowid
        self._closed = False

    def close(self) -> None:
        self._closed = True

    def _check(self) -> None:
        if self._closed:
            raise Unavailable("the job queue is closed")

    def _index(self, job_id: str) -> int | None:
        for i, job in enumerate(self._jobs):
            if job.id == job_id:
                return i
        return None

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
        if max_attempts < 1:
            raise InvalidInput("a job needs at least one attempt")
        with self._lock:
            self._check()
            now = self._clock()
            for i, job in enumerate(self._jobs):
                if job.workspace == workspace and job.key == key:
                    if job.state == "failed":
                        job = replace(
                            job,
                            state="queued",
                            attempts=0,
                            run_after=now,
                            updated_at=now,
                            finished_at=None,
                        )
                        self._jobs[i] = job
                    return job
            job = Job(
                id=new_id("job"),
                workspace=workspace,
                kind=kind,
                key=key,
                payload=dict(payload),
                state="queued",
                attempts=0,
                max_attempts=max_attempts,
                run_after=now,
                actor=actor,
                created_at=now,
                updated_at=now,
                subject=subject,
            )
            self._jobs.append(job)
            return job

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
        return [
            self.enqueue(
                workspace,
                kind,
                key,
                payload,
                actor=actor,
                subject=subject,
                max_attempts=max_attempts,
            )
            for key, payload, subject in requests
        ]

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
        only = None if keys is None else (keys[0], set(keys[1]))
        with self._lock:
            self._check()
            now = self._clock()
            until = now + timedelta(seconds=lease_s)
            ready: list[int] = []
            for i, job in enumerate(self._jobs):
                if job.kind not in kinds:
                    continue
                if only is not None and (job.workspace != only[0] or job.key not in only[1]):
                    continue
                lease = job.lease_until
                expired = job.state == "running" and lease is not None and lease <= now
                if expired and job.attempts >= job.max_attempts:
                    self._jobs[i] = replace(
                        job,
                        state="failed",
                        last_error=_LEASE_LOST,
                        lease_owner=None,
                        lease_until=None,
                        finished_at=now,
                        updated_at=now,
                    )
                elif expired or (job.state == "queued" and job.run_after <= now):
                    ready.append(i)
            ready.sort(key=lambda i: (self._jobs[i].run_after, i))
            # One workspace a claim (the SQLite adapter says why and which).
            if not ready:
                return []
            workspaces = {self._jobs[i].workspace for i in ready}
            chosen = min(workspaces, key=self._turn(kinds, now, ready))
            ready = [i for i in ready if self._jobs[i].workspace == chosen]
            out: list[Job] = []
            for i in ready[:limit]:
                job = replace(
                    self._jobs[i],
                    state="running",
                    attempts=self._jobs[i].attempts + 1,
                    lease_owner=owner,
                    lease_until=until,
                    updated_at=now,
                )
                self._jobs[i] = job
                out.append(job)
            return out

    def _turn(
        self, kinds: Sequence[str], now: datetime, ready: list[int]
    ) -> Callable[[str], tuple[bool, datetime, int]]:
        """A workspace's place in the claim order: busy last, then least recently served,
        then its oldest ready job (``ready`` is in that order already)."""
        first: dict[str, int] = {}
        for n, i in enumerate(ready):
            first.setdefault(self._jobs[i].workspace, n)

        def turn(ws: str) -> tuple[bool, datetime, int]:
            mine = [j for j in self._jobs if j.workspace == ws and j.kind in kinds]
            busy = any(
                j.state == "running" and j.lease_until is not None and j.lease_until > now
                for j in mine
            )
            served = max((j.updated_at for j in mine if j.state != "queued"), default=_NEVER)
            return busy, served, first[ws]

        return turn

    def _held(self, job_id: str, owner: str) -> int | None:
        i = self._index(job_id)
        if i is None:
            return None
        job = self._jobs[i]
        return i if job.state == "running" and job.lease_owner == owner else None

    def extend(self, job_ids: Sequence[str], owner: str, lease_s: float) -> list[str]:
        with self._lock:
            self._check()
            now = self._clock()
            held: list[str] = []
            for job_id in job_ids:
                i = self._held(job_id, owner)
                if i is not None:
                    self._jobs[i] = replace(
                        self._jobs[i],
                        lease_until=now + timedelta(seconds=lease_s),
                        updated_at=now,
                    )
                    held.append(job_id)
            return held

    def complete(self, job_id: str, owner: str) -> bool:
        with self._lock:
            self._check()
            i = self._held(job_id, owner)
            if i is None:
                return False
            now = self._clock()
            self._jobs[i] = replace(
                self._jobs[i],
                state="done",
                lease_owner=None,
                lease_until=None,
                last_error=None,
                finished_at=now,
                updated_at=now,
            )
            return True

    def fail(self, job_id: str, owner: str, error: str, *, retry_in: float | None = None) -> bool:
        with self._lock:
            self._check()
            i = self._held(job_id, owner)
            if i is None:
                return False
            now = self._clock()
            job = self._jobs[i]
            if retry_in is not None and job.attempts < job.max_attempts:
                job = replace(
                    job,
                    state="queued",
                    run_after=now + timedelta(seconds=max(0.0, retry_in)),
                    lease_owner=None,
                    lease_until=None,
                    last_error=error,
                    updated_at=now,
                )
            else:
                job = replace(
                    job,
                    state="failed",
                    lease_owner=None,
                    lease_until=None,
                    last_error=error,
                    finished_at=now,
                    updated_at=now,
                )
            self._jobs[i] = job
            return True

    # -- a move's (``MemoryStore``'s jobs records) ----------------------------------------

    def held(self) -> list[Job]:
        """Every job, in enqueue order: its place there (from 1) is its position."""
        with self._lock:
            return list(self._jobs)

    def adopt(self, jobs: Sequence[Job]) -> None:
        """Keep jobs a move carried in as they were (state, attempts, lease): the caller
        leaves out those already here (by id, or by workspace and key)."""
        with self._lock:
            self._check()
            self._jobs.extend(jobs)

    # -- reads --------------------------------------------------------------------------

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            self._check()
            i = self._index(job_id)
            return None if i is None else self._jobs[i]

    def find(self, workspace: str, keys: Sequence[str]) -> dict[str, Job]:
        wanted = set(keys)
        with self._lock:
            self._check()
            return {j.key: j for j in self._jobs if j.workspace == workspace and j.key in wanted}

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
        if cursor is not None and (not cursor.isdigit() or len(cursor) > 18):
            raise InvalidInput(f"invalid cursor {cursor!r}")
        before = int(cursor) if cursor is not None else None
        with self._lock:
            self._check()
            found: list[tuple[int, Job]] = []
            # Positions count from 1, like SQLite rowids, so a cursor means the same in both.
            for position in range(len(self._jobs), 0, -1):
                job = self._jobs[position - 1]
                if before is not None and position >= before:
                    continue
                wanted = ((workspace, job.workspace), (state, job.state), (kind, job.kind))
                if any(want is not None and want != have for want, have in wanted):
                    continue
                if actor is not None and job.actor != actor:
                    continue
                found.append((position, job))
                if len(found) > limit:
                    break
        more = len(found) > limit
        found = found[:limit]
        next_cursor = str(found[-1][0]) if more and found else None
        return JobPage(tuple(j for _, j in found), next_cursor)

    def counts(self) -> dict[JobState, int]:
        out: dict[JobState, int] = {"queued": 0, "running": 0, "done": 0, "failed": 0}
        with self._lock:
            self._check()
            for job in self._jobs:
                out[job.state] += 1
        return out

    def backlog(self, workspace: str, *, actor: str | None = None) -> list[JobBacklog]:
        found: dict[tuple[str, JobState], tuple[int, datetime]] = {}
        with self._lock:
            self._check()
            for job in self._jobs:
                if job.workspace != workspace or job.state == "done":
                    continue
                if actor is not None and job.actor != actor:
                    continue
                n, oldest = found.get((job.kind, job.state), (0, job.created_at))
                found[(job.kind, job.state)] = (n + 1, min(oldest, job.created_at))
        return [JobBacklog(k, s, n, oldest) for (k, s), (n, oldest) in sorted(found.items())]

    def finished(
        self,
        workspace: str,
        *,
        actor: str | None = None,
        since: datetime | None = None,
        limit: int = 1000,
    ) -> list[JobTiming]:
        out: list[JobTiming] = []
        with self._lock:
            self._check()
            for job in reversed(self._jobs):
                if len(out) >= limit:
                    break
                if job.workspace != workspace or job.state != "done" or job.finished_at is None:
                    continue
                if actor is not None and job.actor != actor:
                    continue
                if since is not None and job.finished_at < since:
                    continue
                out.append(JobTiming(job.kind, job.created_at, job.finished_at))
        return out
