"""The write-back tools: an agent hands its run's work products over when the run ends
(``brain_write_back``), and a reviewing agent works the inbox (``brain_inbox``,
``brain_approve``, ``brain_reject``). A proposal is visible only to whoever may decide it
(docs/writeback.md); an agent acting for a user decides nothing without ``review``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from ...brain import Brain
from ...errors import InvalidInput
from ...model import RunOutcome
from ...views import ProposalList, ProposalView, WriteBackAckView
from .registry import ToolContext, tool

__all__ = [
    "INBOX_LIMIT",
    "WRITE_BACK_WAIT_S",
    "brain_approve",
    "brain_inbox",
    "brain_reject",
    "brain_write_back",
]

WRITE_BACK_WAIT_S = 30.0
INBOX_LIMIT = 50

ProposalId = Annotated[
    str, Field(min_length=1, max_length=200, description="A proposal id, e.g. prp_…")
]
Line = Annotated[str, Field(min_length=1, max_length=8000)]


@tool(read_only=False, idempotent=True)
def brain_write_back(
    brain: Brain,
    ctx: ToolContext,
    outcome: Annotated[RunOutcome, Field(description="succeeded, blocked or completed.")],
    summary: Annotated[
        str, Field(max_length=8000, description="What the run did and learned, in sentences.")
    ],
    decisions: Annotated[
        tuple[Line, ...], Field(max_length=50, description="Decisions the run made, one each.")
    ] = (),
    artefacts: Annotated[
        tuple[Line, ...], Field(max_length=50, description="What it produced: PRs, documents.")
    ] = (),
    scope: Annotated[
        str | None,
        Field(max_length=300, description="org (default) or team:<id>: where it belongs."),
    ] = None,
    run_id: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=200,
            description="The run; default: this session's run id.",
        ),
    ] = None,
    wait: Annotated[
        bool,
        Field(description="Wait (up to 30 s) for the pass: for a brain no server runs."),
    ] = False,
) -> WriteBackAckView:
    """When a run ends, hand its work products (not the transcript; at most 8000
    characters) to the brain. It decides later what to remember: confident organisation
    knowledge is written, anything personal, sensitive or uncertain waits for a person's
    review, task chatter is dropped. One pass per run: the same call again returns it.
    """
    run = ctx.run_id if run_id is None else run_id
    if run is None:
        raise InvalidInput("say which run this is: run_id (this session has no run id)")
    if ctx.run_id is not None and run != ctx.run_id:
        raise InvalidInput(f"this session is run {ctx.run_id}; it writes back that run only")
    products: dict[str, object] = {
        "run_id": run,
        "outcome": outcome,
        "summary": summary,
        "decisions": list(decisions),
        "artefacts": list(artefacts),
    }
    if scope is not None:
        products["scope"] = scope
    ack = brain.write_back(products, wait=wait, timeout=WRITE_BACK_WAIT_S)
    return WriteBackAckView.of(ack)


@tool(read_only=True)
def brain_inbox(
    brain: Brain,
    ctx: ToolContext,
    state: Annotated[
        Literal["pending", "written", "approved", "rejected", "skipped", "all"],
        Field(description="Only this state (default pending); all: every state."),
    ] = "pending",
    run_id: Annotated[
        str | None, Field(min_length=1, max_length=200, description="Only this run's.")
    ] = None,
    limit: Annotated[int, Field(ge=1, le=INBOX_LIMIT, description="At most this many.")] = 20,
) -> ProposalList:
    """The review inbox: write-back proposals you may decide, oldest first (pending ones
    by default). Each has its kind, body, scope, confidence, the gate's reason and the run
    it came from. Pending proposals are never searched or injected until approved.
    """
    states = None if state == "all" else state
    return ProposalList.of(brain.proposals(state=states, run_id=run_id, limit=limit))


@tool(read_only=False, review=True)
def brain_approve(
    brain: Brain,
    ctx: ToolContext,
    proposal_id: ProposalId,
    label: Annotated[str | None, Field(max_length=2000, description="An edited label.")] = None,
    body: Annotated[
        str | None, Field(min_length=1, max_length=100_000, description="An edited body.")
    ] = None,
    reason: Annotated[str | None, Field(max_length=2000, description="Why you approve.")] = None,
) -> ProposalView:
    """Approve a pending proposal from your inbox, optionally edited: it is written at its
    stored scope with you as its author, and searchable at once. A proposal is decided
    once; one you may not review reads as not found.
    """
    return ProposalView.of(brain.approve(proposal_id, label=label, body=body, reason=reason))


@tool(read_only=False, review=True)
def brain_reject(
    brain: Brain,
    ctx: ToolContext,
    proposal_id: ProposalId,
    reason: Annotated[str, Field(min_length=1, max_length=2000, description="Why it is rejected.")],
) -> ProposalView:
    """Reject a pending proposal from your inbox, with the reason: it is kept, never
    written. A proposal is decided once.
    """
    return ProposalView.of(brain.reject(proposal_id, reason=reason))
