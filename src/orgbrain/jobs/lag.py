"""How far background work lags: what waits in the queue now and how long recent jobs
took from being asked for to done, per kind (``index``: indexing a file; ``derive``:
statements and entities from a note or section; ``audit``; ``writeback``).

Counted through two ``JobQueue`` methods, ``backlog`` (queued, running and failed jobs
per kind: how many, and the oldest) and ``finished`` (recent done jobs' times). A reader
sees the lag of the jobs it asked for, as it sees those jobs (``jobs.access``); the local
owner, the whole workspace's.
"""

from __future__ import annotations

from datetime import datetime

from ..context import BrainContext
from ..errors import InvalidInput
from ..stats import LAG_SAMPLE, JobLag, Lens, kind_lags

__all__ = ["LAG_SAMPLE", "job_lag"]


def job_lag(
    ctx: BrainContext,
    *,
    at: datetime,
    since: datetime | None = None,
    sample: int = LAG_SAMPLE,
) -> JobLag:
    """The lag of ``ctx``'s workspace's jobs (a principal's own jobs) at ``at``, the done
    ones since ``since`` (None: ever), at most the ``sample`` most recent."""
    if not 1 <= sample <= 10_000:
        raise InvalidInput("the sample is between 1 and 10000 jobs")
    lens: Lens = "workspace" if ctx.principal is None else "reader"
    if ctx.jobs is None:
        return JobLag(ctx.workspace, lens, at, since, (), sample, 0)
    actor = None if ctx.principal is None else ctx.actor
    backlog = ctx.jobs.backlog(ctx.workspace, actor=actor)
    finished = ctx.jobs.finished(ctx.workspace, actor=actor, since=since, limit=sample)
    return JobLag(
        ctx.workspace, lens, at, since, kind_lags(backlog, finished, at), sample, len(finished)
    )
