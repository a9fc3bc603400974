"""The loop's stats as every surface shows them (``GET /v1/stats``, ``orgbrain stats
--json``, ``Client.stats``, the web UI's health page), and the lag of background work
(``Brain.job_lag``: ``GET /v1/stats/jobs``, ``orgbrain stats --jobs --json``,
``Client.job_lag``, the health page)."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from ..stats import (
    GATE_DECISIONS,
    REVIEW_OUTCOMES,
    JobLag,
    KindLag,
    Lens,
    LoopStats,
    SurfaceStats,
)
from ._base import View

__all__ = ["JobLagView", "KindLagView", "LagSampleView", "LoopStatsView", "SurfaceStatsView"]


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


class LagSampleView(View):
    done_at: datetime
    seconds: float = Field(description="From asked for to done")


class KindLagView(View):
    kind: str = Field(description="index, derive, audit or writeback")
    queued: int = Field(description="Waiting for a worker now")
    running: int
    failed: int = Field(description="Failed for good (a retry asks again)")
    oldest_queued_s: float | None = Field(
        description="How long the oldest queued job has waited since it was asked for"
    )
    oldest_running_s: float | None = Field(
        description="How long ago the oldest running job was asked for"
    )
    done: int = Field(description="Done jobs measured")
    p50_s: float | None = Field(description="Median seconds from asked for to done")
    p95_s: float | None
    max_s: float | None
    recent: list[LagSampleView] = Field(description="Each measured job, oldest done first")

    @classmethod
    def of(cls, k: KindLag) -> KindLagView:
        return cls(
            kind=k.kind,
            queued=k.queued,
            running=k.running,
            failed=k.failed,
            oldest_queued_s=k.oldest_queued_s,
            oldest_running_s=k.oldest_running_s,
            done=k.done,
            p50_s=k.p50_s,
            p95_s=k.p95_s,
            max_s=k.max_s,
            recent=[LagSampleView(done_at=at, seconds=s) for at, s in k.recent],
        )

    def to_model(self) -> KindLag:
        return KindLag(
            kind=self.kind,
            queued=self.queued,
            running=self.running,
            failed=self.failed,
            oldest_queued_s=self.oldest_queued_s,
            oldest_running_s=self.oldest_running_s,
            done=self.done,
            p50_s=self.p50_s,
            p95_s=self.p95_s,
            max_s=self.max_s,
            recent=tuple((r.done_at, r.seconds) for r in self.recent),
        )


class JobLagView(View):
    """How far background work lags: what waits now, and how long recent jobs took."""

    workspace: str
    lens: Lens = Field(
        description="workspace: every job in it; reader: the jobs this key asked for"
    )
    at: datetime
    since: datetime | None = Field(description="Done jobs since; null: ever")
    kinds: list[KindLagView] = Field(description="index, derive, audit, writeback, others")
    sample: int = Field(description="The most done jobs measured (the most recently asked for)")
    sampled: int = Field(description="How many were measured")

    @classmethod
    def of(cls, lag: JobLag) -> JobLagView:
        return cls(
            workspace=lag.workspace,
            lens=lag.lens,
            at=lag.at,
            since=lag.since,
            kinds=[KindLagView.of(k) for k in lag.kinds],
            sample=lag.sample,
            sampled=lag.sampled,
        )

    def to_model(self) -> JobLag:
        return JobLag(
            workspace=self.workspace,
            lens=self.lens,
            at=self.at,
            since=self.since,
            kinds=tuple(k.to_model() for k in self.kinds),
            sample=self.sample,
            sampled=self.sampled,
        )
