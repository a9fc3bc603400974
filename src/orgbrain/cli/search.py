"""``orgbrain search``: cited answers, or silence with the reason why."""

from __future__ import annotations

import click

from ..retrieve import DEFAULT_PLAN, PLANS
from ..views import SearchResultView
from .app import CliState, json_option
from .render import console, echo_json, search_text

__all__ = ["COMMANDS", "search"]


@click.command()
@click.argument("query", nargs=-1, required=True)
@click.option("-k", "k", type=int, help="At most this many hits (the plan caps it).")
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
@json_option
@click.pass_obj
def search(
    state: CliState, query: tuple[str, ...], k: int | None, plan: str | None, kind: str | None
) -> None:
    """Search files, sections and notes; every hit carries its citation."""
    result = state.brain().search(" ".join(query), k=k, plan=plan, kind=kind)
    if state.json:
        echo_json(SearchResultView.of(result))
        return
    out = console()
    for line in search_text(result):
        out.print(line)


COMMANDS: tuple[click.Command, ...] = (search,)
