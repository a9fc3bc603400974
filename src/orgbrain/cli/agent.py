"""``mcp``, ``tools``, ``context`` and ``log``: the agent surface from the command line.

The principal an agent runs as comes from options or the environment (``ORGBRAIN_USER``,
``ORGBRAIN_TEAMS``, ``ORGBRAIN_AGENT``); with no user it is the brain's local owner.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

import click
from rich.table import Table
from rich.text import Text

from ..agents.tools import SchemaFormat, ToolContext, render_tools
from ..brain import Brain
from ..errors import InvalidInput
from ..inject import InjectPolicy
from ..scopes import Principal, parse_scope
from ..views import TurnContextView
from .app import CliState, json_option
from .render import console, echo_json, snippet

__all__ = [
    "COMMANDS",
    "context",
    "log",
    "mcp",
    "principal_from",
    "principal_options",
    "tools",
]

F = TypeVar("F", bound=Callable[..., Any])

LOCAL_AGENT = "agent:local"
"""Who an agent writes as when it runs as the local owner (no --user): an agent, so its
notes say so, not ``human:local``."""


def principal_from(
    workspace: str, user: str | None, teams: tuple[str, ...], agent: bool
) -> Principal | None:
    """The principal named by ``--user``/``--team``, or None for the local owner."""
    if not user:
        if teams:
            raise InvalidInput("--team (ORGBRAIN_TEAMS) needs --user (ORGBRAIN_USER)")
        return None
    user_id = parse_scope(f"user:{user.strip().removeprefix('user:')}").removeprefix("user:")
    team_ids: set[str] = set()
    for raw in teams:
        for t in raw.split(","):
            if t.strip():
                scope = parse_scope(f"team:{t.strip().removeprefix('team:')}")
                team_ids.add(scope.removeprefix("team:"))
    return Principal(workspace, user_id, frozenset(team_ids), agent)


def principal_options(agent_default: bool) -> Callable[[F], F]:
    def decorate(f: F) -> F:
        f = click.option(
            "--agent/--human",
            "as_agent",
            default=agent_default,
            show_default=True,
            envvar="ORGBRAIN_AGENT",
            help="Whether the principal is an agent acting for the user (ORGBRAIN_AGENT).",
        )(f)
        f = click.option(
            "--team",
            "teams",
            multiple=True,
            envvar="ORGBRAIN_TEAMS",
            help="A team of the user; repeat or comma-separate (ORGBRAIN_TEAMS).",
        )(f)
        f = click.option(
            "--user",
            envvar="ORGBRAIN_USER",
            help="Act as this user, seeing only their scopes (ORGBRAIN_USER). "
            "Default: the local owner, who sees everything.",
        )(f)
        return f

    return decorate


def _brain_for(state: CliState, user: str | None, teams: tuple[str, ...], agent: bool) -> Brain:
    brain = state.brain()
    principal = principal_from(brain.workspace, user, teams, agent)
    return brain if principal is None else brain.for_principal(principal)


@click.command()
@click.option("--run-id", envvar="ORGBRAIN_RUN_ID", help="The agent run its writes record.")
@principal_options(agent_default=True)
@json_option
@click.pass_obj
def mcp(
    state: CliState, run_id: str | None, user: str | None, teams: tuple[str, ...], as_agent: bool
) -> None:
    """Serve the agent tools over MCP on stdin/stdout, for a local agent (--json: no effect).

    A worker thread derives (and indexes) what the agent writes while the session lasts."""
    from ..server.mcp import serve_stdio
    from ..server.worker import WorkerPool

    brain = _brain_for(state, user, teams, as_agent)
    if brain.principal is None and as_agent:
        brain = brain.acting_as(LOCAL_AGENT)
    # Load the embedding model while the client starts up, not on its first search.
    threading.Thread(target=_warm, args=(brain,), daemon=True).start()
    workers = WorkerPool(state.brain(), threads=1)
    workers.start()
    try:
        serve_stdio(brain, ToolContext(run_id=run_id, source="mcp"))
    finally:
        workers.stop()


def _warm(brain: Brain) -> None:
    try:
        brain.warm_up()
    except Exception:  # the first real call reports it properly
        pass


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["openai", "anthropic", "mcp"]),
    default="mcp",
    show_default=True,
    help="The shape of tool definitions a framework expects.",
)
@json_option
def tools(fmt: str) -> None:
    """Print the agent tools' schemas as JSON, for frameworks that call tools directly."""
    click.echo(json.dumps(render_tools(cast(SchemaFormat, fmt)), indent=2))


@click.command()
@click.argument("message", nargs=-1, required=True)
@click.option("--anchor", "anchors", multiple=True, help="An item id to include (at most 4).")
@click.option(
    "--budget",
    type=click.IntRange(100, 4000),
    default=InjectPolicy().token_budget,
    show_default=True,
    help="Token budget of the block.",
)
@principal_options(agent_default=True)
@json_option
@click.pass_obj
def context(
    state: CliState,
    message: tuple[str, ...],
    anchors: tuple[str, ...],
    budget: int,
    user: str | None,
    teams: tuple[str, ...],
    as_agent: bool,
) -> None:
    """Show what read injection would give an agent for MESSAGE (and log the turn)."""
    brain = _brain_for(state, user, teams, as_agent)
    ctx = brain.context_for_turn(
        " ".join(message), anchors, policy=InjectPolicy(token_budget=budget)
    )
    if state.json:
        echo_json(TurnContextView.of(ctx))
        return
    if ctx.text:
        click.echo(ctx.text)
    summary = f"{ctx.decision}: {ctx.why or ctx.reason} · {ctx.tokens}/{ctx.budget} tokens"
    click.echo(f"{summary} · {len(ctx.items)} items · {ctx.latency_ms:.0f} ms", err=True)


@click.command()
@click.option("-n", "limit", type=click.IntRange(1, 1000), default=20, show_default=True)
@principal_options(agent_default=True)
@json_option
@click.pass_obj
def log(
    state: CliState, limit: int, user: str | None, teams: tuple[str, ...], as_agent: bool
) -> None:
    """Show recent read-injection turns: what was asked, what was injected, and why."""
    turns = _brain_for(state, user, teams, as_agent).recent_turns(limit)
    if state.json:
        echo_json({"turns": turns})
        return
    table = Table(title="turns, newest first")
    for name in ("at", "actor", "decision", "items", "tokens", "ms", "query", "why"):
        table.add_column(name, overflow="fold")
    for t in turns:
        injected = t.get("injected")
        table.add_row(
            Text(str(t.get("at", ""))[:19]),
            Text(str(t.get("actor", ""))),
            Text(str(t.get("decision", ""))),
            str(len(injected) if isinstance(injected, list) else 0),
            str(t.get("tokens", 0)),
            f"{float(str(t.get('latency_ms') or 0)):.0f}",
            Text(snippet(str(t.get("query", "")), 80)),
            # A turn logged before ``why`` was has only the technical reason.
            Text(str(t.get("why") or t.get("reason", ""))),
        )
    console().print(table)


COMMANDS: tuple[click.Command, ...] = (mcp, tools, context, log)
