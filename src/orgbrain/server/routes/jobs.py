"""``GET /v1/jobs`` and ``GET /v1/jobs/{id}``: durable background work, read from the
queue in the brain's file (the same answer from every process). A key sees the jobs its
principal asked for."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query

from ...ports import JobState
from ...views import JobList, JobView
from ..auth import Reader
from ..problems import problem_responses

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["jobs"])

_READ_ERRORS = problem_responses(400, 401, 403, 404, 422, 503)


@router.get(
    "/jobs",
    response_model=JobList,
    summary="The caller's jobs in this workspace, newest first, a page at a time",
    responses=_READ_ERRORS,
)
def list_jobs(
    caller: Reader,
    state: Annotated[JobState | None, Query(description="Only this state")] = None,
    kind: Annotated[str | None, Query(max_length=200, description="Only this kind")] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    cursor: Annotated[str | None, Query(max_length=100, description="From next_cursor")] = None,
) -> JobList:
    return JobList.of(caller.brain.jobs(state=state, kind=kind, limit=limit, cursor=cursor or None))


@router.get(
    "/jobs/{job_id}",
    response_model=JobView,
    summary="One job: its state, attempts, lease and last error",
    responses=_READ_ERRORS,
)
def get_job(
    caller: Reader,
    job_id: Annotated[str, Path(min_length=1, max_length=200, description="A job id")],
) -> JobView:
    return JobView.of(caller.brain.job(job_id))
