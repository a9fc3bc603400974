"""``orgbrain stats``: the loop, measured — how often the brain spoke, what write-back
proposed and the gate did with it, what reviewers decided, how old the inbox is — and how
far background work lags (``--jobs``: only that)."""

from __future__ import annotations

import click
from rich.table import Table
from rich.text import Text

from ..stats import DEFAULT_SINCE, LAG_SAMPLE, JobLag, LoopStats, parse_since
from ..views import JobLagView, LoopStatsView
from .app import CliState, json_option
from .render import console, echo_json

__all__ = ["COMMANDS", "duration", "lag_table", "stats", "stats_lines"]


def duration(seconds: float | None) -> str:
    """``3d 4h``, ``2h 5m``, ``40s``: a wait as people read it."""
    if seconds is None:
        return "-"
    s = int(seconds)
    days, s = divmod(s, 86_400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m {s}s" if minutes else f"{s}s"


def _share(part: int, whole: int) -> str:
    return f"{part} ({part / whole:.0%})" if whole else str(part)


def stats_lines(s: LoopStats) -> list[str]:
    """The summary around the table, one line each."""
    window = "ever" if s.since is None else f"since {s.since:%Y-%m-%d %H:%M} UTC"
    lens = "the whole workspace" if s.lens == "workspace" else "your searches and inbox"
    p, r = s.proposals, s.reviews
    lines = [
        f"workspace {s.workspace}, {window}: {lens}",
        f"searches {s.searches}: spoke {_share(s.spoke, s.searches)}, "
        f"silent {_share(s.silent, s.searches)}",
        f"write-back {s.passes} passes: proposals written {p.get('written', 0)}, "
        f"queued for review {p.get('inbox', 0)}, skipped {p.get('skipped', 0)}",
        f"reviews: approved {r.get('approved', 0)}, rejected {r.get('rejected', 0)}, "
        f"median wait {duration(s.review_wait_p50_s)}",
        f"inbox now: {s.inbox_pending} pending, oldest waiting {duration(s.inbox_age_s)}",
    ]
    return lines


def _surfaces_table(s: LoopStats) -> Table:
    table = Table()
    for name in ("surface", "searches", "spoke", "silent", "failed", "p50 ms", "p95 ms"):
        table.add_column(name, justify="left" if name == "surface" else "right")
    for x in s.surfaces:
        cells = [x.surface, x.searches, x.spoke, x.silent, x.failed, x.p50_ms, x.p95_ms]
        table.add_row(
            *(
                Text("-" if c is None else f"{c:g}" if isinstance(c, float) else str(c))
                for c in cells
            )
        )
    return table


def lag_table(lag: JobLag) -> Table:
    """Per kind of job: what waits now, and how long the recent done ones took."""
    table = Table()
    names = ("kind", "queued", "running", "failed", "oldest waiting", "done", "p50", "p95")
    for name in names:
        table.add_column(name, justify="left" if name == "kind" else "right")
    for k in lag.kinds:
        cells = (
            k.kind,
            str(k.queued),
            str(k.running),
            str(k.failed),
            duration(k.oldest_queued_s),
            str(k.done),
            _seconds(k.p50_s),
            _seconds(k.p95_s),
        )
        table.add_row(*(Text(c) for c in cells))
    return table


def _seconds(s: float | None) -> str:
    """A job's time: ``0.4s`` under a minute, else as a wait."""
    if s is None:
        return "-"
    return f"{s:.1f}s" if s < 60 else duration(s)


def lag_line(lag: JobLag) -> str:
    if not lag.kinds:
        return "background work: no jobs"
    cut = f" (the {lag.sample} most recent)" if lag.truncated else ""
    return f"background work: {lag.sampled} done jobs measured{cut}"


@click.command()
@click.option(
    "--since",
    default=DEFAULT_SINCE,
    show_default=True,
    metavar="WHEN",
    help="all, how far back (30m, 24h, 7d, 2w) or a date (2026-02-03).",
)
@click.option(
    "--jobs",
    "jobs_only",
    is_flag=True,
    help="Only how far background work lags (with --json: the JobLagView).",
)
@click.option(
    "--sample",
    type=click.IntRange(1, 10_000),
    default=LAG_SAMPLE,
    show_default=True,
    help="The most done jobs to measure (the most recently asked for).",
)
@json_option
@click.pass_obj
def stats(state: CliState, since: str, jobs_only: bool, sample: int) -> None:
    """How the loop went: searches per surface (python, cli, http, mcp, tool, inject) and
    how often the brain spoke; write-back's proposals written, queued or skipped; reviews
    approved or rejected and how long they waited; the inbox's size and age now; and how
    far background work lags: jobs queued, running and failed per kind (index, derive,
    audit, writeback) and how long recent ones took from asked for to done."""
    window = parse_since(since)
    brain = state.brain()
    if jobs_only:
        lag = brain.job_lag(since=window, sample=sample)
        if state.json:
            echo_json(JobLagView.of(lag))
        else:
            _print_lag(lag)
        return
    found = brain.stats(since=window)
    if state.json:
        echo_json(LoopStatsView.of(found))
        return
    out = console()
    lines = stats_lines(found)
    out.print(lines[0], markup=False)
    out.print(lines[1], markup=False)
    if found.surfaces:
        out.print(_surfaces_table(found))
    for line in lines[2:]:
        out.print(line, markup=False)
    _print_lag(brain.job_lag(since=window, sample=sample))


def _print_lag(lag: JobLag) -> None:
    out = console()
    out.print(lag_line(lag), markup=False)
    if lag.kinds:
        out.print(lag_table(lag))


COMMANDS: tuple[click.Command, ...] = (stats,)
