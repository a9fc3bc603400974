"""``orgbrain search``: cited answers, or silence with the reason why."""

from __future__ import annotations

from datetime import datetime

import click

from ..retrieve import DEFAULT_PLAN, PLANS, Mode
from ..views import SearchResultView
from .app import CliState, json_option
from .options import WHEN
from .render import console, echo_json, search_text

__all__ = ["COMMANDS", "search"]


@click.command()
@click.argument("query", nargs=-1, required=True)
@click.option(
    "-k",
    "k",
    type=int,
    help="At most this many hits (default 5, at most 100: more is capped, and said).",
)
@click.option(
    "--plan",
    default=None,
    metavar="NAME",
    help=(
        f"The ranking to use. Default: {DEFAULT_PLAN} (or ORGBRAIN_PLAN). Experiments, "
        f"for comparing: {', '.join(sorted(set(PLANS) - {DEFAULT_PLAN}))}."
    ),
)
@click.option("--kind", help="Only hits of this kind.")
@click.option(
    "--as-of",
    "as_of",
    type=WHEN,
    help="Answer as the brain believed on this date (2026-02-03 or an RFC 3339 time).",
)
@click.option(
    "--history",
    is_flag=True,
    help="Leave supersession out of the order (superseded hits are still marked).",
)
@json_option
@click.pass_obj
def search(
    state: CliState,
    query: tuple[str, ...],
    k: int | None,
    plan: str | None,
    kind: str | None,
    as_of: datetime | None,
    history: bool,
) -> None:
    """Search files, sections and notes; every hit carries its citation. The current
    belief comes first: a superseded hit says what replaced it."""
    if history and as_of is not None:
        raise click.UsageError("--history and --as-of are two different questions: pick one")
    mode: Mode | None = "history" if history else None
    result = state.brain().search(
        " ".join(query), k=k, plan=plan, kind=kind, mode=mode, as_of=as_of
    )
    if state.json:
        echo_json(SearchResultView.of(result))
        return
    out = console()
    for line in search_text(result):
        out.print(line)


COMMANDS: tuple[click.Command, ...] = (search,)
