"""How far background work lags: what waits in the queue now and how long recent jobs
took from being asked for to done, per kind (``index``: indexing a file; ``derive``:
statements and entities from a note or section; ``audit``; ``writeback``).

Counted through two ``JobQueue`` methods, ``backlog`` (queued, running and failed jobs
per kind: how many, and the oldest) and ``finished`` (recent done jobs' times). They are
two reads, and a job that a worker finishes between them would be counted twice (running,
then done): the backlog is read again after, and the pair is taken only when the queue
stood still around it (up to ``READS`` tries; under a queue that never stands still, the
last try, off by the few jobs that finished in its few milliseconds). A reader
sees the lag of the jobs it asked for, as it sees those jobs (``jobs.access``); the local
owner, the whole workspace's.
"""

from __future__ import annotations

from datetime import datetime

from ..context import BrainContext
from ..errors import InvalidInput
from ..stats import LAG_SAMPLE, JobLag, Lens, kind_lags

__all__ = ["LAG_SAMPLE", "READS", "job_lag"]

READS = 5
"""How many times the lag is read before a moving queue's last reading is taken."""


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
    for _ in range(READS):
        finished = ctx.jobs.finished(ctx.workspace, actor=actor, since=since, limit=sample)
        again = ctx.jobs.backlog(ctx.workspace, actor=actor)
        if again == backlog:
            break
        backlog = again
    return JobLag(
        ctx.workspace, lens, at, since, kind_lags(backlog, finished, at), sample, len(finished)
    )
