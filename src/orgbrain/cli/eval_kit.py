"""What every ``orgbrain eval`` command shares: the group, its options, how a report is
printed, and the two factories tests replace (``embedder_factory``, ``chat_factory``).

The commands live in ``eval.py`` (retrieval benchmarks) and ``eval_labelled.py``
(labelled sets); each reads the factories from here when it runs, so a test that
replaces one here reaches every command.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from ..compose import make_embedder
from ..errors import OrgBrainError
from ..evals import EvalReport
from ..evals.report import render_text, to_json
from ..ports import Chat, Embedder
from ..retrieve import PLANS, SearchPlan, get_plan
from ..retrieve.plan import DEFAULT_PLAN
from ..settings import Settings
from .app import CliState, OrgBrainGroup

__all__ = [
    "DEFAULT_PLANS",
    "cache_option",
    "chat_factory",
    "embedder_factory",
    "emit",
    "emit_scored",
    "eval_group",
    "json_flag",
    "out_option",
    "parse_plans",
    "plan_option",
    "progress",
    "settings_of",
    "wants_json",
]


# The ablation (each stream alone, plain RRF) beside what users get.
DEFAULT_PLANS = f"bm25,dense,hybrid,{DEFAULT_PLAN}"


def _default_embedder(settings: Settings) -> Embedder:
    return make_embedder(settings)


# The one way an eval gets its embedder; tests replace it to share a loaded model.
embedder_factory: Callable[[Settings], Embedder] = _default_embedder


def parse_plans(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[SearchPlan, ...]:
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise click.BadParameter("name at least one plan")
    try:
        return tuple(get_plan(n) for n in dict.fromkeys(names))
    except OrgBrainError as exc:
        raise click.BadParameter(exc.message) from None


def settings_of(ctx: click.Context) -> Settings:
    state = ctx.find_object(CliState)
    return state.settings if state is not None else Settings.from_env()


def wants_json(ctx: click.Context, flag: bool) -> bool:
    state = ctx.find_object(CliState)
    return flag or (state is not None and state.json)


def progress(message: str) -> None:
    click.echo(message, err=True)


def emit(report: EvalReport, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(to_json(report), indent=2))
    else:
        click.echo(render_text(report))


def emit_scored(
    as_json: bool,
    payload: dict[str, object],
    text: str,
    misses: list[dict[str, object]] | None,
) -> None:
    """A labelled set's report (write-back, sensitive, living): its JSON, or its text and,
    when ``misses`` is given, each miss as a JSON line."""
    if as_json:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    click.echo(text)
    for miss in misses or ():
        click.echo(json.dumps(miss, ensure_ascii=False))


plan_option = click.option(
    "--plan",
    "plans",
    default=DEFAULT_PLANS,
    show_default=True,
    callback=parse_plans,
    help=f"Comma-separated plans, run side by side over one index ({', '.join(sorted(PLANS))}).",
)
out_option = click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Per-query results as JSONL (default: a new temp dir; the path is printed).",
)
cache_option = click.option(
    "--cache",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep built indexes in DIR and reuse one whose key (corpus, embedder, indexing "
    "recipe) matches: query-side changes then run without re-embedding.",
)
json_flag = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


@click.group("eval", cls=OrgBrainGroup)
def eval_group() -> None:
    """Measure retrieval quality on public benchmarks (each run uses a fresh temp brain)."""


def _default_chat(settings: Settings) -> Chat | None:
    from ..compose import make_chat

    return make_chat(settings)


# The one way the statements eval gets its chat model; tests point it at a local server.
chat_factory: Callable[[Settings], Chat | None] = _default_chat
