"""Durable background work: the ``JobQueue`` port and what it holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

__all__ = ["Job", "JobBacklog", "JobPage", "JobQueue", "JobRequest", "JobState", "JobTiming"]


JobState = Literal["queued", "running", "done", "failed"]


@dataclass(frozen=True, slots=True)
class Job:
    """One unit of durable background work, as its queue holds it.

    ``key`` is its identity within the workspace: asking again with the same key gives
    this job back instead of a second one. ``subject`` is the item it is about, if any.
    ``attempts`` counts claims; a claim holds the job until ``lease_until``.
    """

    id: str
    workspace: str
    kind: str
    key: str
    payload: Mapping[str, object]
    state: JobState
    attempts: int
    max_attempts: int
    run_after: datetime
    actor: str
    created_at: datetime
    updated_at: datetime
    subject: str | None = None
    lease_owner: str | None = None
    lease_until: datetime | None = None
    last_error: str | None = None
    finished_at: datetime | None = None


JobRequest = tuple[str, Mapping[str, object], str | None]
"""One job asked for in ``JobQueue.enqueue_many``: its key, payload and subject."""


@dataclass(frozen=True, slots=True)
class JobPage:
    jobs: tuple[Job, ...]
    next_cursor: str | None


@dataclass(frozen=True, slots=True)
class JobBacklog:
    """How many of one kind's jobs are in one state, and when the oldest was asked for."""

    kind: str
    state: JobState
    count: int
    oldest: datetime
    """The oldest one's ``created_at``."""


@dataclass(frozen=True, slots=True)
class JobTiming:
    """A done job's kind, when it was asked for and when it was done."""

    kind: str
    created_at: datetime
    finished_at: datetime


class JobQueue(Protocol):
    """Durable jobs with leases. Every write is durable (fsynced) before it returns, and
    every adapter passes ``tests/contract/test_jobs_contract.py``.

    A job is ``queued`` until a worker claims it (``running``, under a lease), then
    ``done`` or ``failed``; a failure with a retry goes back to ``queued`` until its
    ``run_after``. A ``running`` job whose lease has expired (its worker died) is
    claimable again. Only the lease's owner may extend, complete or fail a job, so a
    worker that lost its lease cannot overwrite the outcome of the one that took it over.
    """

    def close(self) -> None: ...

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
        """Add a queued job, or return the job that already has ``(workspace, key)``:
        never a second one. A ``done`` job is returned as it is (it is not run again); a
        ``failed`` one is queued again, its attempts reset (an explicit retry)."""
        ...

    def enqueue_many(
        self,
        workspace: str,
        kind: str,
        requests: Sequence[JobRequest],
        *,
        actor: str,
        max_attempts: int = 5,
    ) -> list[Job]:
        """``enqueue`` for many jobs of one kind, in one durable write (all or nothing)."""
        ...

    def claim(
        self,
        owner: str,
        kinds: Sequence[str],
        *,
        limit: int = 1,
        lease_s: float = 60.0,
        keys: tuple[str, Sequence[str]] | None = None,
    ) -> list[Job]:
        """Atomically take up to ``limit`` ready jobs of ``kinds`` of one workspace, oldest
        first: queued ones whose ``run_after`` has come and running ones whose lease
        expired. The workspace is one with no job of ``kinds`` running under a live lease
        if there is one, then the one served least recently (the latest ``updated_at`` of
        its claimed or settled jobs of ``kinds``), then the one with the oldest ready job:
        a slow job never holds another workspace's jobs, and workspaces take turns.
        Each job is ``running`` under ``owner`` for ``lease_s`` seconds, its ``attempts``
        one higher. A job whose lease expired on its last attempt is failed instead.

        ``keys``, a workspace and keys in it, takes (and fails) only those jobs: a
        writer waiting for its own writes' jobs leaves every other job to the workers."""
        ...

    def extend(self, job_ids: Sequence[str], owner: str, lease_s: float) -> list[str]:
        """Renew ``owner``'s leases on ``job_ids`` for ``lease_s`` seconds from now;
        returns the ids it still holds."""
        ...

    def complete(self, job_id: str, owner: str) -> bool:
        """Mark a job ``owner`` holds ``done``; False if it no longer holds it."""
        ...

    def fail(self, job_id: str, owner: str, error: str, *, retry_in: float | None = None) -> bool:
        """Record ``error`` on a job ``owner`` holds: queued again ``retry_in`` seconds
        from now while attempts remain, else (or with no ``retry_in``) ``failed``. False
        if ``owner`` no longer holds it."""
        ...

    def get(self, job_id: str) -> Job | None: ...

    def find(self, workspace: str, keys: Sequence[str]) -> dict[str, Job]:
        """The jobs with these keys in ``workspace``, by key (absent keys left out)."""
        ...

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
        """Jobs newest first (of one workspace, or all for ``None``), a page at a time."""
        ...

    def counts(self) -> dict[JobState, int]:
        """How many jobs are in each state, across workspaces."""
        ...

    def backlog(self, workspace: str, *, actor: str | None = None) -> list[JobBacklog]:
        """``workspace``'s queued, running and failed jobs (asked for by ``actor``, None:
        anyone's) per kind and state: how many, and the oldest one's ``created_at``;
        sorted by kind, then state. Kinds and states with no job are left out."""
        ...

    def finished(
        self,
        workspace: str,
        *,
        actor: str | None = None,
        since: datetime | None = None,
        limit: int = 1000,
    ) -> list[JobTiming]:
        """``workspace``'s done jobs (by ``actor``; done at or after ``since``), the most
        recently asked for first, at most ``limit``."""
        ...
