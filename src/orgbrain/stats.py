"""The loop, measured: how often the brain spoke, what write-back and review did, and how
far background work lags.

Everything is counted from the store's event log (``search``, ``gate``, ``review`` and
``writeback`` events; docs/loop.md lists their fields) and the proposals table (the
inbox as it stands now), through two ``Store`` methods: ``rolled_counts`` (the running
counts the store keeps with each event, by the fields ``ports.EVENT_ROLLUPS`` names) and
``pending_proposals``. ``loop_stats`` is pure over them; the facade decides the lens
(the whole workspace, or one reader's own searches and the proposals it may review).
The lag of background work (``JobLag``) comes from the job queue's ``backlog`` and
``finished``; ``kind_lags`` is pure over them too.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Literal, Protocol

from .errors import InvalidInput
from .ports import EventStore, JobBacklog, JobTiming, ProposalStore

__all__ = [
    "DEFAULT_SINCE",
    "GATE_DECISIONS",
    "KIND_ORDER",
    "LAG_SAMPLE",
    "REVIEW_OUTCOMES",
    "CountedStore",
    "JobLag",
    "KindLag",
    "Lens",
    "LoopStats",
    "SurfaceStats",
    "kind_lags",
    "loop_stats",
    "parse_since",
    "percentile",
    "window_start",
]

Lens = Literal["workspace", "reader"]
"""What was counted: the whole workspace (the local owner, an admin key), or one
reader's own searches and the proposals it may review."""

GATE_DECISIONS = ("written", "inbox", "skipped")
REVIEW_OUTCOMES = ("approved", "rejected")
DEFAULT_SINCE = "30d"
"""The window the CLI and HTTP count over unless told (``all``: everything)."""

_DURATION = re.compile(r"(\d{1,6})\s*([mhdw])")
_UNIT = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


@dataclass(frozen=True, slots=True)
class SurfaceStats:
    """One surface's searches: how many, how many spoke, and their latency."""

    surface: str
    searches: int
    spoke: int
    failed: int = 0
    p50_ms: float | None = None
    p95_ms: float | None = None

    @property
    def silent(self) -> int:
        return self.searches - self.spoke


@dataclass(frozen=True, slots=True)
class LoopStats:
    """The loop over a window: searches per surface, write-back's gate decisions, review
    outcomes and wait, and the inbox as it stands at ``at``."""

    workspace: str
    lens: Lens
    at: datetime
    since: datetime | None
    surfaces: tuple[SurfaceStats, ...] = ()
    passes: int = 0
    """Write-back passes that ran (one per run)."""
    proposals: Mapping[str, int] = field(default_factory=dict)
    """Gate decisions, each of ``GATE_DECISIONS``: written, inbox (queued), skipped."""
    reviews: Mapping[str, int] = field(default_factory=dict)
    """Review outcomes, each of ``REVIEW_OUTCOMES``."""
    review_wait_p50_s: float | None = None
    """The median time a reviewed proposal waited in the inbox."""
    inbox_pending: int = 0
    inbox_oldest: datetime | None = None

    @property
    def searches(self) -> int:
        return sum(s.searches for s in self.surfaces)

    @property
    def spoke(self) -> int:
        return sum(s.spoke for s in self.surfaces)

    @property
    def silent(self) -> int:
        return self.searches - self.spoke

    @property
    def inbox_age_s(self) -> float | None:
        """How long the oldest pending proposal has waited, at ``at``."""
        if self.inbox_oldest is None:
            return None
        return max(0.0, (self.at - self.inbox_oldest).total_seconds())


class CountedStore(EventStore, ProposalStore, Protocol):
    """The roles the loop is counted from: the event log and the review inbox."""


def loop_stats(
    store: CountedStore,
    workspace: str,
    *,
    lens: Lens,
    at: datetime,
    since: datetime | None = None,
    actor: str | None = None,
    scopes: Sequence[str] | None = None,
) -> LoopStats:
    """Count the loop in ``workspace`` since ``since`` (None: ever): searches by
    ``actor`` (None: anyone), proposals and reviews at ``scopes`` (None: any)."""
    searched = store.rolled_counts(workspace, "search", since=since, actor=actor)
    gate = store.rolled_counts(workspace, "gate", since=since, scopes=scopes)
    reviews = store.rolled_counts(workspace, "review", since=since, scopes=scopes)
    passes = store.rolled_counts(workspace, "writeback", since=since, actor=actor)
    pending, oldest = store.pending_proposals(workspace, scopes=scopes)
    outcomes = dict.fromkeys(REVIEW_OUTCOMES, 0)
    waits: dict[float, int] = {}
    for (outcome, waited), n in reviews.items():
        if isinstance(outcome, str):
            outcomes[outcome] = outcomes.get(outcome, 0) + n
        if isinstance(waited, int | float) and not isinstance(waited, bool):
            waits[float(waited)] = waits.get(float(waited), 0) + n
    decisions = dict.fromkeys(GATE_DECISIONS, 0)
    for (decision,), n in gate.items():
        if isinstance(decision, str):
            decisions[decision] = decisions.get(decision, 0) + n
    return LoopStats(
        workspace=workspace,
        lens=lens,
        at=at,
        since=since,
        surfaces=_surfaces(searched),
        passes=sum(passes.values()),
        proposals=decisions,
        reviews=outcomes,
        review_wait_p50_s=percentile(waits, 0.5),
        inbox_pending=pending,
        inbox_oldest=oldest,
    )


def _surfaces(counts: Mapping[tuple[object, ...], int]) -> tuple[SurfaceStats, ...]:
    totals: dict[str, list[int]] = {}
    latencies: dict[str, dict[float, int]] = {}
    for (surface, spoke, latency, error), n in counts.items():
        name = surface if isinstance(surface, str) else "unknown"
        row = totals.setdefault(name, [0, 0, 0])
        row[0] += n
        row[1] += n if spoke is True else 0
        row[2] += n if error is not None else 0
        if isinstance(latency, int | float) and not isinstance(latency, bool):
            ms = latencies.setdefault(name, {})
            ms[float(latency)] = ms.get(float(latency), 0) + n
    return tuple(
        SurfaceStats(
            name,
            searches,
            spoke,
            failed,
            percentile(latencies.get(name, {}), 0.5),
            percentile(latencies.get(name, {}), 0.95),
        )
        for name, (searches, spoke, failed) in sorted(totals.items())
    )


def percentile(counts: Mapping[float, int], q: float) -> float | None:
    """The ``q`` quantile (nearest rank) of values given as value -> how many times it
    occurred; None when there are none."""
    if not 0.0 < q <= 1.0:
        raise InvalidInput("a quantile is in (0, 1]")
    total = sum(n for n in counts.values() if n > 0)
    if total == 0:
        return None
    rank = max(1, math.ceil(q * total))
    seen = 0
    for value in sorted(counts):
        seen += max(counts[value], 0)
        if seen >= rank:
            return value
    return max(counts)  # pragma: no cover - the loop always reaches the rank


def parse_since(text: str | None) -> datetime | timedelta | None:
    """The start of a window as the CLI and HTTP take it: ``all`` (or empty) for ever, a
    duration back from now (``30m``, ``24h``, ``7d``, ``2w``), or a date or time
    (``2026-02-03``, RFC 3339; without a zone, UTC). ``InvalidInput`` otherwise."""
    value = (text or "").strip()
    if value.lower() in ("", "all"):
        return None
    m = _DURATION.fullmatch(value.lower())
    if m:
        return timedelta(**{_UNIT[m.group(2)]: int(m.group(1))})
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(
            f"since is 'all', a duration like 7d, 24h or 30m, or a date, not {text!r}"
        ) from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def window_start(at: datetime, since: datetime | timedelta | None) -> datetime | None:
    """The start of a window ending at ``at``: a time (without a zone, UTC), how long back,
    or None (ever). ``InvalidInput`` when it is in the future."""
    start = at - since if isinstance(since, timedelta) else since
    if start is not None and start.tzinfo is None:
        start = start.replace(tzinfo=UTC)  # a time without a zone is UTC
    if start is not None and start > at:
        raise InvalidInput("since is in the future")
    return start


# -- background work's lag ----------------------------------------------------------------

KIND_ORDER = ("index", "derive", "audit", "writeback")
LAG_SAMPLE = 1000
"""How many of the most recently asked-for done jobs the times are measured over."""
"""The order kinds are shown in (others follow, by name)."""


@dataclass(frozen=True, slots=True)
class KindLag:
    """One kind of job: what waits now, and how long the recent done ones took."""

    kind: str
    queued: int = 0
    running: int = 0
    failed: int = 0
    oldest_queued_s: float | None = None
    """How long the oldest queued job has waited since it was asked for."""
    oldest_running_s: float | None = None
    """How long ago the oldest running job was asked for."""
    done: int = 0
    """Done jobs measured (of the sample, in the window)."""
    p50_s: float | None = None
    """Median seconds from asked for to done."""
    p95_s: float | None = None
    max_s: float | None = None
    recent: tuple[tuple[datetime, float], ...] = ()
    """(done at, seconds it took) of each measured job, oldest done first: for a plot."""

    @property
    def waiting(self) -> int:
        return self.queued + self.running


@dataclass(frozen=True, slots=True)
class JobLag:
    workspace: str
    lens: Lens
    at: datetime
    since: datetime | None
    kinds: tuple[KindLag, ...]
    sample: int
    """The most done jobs read (the most recently asked for)."""
    sampled: int
    """How many were read: ``sample`` when the window held more."""

    @property
    def truncated(self) -> bool:
        """Whether the window held more done jobs than were measured."""
        return self.sampled >= self.sample


def kind_lags(
    backlog: Sequence[JobBacklog], finished: Sequence[JobTiming], at: datetime
) -> tuple[KindLag, ...]:
    """Per kind, from the queue's answers (pure)."""
    kinds = {b.kind for b in backlog} | {t.kind for t in finished}
    out = []
    for kind in sorted(kinds, key=lambda k: (k not in KIND_ORDER, _rank(k), k)):
        mine = {b.state: b for b in backlog if b.kind == kind}
        queued, running = mine.get("queued"), mine.get("running")
        done = sorted(
            (
                (t.finished_at, max(0.0, (t.finished_at - t.created_at).total_seconds()))
                for t in finished
                if t.kind == kind
            ),
        )
        took: dict[float, int] = {}
        for _, seconds in done:
            took[seconds] = took.get(seconds, 0) + 1
        out.append(
            KindLag(
                kind=kind,
                queued=queued.count if queued else 0,
                running=running.count if running else 0,
                failed=mine["failed"].count if "failed" in mine else 0,
                oldest_queued_s=_age(at, queued),
                oldest_running_s=_age(at, running),
                done=len(done),
                p50_s=percentile(took, 0.5),
                p95_s=percentile(took, 0.95),
                max_s=max(took) if took else None,
                recent=tuple(done),
            )
        )
    return tuple(out)


def _rank(kind: str) -> int:
    return KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER)


def _age(at: datetime, b: JobBacklog | None) -> float | None:
    return None if b is None else max(0.0, (at - b.oldest).total_seconds())
