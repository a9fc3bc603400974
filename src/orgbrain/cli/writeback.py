"""``orgbrain writeback`` (hand a run's work products over) and ``orgbrain inbox`` (the
review inbox: list, show, approve, reject).

Both act as the brain's local owner, who sees every proposal, unless ``--user`` (with
``--team``, ``--agent`` and, for the inbox, ``--review``) names a principal: then only
what that principal may review is shown or decided, as over HTTP.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from ..brain import Brain
from ..brain.writeback import WRITEBACK_WAIT_S
from ..errors import InvalidInput, NotFound
from ..model import PROPOSAL_STATES, Proposal, ProposalState, WriteBackAck
from ..views import ProposalList, ProposalView, WriteBackAckView
from .agent import principal_from, principal_options
from .app import CliState, json_option
from .options import report_derivation
from .render import echo_json, snippet

__all__ = ["COMMANDS", "ack_lines", "inbox", "inbox_lines", "proposal_lines", "writeback"]

F = TypeVar("F", bound=Callable[..., Any])


def _brain_as(
    state: CliState, user: str | None, teams: tuple[str, ...], agent: bool, review: bool
) -> Brain:
    brain = state.brain()
    principal = principal_from(brain.workspace, user, teams, agent)
    if principal is None:
        if review:
            raise InvalidInput("--review needs --user (the local owner reviews everything)")
        return brain
    return brain.for_principal(replace(principal, review=review))


def _review_option(f: F) -> F:
    return click.option(
        "--review",
        is_flag=True,
        help="With --user: the principal has the review permission (org and team proposals).",
    )(f)


def _read_products(source: str) -> dict[str, object]:
    if source == "-":
        text = sys.stdin.read()
    else:
        path = Path(source)
        if not path.is_file():
            raise NotFound(f"no such file: {path}")
        text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{source}: not JSON ({exc.msg}, line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise InvalidInput(f"{source}: work products are a JSON object")
    return data


def ack_lines(ack: WriteBackAck) -> list[str]:
    """An acknowledgement as a person reads it: the pass, then what the gate did."""
    again = "" if ack.created else " (this run was written back already)"
    lines = [f"run {ack.run_id}: write-back {ack.state}, job {ack.job_id}{again}"]
    if ack.error:
        lines.append(f"  last error: {ack.error}")
    if ack.state == "done":
        counts = ", ".join(f"{n} {state}" for state, n in sorted(ack.counts.items()))
        lines.append(f"  {counts or 'nothing proposed'}")
        lines += [f"  {p.state:<8} {p.id}  {snippet(p.body, 80)}" for p in ack.proposals]
    elif ack.state in ("queued", "running"):
        lines.append("  a worker finishes it (`orgbrain worker`); `orgbrain jobs` shows it")
    return lines


def proposal_lines(p: Proposal) -> list[str]:
    """One proposal in full, as ``orgbrain inbox show`` prints it."""
    lines = [
        f"{p.id}  {p.state} · {p.kind} · {p.scope} · confidence {p.confidence:.2f}",
        *([f"  label     {p.label}"] if p.label else []),
        f"  body      {p.body}",
        f"  gate      {p.reason}",
        f"  run       {p.run_id} by {p.actor} ({p.writer} writer), {p.created_at:%Y-%m-%d %H:%M}",
    ]
    if p.sensitivity:
        lines.append(f"  sensitive {', '.join(p.sensitivity)}")
    lines += [f"  evidence  {snippet(e, 200)}" for e in p.evidence]
    lines += [f"  replaces  {s}" for s in p.supersedes]
    if p.decided_by:
        why = f": {p.review_reason}" if p.review_reason else ""
        lines.append(f"  decided   {p.state} by {p.decided_by}{why}")
    if p.item_id:
        lines.append(f"  note      {p.item_id}")
    return lines


def inbox_lines(found: list[Proposal]) -> list[str]:
    """A listing as a person reads it: each proposal's head line, its body, the reason."""
    lines = []
    for p in found:
        lines.append(
            f"{p.id}  {p.state} · {p.kind} · {p.scope} · {p.confidence:.2f} · run {p.run_id}"
        )
        lines.append(f"    {snippet(p.body, 300)}")
        lines.append(f"    {p.review_reason or p.reason}")
    return lines


@click.command()
@click.option("--run", "run_id", required=True, help="The run's id.")
@click.option(
    "--from",
    "source",
    required=True,
    metavar="FILE",
    help="The work products as JSON (outcome, summary, decisions, artefacts, user_id, "
    "scope); - reads stdin.",
)
@click.option(
    "--wait/--no-wait",
    default=True,
    show_default=True,
    help="Work on the pass here until it is done (an embedded brain has no background "
    "worker); --no-wait leaves it queued for `orgbrain worker`.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=WRITEBACK_WAIT_S,
    show_default=True,
    help="With --wait: answer after this many seconds anyway.",
)
@principal_options(agent_default=False)
@json_option
@click.pass_obj
def writeback(
    state: CliState,
    run_id: str,
    source: str,
    wait: bool,
    timeout: float,
    user: str | None,
    teams: tuple[str, ...],
    as_agent: bool,
) -> None:
    """Hand a finished run's work products to write-back: confident organisation knowledge
    is written, personal, sensitive or uncertain proposals wait in the review inbox."""
    data = _read_products(source)
    if "run_id" in data and data["run_id"] != run_id:
        raise InvalidInput(f"{source} is run {data['run_id']!r}, not --run {run_id!r}")
    products = {**data, "run_id": run_id}
    brain = _brain_as(state, user, teams, as_agent, False)
    ack = brain.write_back(products, wait=wait, timeout=timeout)
    if state.json:
        echo_json(WriteBackAckView.of(ack))
        return
    for line in ack_lines(ack):
        click.echo(line)


@click.group(invoke_without_command=True)
@click.pass_context
def inbox(ctx: click.Context) -> None:
    """The review inbox: write-back proposals waiting for a person (list by default)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_)


@inbox.command("list")
@click.option(
    "--state",
    "state_filter",
    type=click.Choice([*PROPOSAL_STATES, "all"]),
    default="pending",
    show_default=True,
    help="Only proposals in this state; all: every state.",
)
@click.option("--run", "run_id", help="Only this run's proposals.")
@click.option("--limit", type=click.IntRange(1, 500), default=100, show_default=True)
@principal_options(agent_default=False)
@_review_option
@json_option
@click.pass_obj
def list_(
    state: CliState,
    state_filter: str,
    run_id: str | None,
    limit: int,
    user: str | None,
    teams: tuple[str, ...],
    as_agent: bool,
    review: bool,
) -> None:
    """List proposals you may review, oldest first (pending ones by default)."""
    states = None if state_filter == "all" else cast(ProposalState, state_filter)
    brain = _brain_as(state, user, teams, as_agent, review)
    found = brain.proposals(state=states, run_id=run_id, limit=limit)
    if state.json:
        echo_json(ProposalList.of(found))
        return
    if not found:
        click.echo("no proposals" if states is None else f"no {states} proposals")
        return
    for line in inbox_lines(found):
        click.echo(line)


@inbox.command("show")
@click.argument("proposal_id")
@principal_options(agent_default=False)
@_review_option
@json_option
@click.pass_obj
def show(
    state: CliState,
    proposal_id: str,
    user: str | None,
    teams: tuple[str, ...],
    as_agent: bool,
    review: bool,
) -> None:
    """One proposal in full: body, scope, confidence, the gate's reason, its evidence."""
    p = _brain_as(state, user, teams, as_agent, review).proposal(proposal_id)
    if state.json:
        echo_json(ProposalView.of(p))
        return
    for line in proposal_lines(p):
        click.echo(line)


@inbox.command("approve")
@click.argument("proposal_id")
@click.option("--label", help="An edited label.")
@click.option("--body", help="An edited body (the note written instead of the proposal's).")
@click.option("--reason", help="Why it is approved.")
@principal_options(agent_default=False)
@_review_option
@json_option
@click.pass_obj
def approve(
    state: CliState,
    proposal_id: str,
    label: str | None,
    body: str | None,
    reason: str | None,
    user: str | None,
    teams: tuple[str, ...],
    as_agent: bool,
    review: bool,
) -> None:
    """Approve a pending proposal (edited, if given): written at its stored scope."""
    brain = _brain_as(state, user, teams, as_agent, review)
    done = brain.approve(proposal_id, label=label, body=body, reason=reason)
    if done.item_id:
        report_derivation(brain, [brain.get(done.item_id)], "the approved note")
    if state.json:
        echo_json(ProposalView.of(done))
        return
    click.echo(f"approved {done.id}: written as {done.item_id} at {done.scope}")


@inbox.command("reject")
@click.argument("proposal_id")
@click.option("--reason", required=True, help="Why it is rejected (required).")
@principal_options(agent_default=False)
@_review_option
@json_option
@click.pass_obj
def reject(
    state: CliState,
    proposal_id: str,
    reason: str,
    user: str | None,
    teams: tuple[str, ...],
    as_agent: bool,
    review: bool,
) -> None:
    """Reject a pending proposal, with the reason: kept, never written."""
    done = _brain_as(state, user, teams, as_agent, review).reject(proposal_id, reason=reason)
    if state.json:
        echo_json(ProposalView.of(done))
        return
    click.echo(f"rejected {done.id}")


COMMANDS: tuple[click.Command, ...] = (writeback, inbox)
