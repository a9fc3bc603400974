"""``GET /v1/jobs`` and ``GET /v1/jobs/{id}``: durable background work, read from the
queue in the brain's file (the same answer from every process). A key sees the jobs its
principal asked for."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict, Field

from ...ports import Job
from ..auth import Reader
from ..problems import problem_responses

__all__ = ["JobOut", "JobPageOut", "job_out", "router"]

router = APIRouter(prefix="/v1", tags=["jobs"])

_READ_ERRORS = problem_responses(400, 401, 403, 404, 422, 503)


class JobOut(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    workspace: str
    kind: str = Field(description="What the job does, e.g. index")
    key: str = Field(description="Its identity: the same key asked again is this job")
    subject: str | None = Field(description="The item it is about, if any")
    state: Literal["queued", "running", "done", "failed"]
    attempts: int = Field(description="How many times a worker has taken it")
    max_attempts: int
    run_after: datetime = Field(description="Not claimed before this (a retry's backoff)")
    lease_until: datetime | None = Field(description="While running: its worker's lease")
    last_error: str | None
    actor: str = Field(description="Who asked for it")
    payload: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


class JobPageOut(BaseModel):
    jobs: list[JobOut]
    next_cursor: str | None


def job_out(job: Job) -> JobOut:
    return JobOut(
        id=job.id,
        workspace=job.workspace,
        kind=job.kind,
        key=job.key,
        subject=job.subject,
        state=job.state,
        attempts=job.attempts,
        max_attempts=job.max_attempts,
        run_after=job.run_after,
        lease_until=job.lease_until,
        last_error=job.last_error,
        actor=job.actor,
        payload=dict(job.payload),
        created_at=job.created_at,
        updated_at=job.updated_at,
        finished_at=job.finished_at,
    )


@router.get(
    "/jobs",
    response_model=JobPageOut,
    summary="The caller's jobs in this workspace, newest first, a page at a time",
    responses=_READ_ERRORS,
)
def list_jobs(
    caller: Reader,
    state: Annotated[
        Literal["queued", "running", "done", "failed"] | None, Query(description="Only this state")
    ] = None,
    kind: Annotated[str | None, Query(max_length=200, description="Only this kind")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    cursor: Annotated[str | None, Query(max_length=100, description="From next_cursor")] = None,
) -> JobPageOut:
    page = caller.brain.jobs(state=state, kind=kind, limit=limit, cursor=cursor or None)
    return JobPageOut(jobs=[job_out(j) for j in page.jobs], next_cursor=page.next_cursor)


@router.get(
    "/jobs/{job_id}",
    response_model=JobOut,
    summary="One job: its state, attempts, lease and last error",
    responses=_READ_ERRORS,
)
def get_job(
    caller: Reader,
    job_id: Annotated[str, Path(min_length=1, max_length=200, description="A job id")],
) -> JobOut:
    return job_out(caller.brain.job(job_id))
