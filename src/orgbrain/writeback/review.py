"""The review inbox: who sees a proposal, and approving or rejecting one.

A proposal is visible only to whoever may approve it (``Principal.may_review``): one at
``user:<id>`` to that user; one at ``team:<id>`` or ``org`` to principals with the
``review`` permission there; the local owner sees all. Anyone else reads it as absent.
Deciding one also needs ``review`` or ``write`` (``Principal.may_decide``, checked here for
every surface): a read-only key sees its own proposals and decides none (``Forbidden``).
Approving (optionally edited) writes it at its stored scope with the approver as the
origin's actor and ``proposal:<id>`` as its source key; rejecting keeps it with the
reason. A decision is made once (compare-and-set), and both are logged (``review``).
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager

from ..context import BrainContext
from ..errors import Conflict, Forbidden, InvalidInput, NotFound
from ..model import PROPOSAL_STATES, Proposal
from ..telemetry import MEMORY_RECORD_ID, MEMORY_STORE_ID, Span, set_attributes, span
from ..writes import MAX_NOTE_CHARS
from .run import write_proposal

__all__ = ["MAX_LISTED", "approve", "get_proposal", "list_proposals", "reject", "reviewable"]

MAX_LISTED = 500


def reviewable(ctx: BrainContext) -> list[str] | None:
    """The scopes whose proposals ``ctx``'s reader sees (None: all, the local owner)."""
    p = ctx.principal
    if p is None:
        return None
    return sorted(s for s in p.visibility.scopes or () if p.may_review(s))


def list_proposals(
    ctx: BrainContext,
    *,
    states: Sequence[str] | None = ("pending",),
    run_id: str | None = None,
    limit: int = 100,
) -> list[Proposal]:
    if limit < 1 or limit > MAX_LISTED:
        raise InvalidInput(f"limit must be 1..{MAX_LISTED}")
    for s in states or ():
        if s not in PROPOSAL_STATES:
            raise InvalidInput(f"state is one of {', '.join(PROPOSAL_STATES)}, not {s!r}")
    return ctx.proposals.proposals(
        ctx.workspace, scopes=reviewable(ctx), states=states, run_id=run_id, limit=limit
    )


def get_proposal(ctx: BrainContext, proposal_id: str) -> Proposal:
    found = ctx.proposals.proposal(ctx.workspace, proposal_id)
    scopes = reviewable(ctx)
    if found is None or (scopes is not None and found.scope not in scopes):
        raise NotFound(f"no proposal {proposal_id}")
    return found


def _decidable(ctx: BrainContext, proposal_id: str) -> Proposal:
    """The proposal, once ``ctx``'s reader may decide it: the one check every surface
    (HTTP, MCP, the web UI, Python) goes through, whatever the transport checked first."""
    p = get_proposal(ctx, proposal_id)
    if ctx.principal is not None and not ctx.principal.may_decide(p.scope):
        raise Forbidden("this key lacks the review or write permission")
    return p


def approve(
    ctx: BrainContext,
    proposal_id: str,
    *,
    label: str | None = None,
    body: str | None = None,
    reason: str | None = None,
) -> Proposal:
    """Write a pending proposal (with ``label``/``body`` edited, if given) at its stored
    scope; ``Conflict`` if it was decided already. An approval whose write was cut short
    (a crash) is finished by approving it again."""
    with _span(ctx, proposal_id, "approve") as current:
        done = _approve(ctx, proposal_id, label=label, body=body, reason=reason)
        _outcome(current, done)
        return done


def _approve(
    ctx: BrainContext,
    proposal_id: str,
    *,
    label: str | None,
    body: str | None,
    reason: str | None,
) -> Proposal:
    p = _decidable(ctx, proposal_id)
    if body is not None:
        body = body.strip()
        if not body:
            raise InvalidInput("an edited body cannot be empty")
        if len(body) > MAX_NOTE_CHARS:
            raise InvalidInput(f"a body is at most {MAX_NOTE_CHARS} characters")
    if label is not None:
        label = label.strip() or None
    if p.state == "approved" and p.item_id is None:
        return _write(ctx, p)
    if p.state != "pending":
        raise Conflict(f"proposal {p.id} is {p.state}, not pending")
    at = ctx.clock()
    if not ctx.proposals.decide_proposal(
        ctx.workspace,
        p.id,
        "approved",
        decided_by=ctx.actor,
        decided_at=at,
        reason=reason,
        label=label,
        body=body,
    ):
        raise Conflict(f"proposal {p.id} was decided meanwhile")
    return _write(ctx, get_proposal(ctx, p.id))


def reject(ctx: BrainContext, proposal_id: str, *, reason: str) -> Proposal:
    """Keep a pending proposal out of the brain, with the reason (required)."""
    with _span(ctx, proposal_id, "reject") as current:
        done = _reject(ctx, proposal_id, reason)
        _outcome(current, done)
        return done


def _reject(ctx: BrainContext, proposal_id: str, reason: str) -> Proposal:
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput("say why the proposal is rejected")
    p = _decidable(ctx, proposal_id)
    if p.state != "pending":
        raise Conflict(f"proposal {p.id} is {p.state}, not pending")
    at = ctx.clock()
    if not ctx.proposals.decide_proposal(
        ctx.workspace, p.id, "rejected", decided_by=ctx.actor, decided_at=at, reason=reason.strip()
    ):
        raise Conflict(f"proposal {p.id} was decided meanwhile")
    done = get_proposal(ctx, p.id)
    _log(ctx, done, None)
    return done


def _write(ctx: BrainContext, p: Proposal) -> Proposal:
    item = write_proposal(ctx, p, source="review")
    ctx.proposals.proposal_written(ctx.workspace, p.id, item.id)
    done = get_proposal(ctx, p.id)
    _log(ctx, done, item.id)
    return done


def _log(ctx: BrainContext, p: Proposal, item_id: str | None) -> None:
    waited = (p.decided_at - p.created_at).total_seconds() if p.decided_at else None
    ctx.events.log_event(
        ctx.workspace,
        "review",
        {
            "proposal_id": p.id,
            "run_id": p.run_id,
            "outcome": p.state,
            "reviewer": p.decided_by,
            "reason": p.review_reason,
            "scope": p.scope,
            "item_id": item_id,
            "waited_s": waited,
            "actor": ctx.actor,
        },
    )


def _span(ctx: BrainContext, proposal_id: str, action: str) -> AbstractContextManager[Span]:
    """One ``orgbrain.review`` span around a decision (docs/loop.md)."""
    return span(
        "orgbrain.review",
        {
            MEMORY_STORE_ID: ctx.workspace,
            "orgbrain.proposal.id": proposal_id,
            "orgbrain.review.action": action,
        },
    )


def _outcome(current: Span, p: Proposal) -> None:
    waited = (p.decided_at - p.created_at).total_seconds() if p.decided_at else None
    set_attributes(
        current,
        {
            "orgbrain.review.outcome": p.state,
            "orgbrain.review.waited_s": waited,
            MEMORY_RECORD_ID: p.item_id,
        },
    )
