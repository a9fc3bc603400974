"""``GET /v1/stats``: the loop, measured (docs/loop.md). Any key with ``read`` may ask;
what it counts is what the key may see: its own searches and the proposals it may review.
A key that also holds ``admin`` counts the whole workspace (an admin already manages every
key in it); counts only, never a query, a body or who asked."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from ...stats import DEFAULT_SINCE, parse_since
from ...views import LoopStatsView
from ..auth import Reader
from ..problems import problem_responses

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["loop"])


@router.get(
    "/stats",
    response_model=LoopStatsView,
    summary="How often the brain spoke; proposals written, queued, approved, rejected; the inbox",
    responses=problem_responses(400, 401, 403, 422, 503),
)
def stats(
    caller: Reader,
    since: Annotated[
        str,
        Query(
            max_length=40,
            description="all, a duration back from now (30m, 24h, 7d, 2w) or an RFC 3339 "
            "date or time",
        ),
    ] = DEFAULT_SINCE,
) -> LoopStatsView:
    brain = caller.brain
    if caller.key.allows("admin"):
        brain = brain.for_workspace(caller.key.workspace)
    return LoopStatsView.of(brain.stats(since=parse_since(since)))
