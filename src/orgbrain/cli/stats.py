"""``orgbrain stats``: the loop, measured — how often the brain spoke, what write-back
proposed and the gate did with it, what reviewers decided, and how old the inbox is."""

from __future__ import annotations

import click
from rich.table import Table
from rich.text import Text

from ..stats import DEFAULT_SINCE, LoopStats, parse_since
from ..views import LoopStatsView
from .app import CliState, json_option
from .render import console, echo_json

__all__ = ["COMMANDS", "duration", "stats", "stats_lines"]


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


@click.command()
@click.option(
    "--since",
    default=DEFAULT_SINCE,
    show_default=True,
    metavar="WHEN",
    help="all, how far back (30m, 24h, 7d, 2w) or a date (2026-02-03).",
)
@json_option
@click.pass_obj
def stats(state: CliState, since: str) -> None:
    """How the loop went: searches per surface (python, cli, http, mcp, tool, inject) and
    how often the brain spoke; write-back's proposals written, queued or skipped; reviews
    approved or rejected and how long they waited; the inbox's size and age now."""
    found = state.brain().stats(since=parse_since(since))
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


COMMANDS: tuple[click.Command, ...] = (stats,)
