"""The facade's measure of the loop: ``Brain.stats`` and ``Brain.job_lag``."""

from __future__ import annotations

from datetime import datetime, timedelta

from .. import writeback
from ..context import BrainContext
from ..jobs.lag import LAG_SAMPLE, job_lag
from ..stats import JobLag, LoopStats, loop_stats, window_start

__all__ = ["LoopFacade"]


class LoopFacade:
    """``Brain``'s stats (one class of the facade)."""

    _ctx: BrainContext

    def stats(self, *, since: datetime | timedelta | None = None) -> LoopStats:
        """How the loop went since ``since`` (a time, or how long back; None: ever): how
        often the brain was searched from each surface and spoke or stayed silent, the
        write-back gate's decisions, review outcomes and wait, and the inbox now.

        The local owner counts the whole workspace. A principal counts its own searches
        and the proposals it may review (those it would see in its inbox), so nothing it
        could not read is counted for it; an admin key over HTTP counts the workspace."""
        ctx = self._ctx
        at = ctx.clock()
        start = window_start(at, since)
        if ctx.principal is None:
            return loop_stats(ctx.store, ctx.workspace, lens="workspace", at=at, since=start)
        return loop_stats(
            ctx.store,
            ctx.workspace,
            lens="reader",
            at=at,
            since=start,
            actor=ctx.actor,
            scopes=writeback.reviewable(ctx),
        )

    def job_lag(
        self, *, since: datetime | timedelta | None = None, sample: int = LAG_SAMPLE
    ) -> JobLag:
        """How far background work lags, per kind of job (index, derive, audit,
        writeback): how many are queued, running and failed now and how long the oldest
        has waited, and how long the ``sample`` most recently asked-for jobs done since
        ``since`` took from being asked for to done (median, 95th percentile, each one).

        The local owner measures the whole workspace; a principal, the jobs it asked for
        (as ``jobs()`` lists them)."""
        at = self._ctx.clock()
        return job_lag(self._ctx, at=at, since=window_start(at, since), sample=sample)
