"""``GET /v1/stats``: the loop, measured, and ``GET /v1/stats/jobs``: how far background
work lags (docs/loop.md). Any key with ``read`` may ask; what it counts is what the key may
see: its own searches, the proposals it may review and the jobs it asked for. A key that
also holds ``admin`` counts the whole workspace (an admin already manages every key in
it); counts and times only, never a query, a body or who asked."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...brain import Brain
from ...stats import DEFAULT_SINCE, LAG_SAMPLE, parse_since
from ...views import JobLagView, LoopStatsView
from ..auth import Caller, Reader
from ..problems import problem_responses

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["loop"])

Since = Annotated[
    str,
    Query(
        max_length=40,
        description="all, a duration back from now (30m, 24h, 7d, 2w) or an RFC 3339 date or time",
    ),
]


@router.get(
    "/stats",
    response_model=LoopStatsView,
    summary="How often the brain spoke; proposals written, queued, approved, rejected; the inbox",
    responses=problem_responses(400, 401, 403, 422, 503),
)
def stats(caller: Reader, since: Since = DEFAULT_SINCE) -> LoopStatsView:
    return LoopStatsView.of(_counted(caller).stats(since=parse_since(since)))


@router.get(
    "/stats/jobs",
    response_model=JobLagView,
    summary="How far background work lags: jobs queued, running and failed now, per kind, "
    "and how long recent ones took from asked for to done",
    responses=problem_responses(400, 401, 403, 422, 503),
)
def job_lag(
    caller: Reader,
    since: Since = DEFAULT_SINCE,
    sample: Annotated[
        int,
        Query(ge=1, le=10_000, description="The most done jobs to measure (the most recent)"),
    ] = LAG_SAMPLE,
) -> JobLagView:
    return JobLagView.of(_counted(caller).job_lag(since=parse_since(since), sample=sample))


def _counted(caller: Caller) -> Brain:
    """The key's own brain, or the whole workspace's for a key with ``admin``."""
    if caller.key.allows("admin"):
        return caller.brain.for_workspace(caller.key.workspace)
    return caller.brain
