"""The health of the loop: how often the brain spoke or stayed silent (per surface), what
write-back proposed and what reviewers made of it, how long the inbox has waited, and how
far indexing and derivation lag — plotted as inline SVG, with the numbers beside.

What is counted is what the signed-in key may see (docs/loop.md, "Who sees what"): a
reader's own searches and jobs and the proposals it may review; a key with ``admin``, the
whole workspace, as ``GET /v1/stats`` counts it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from ....stats import parse_since
from ....views import JobLagView, LoopStatsView, ProposalView
from ..access import Viewing, ui_state
from ..plots import Bar, Figure, Series, Stack, bars, duration, stacked, timeline
from ..routing import HtmlRoute

__all__ = ["AGE_BUCKETS", "WINDOWS", "inbox_ages", "router"]

router = APIRouter(route_class=HtmlRoute, include_in_schema=False)

Window = Literal["24h", "7d", "30d", "all"]
WINDOWS: tuple[tuple[Window, str], ...] = (
    ("24h", "the last 24 hours"),
    ("7d", "the last 7 days"),
    ("30d", "the last 30 days"),
    ("all", "ever"),
)
AGE_BUCKETS: tuple[tuple[float, str], ...] = (
    (3600.0, "under 1 h"),
    (86_400.0, "1 h to 1 d"),
    (7 * 86_400.0, "1 to 7 d"),
    (28 * 86_400.0, "1 to 4 weeks"),
    (float("inf"), "over 4 weeks"),
)
MAX_AGED = 500
KIND_LABELS = {
    "index": "indexing",
    "derive": "derivation",
    "audit": "audit",
    "writeback": "write-back",
}


def inbox_ages(pending: Sequence[ProposalView], at: datetime) -> list[tuple[str, int]]:
    """How many pending proposals have waited how long, by ``AGE_BUCKETS``."""
    counts = [0] * len(AGE_BUCKETS)
    for p in pending:
        waited = (at - p.created_at).total_seconds()
        for i, (upto, _) in enumerate(AGE_BUCKETS):
            if waited < upto:
                counts[i] += 1
                break
    return [(label, n) for (_, label), n in zip(AGE_BUCKETS, counts, strict=True)]


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def figures(
    stats: LoopStatsView, lag: JobLagView, ages: list[tuple[str, int]]
) -> dict[str, Figure]:
    """The page's four plots."""
    rows = [
        Stack(
            s.surface,
            (("plot-spoke", s.spoke), ("plot-silent", s.silent - s.failed), ("plot-bad", s.failed)),
            f"{s.searches} · {_pct(s.spoke, s.searches)} spoke",
        )
        for s in stats.surfaces
    ]
    if len(rows) > 1:
        total = Stack(
            "all",
            (
                ("plot-spoke", stats.spoke),
                ("plot-silent", stats.silent - sum(s.failed for s in stats.surfaces)),
                ("plot-bad", sum(s.failed for s in stats.surfaces)),
            ),
            f"{stats.searches} · {_pct(stats.spoke, stats.searches)} spoke",
        )
        rows.append(total)
    spoke = stacked(
        "plot-spoke-silent",
        "Searches that spoke or stayed silent, per surface",
        f"{stats.searches} searches: {stats.spoke} spoke, {stats.silent} silent.",
        rows,
        (("plot-spoke", "spoke"), ("plot-silent", "silent"), ("plot-bad", "failed")),
    )
    outcomes = bars(
        "plot-outcomes",
        "Proposals by outcome",
        "What the write-back gate decided, and what reviewers decided of what it queued.",
        [
            Bar("written", stats.proposals.get("written", 0), "plot-spoke"),
            Bar("queued for review", stats.proposals.get("inbox", 0), "plot-queued"),
            Bar("skipped", stats.proposals.get("skipped", 0), "plot-silent"),
            Bar("approved", stats.reviews.get("approved", 0), "plot-spoke"),
            Bar("rejected", stats.reviews.get("rejected", 0), "plot-bad"),
        ],
    )
    inbox = bars(
        "plot-inbox-age",
        "Pending proposals by how long they have waited",
        f"{stats.inbox_pending} pending; the oldest has waited {duration(stats.inbox_age_s)}.",
        [Bar(label, n, "plot-queued") for label, n in ages],
    )
    series = [
        Series(
            f"plot-kind-{k.kind if k.kind in KIND_LABELS else 'other'}",
            KIND_LABELS.get(k.kind, k.kind),
            tuple((r.done_at, r.seconds) for r in k.recent),
        )
        for k in lag.kinds
    ]
    done = timeline(
        "plot-lag",
        "How long each recent job took, from asked for to done",
        "Each dot a job done: when it was done (across) and how long it took (up, log scale).",
        series,
    )
    return {"spoke": spoke, "outcomes": outcomes, "inbox": inbox, "lag": done}


@router.get("/ui/health")
def health(
    request: Request, viewer: Viewing, since: Annotated[Window, Query()] = "30d"
) -> Response:
    brain = viewer.brain
    if viewer.key.allows("admin"):
        brain = brain.for_workspace(viewer.key.workspace)  # as GET /v1/stats counts
    window = parse_since(since)
    stats = LoopStatsView.of(brain.stats(since=window))
    lag = JobLagView.of(brain.job_lag(since=window))
    pending = [ProposalView.of(p) for p in brain.proposals(limit=MAX_AGED)]
    ages = inbox_ages(pending, stats.at)
    return ui_state(request).renderer.html(
        "health.html",
        {
            "viewer": viewer,
            "nav": "health",
            "stats": stats,
            "lag": lag,
            "ages": ages,
            "aged": len(pending),
            "figures": figures(stats, lag, ages),
            "since": since,
            "windows": WINDOWS,
            "kind_labels": KIND_LABELS,
            "duration": duration,
        },
    )
