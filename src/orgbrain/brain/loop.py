"""The facade's measure of the loop: ``Brain.stats``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from .. import writeback
from ..context import BrainContext
from ..errors import InvalidInput
from ..stats import LoopStats, loop_stats

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
        start = at - since if isinstance(since, timedelta) else since
        if start is not None and start.tzinfo is None:
            start = start.replace(tzinfo=UTC)  # a time without a zone is UTC
        if start is not None and start > at:
            raise InvalidInput("since is in the future")
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
