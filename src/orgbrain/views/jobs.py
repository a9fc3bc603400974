"""Background jobs as every surface shows them (``GET /v1/jobs``, ``orgbrain jobs --json``),
and what a worker run did (``orgbrain worker --json``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from ..ports import Job, JobPage, JobState
from ._base import View

__all__ = ["JobList", "JobView", "WorkReportView"]


class JobView(View):
    id: str
    workspace: str
    kind: str = Field(description="What the job does, e.g. index")
    key: str = Field(description="Its identity: the same key asked again is this job")
    subject: str | None = Field(description="The item it is about, if any")
    state: JobState = Field(description="queued, running, done or failed")
    attempts: int = Field(description="How many times a worker has taken it")
    max_attempts: int
    run_after: datetime = Field(description="Not claimed before this (a retry's backoff)")
    lease_owner: str | None = Field(description="While running: the worker holding it")
    lease_until: datetime | None = Field(description="While running: when its lease ends")
    last_error: str | None
    actor: str = Field(description="Who asked for it")
    payload: dict[str, Any] = Field(description="What its worker needs")
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None

    @classmethod
    def of(cls, job: Job) -> JobView:
        return cls(
            id=job.id,
            workspace=job.workspace,
            kind=job.kind,
            key=job.key,
            subject=job.subject,
            state=job.state,
            attempts=job.attempts,
            max_attempts=job.max_attempts,
            run_after=job.run_after,
            lease_owner=job.lease_owner,
            lease_until=job.lease_until,
            last_error=job.last_error,
            actor=job.actor,
            payload=dict(job.payload),
            created_at=job.created_at,
            updated_at=job.updated_at,
            finished_at=job.finished_at,
        )


class JobList(View):
    jobs: list[JobView]
    next_cursor: str | None = Field(description="Pass back as cursor for the next page")

    @classmethod
    def of(cls, page: JobPage) -> JobList:
        return cls(jobs=[JobView.of(j) for j in page.jobs], next_cursor=page.next_cursor)


class WorkReportView(View):
    claimed: int
    done: int
    retried: int = Field(description="Failed for now; queued again after a backoff")
    failed: int
    lost: int = Field(description="Taken over by another worker after this one's lease ran out")
