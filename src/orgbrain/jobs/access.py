"""What a reader sees of the queue: the local owner sees every job of the workspace; a
principal sees the jobs it asked for. The queue query filters first, ``visible_job``
checks again in code, as item reads do."""

from __future__ import annotations

from ..context import BrainContext
from ..errors import InvalidInput, NotFound
from ..ports import Job, JobPage, JobState
from .index import queue_of

__all__ = ["JOB_STATES", "get_job", "list_jobs", "visible_job"]

JOB_STATES: tuple[JobState, ...] = ("queued", "running", "done", "failed")


def visible_job(ctx: BrainContext, job: Job | None) -> bool:
    return (
        job is not None
        and job.workspace == ctx.workspace
        and (ctx.principal is None or job.actor == ctx.actor)
    )


def get_job(ctx: BrainContext, job_id: str) -> Job:
    job = queue_of(ctx).get(job_id)
    if job is None or not visible_job(ctx, job):
        raise NotFound(f"no job {job_id}")
    return job


def list_jobs(
    ctx: BrainContext,
    *,
    state: JobState | None = None,
    kind: str | None = None,
    limit: int = 100,
    cursor: str | None = None,
) -> JobPage:
    if state is not None and state not in JOB_STATES:
        raise InvalidInput(f"unknown job state {state!r}: use {', '.join(JOB_STATES)}")
    if not 1 <= limit <= 1000:
        raise InvalidInput("limit must be between 1 and 1000")
    actor = None if ctx.principal is None else ctx.actor
    page = queue_of(ctx).list_jobs(
        ctx.workspace, state=state, kind=kind, actor=actor, limit=limit, cursor=cursor
    )
    return JobPage(tuple(j for j in page.jobs if visible_job(ctx, j)), page.next_cursor)
