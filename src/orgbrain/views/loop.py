"""The loop's stats as every surface shows them (``GET /v1/stats``, ``orgbrain stats
--json``, ``Client.stats``)."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from ..stats import GATE_DECISIONS, REVIEW_OUTCOMES, Lens, LoopStats, SurfaceStats
from ._base import View

__all__ = ["LoopStatsView", "SurfaceStatsView"]


class SurfaceStatsView(View):
    surface: str = Field(description="python, cli, http, mcp, tool or inject (read injection)")
    searches: int
    spoke: int = Field(description="Searches that returned hits (injection: injected items)")
    silent: int = Field(description="Searches the brain answered with nothing")
    failed: int = Field(description="Searches that ended in an error")
    p50_ms: float | None = Field(description="Median latency, whole milliseconds")
    p95_ms: float | None

    @classmethod
    def of(cls, s: SurfaceStats) -> SurfaceStatsView:
        return cls(
            surface=s.surface,
            searches=s.searches,
            spoke=s.spoke,
            silent=s.silent,
            failed=s.failed,
            p50_ms=s.p50_ms,
            p95_ms=s.p95_ms,
        )

    def to_model(self) -> SurfaceStats:
        return SurfaceStats(
            self.surface, self.searches, self.spoke, self.failed, self.p50_ms, self.p95_ms
        )


class LoopStatsView(View):
    workspace: str
    lens: Lens = Field(
        description="workspace: everything in it (the local owner, an admin key); reader: "
        "this key's own searches and the proposals it may review"
    )
    at: datetime = Field(description="When this was counted (the inbox is as of now)")
    since: datetime | None = Field(description="The window's start; null: ever")
    searches: int
    spoke: int
    silent: int
    surfaces: list[SurfaceStatsView] = Field(description="Searches per surface")
    passes: int = Field(description="Write-back passes that ran (one per run)")
    proposals: dict[str, int] = Field(
        description=f"The gate's decisions: {', '.join(GATE_DECISIONS)} (inbox: queued)"
    )
    reviews: dict[str, int] = Field(description=f"Review outcomes: {', '.join(REVIEW_OUTCOMES)}")
    review_wait_p50_s: float | None = Field(
        description="Median seconds a reviewed proposal waited in the inbox"
    )
    inbox_pending: int = Field(description="Proposals waiting for review now")
    inbox_oldest: datetime | None = Field(description="When the oldest of them was proposed")
    inbox_age_s: float | None = Field(description="How long the oldest has waited")

    @classmethod
    def of(cls, s: LoopStats) -> LoopStatsView:
        return cls(
            workspace=s.workspace,
            lens=s.lens,
            at=s.at,
            since=s.since,
            searches=s.searches,
            spoke=s.spoke,
            silent=s.silent,
            surfaces=[SurfaceStatsView.of(x) for x in s.surfaces],
            passes=s.passes,
            proposals=dict(s.proposals),
            reviews=dict(s.reviews),
            review_wait_p50_s=s.review_wait_p50_s,
            inbox_pending=s.inbox_pending,
            inbox_oldest=s.inbox_oldest,
            inbox_age_s=s.inbox_age_s,
        )

    def to_model(self) -> LoopStats:
        return LoopStats(
            workspace=self.workspace,
            lens=self.lens,
            at=self.at,
            since=self.since,
            surfaces=tuple(x.to_model() for x in self.surfaces),
            passes=self.passes,
            proposals=dict(self.proposals),
            reviews=dict(self.reviews),
            review_wait_p50_s=self.review_wait_p50_s,
            inbox_pending=self.inbox_pending,
            inbox_oldest=self.inbox_oldest,
        )
