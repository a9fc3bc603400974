"""Write-back as every surface shows it: a run's acknowledgement (``POST
/v1/runs/{id}/writeback``, ``brain_write_back``, ``orgbrain writeback --json``) and the
proposals of the review inbox (``GET /v1/proposals``, ``brain_inbox``, ``orgbrain inbox``)."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from pydantic import Field

from ..model import Proposal, ProposalState, WriteBackAck
from ..ports import JobState
from ._base import View

__all__ = ["ProposalList", "ProposalView", "WriteBackAckView"]


class ProposalView(View):
    """One thing a write-back pass proposed, and what the gate (or a reviewer) made of it."""

    id: str
    workspace: str
    run_id: str = Field(description="The run whose work products it came from")
    actor: str = Field(description="Who handed the run over")
    kind: str = Field(description="fact, decision, rule, owner, definition, gotcha, preference")
    label: str
    body: str
    scope: str = Field(description="Where it is stored, and where it lands if approved")
    confidence: float
    sensitivity: list[str] = Field(description="Why it is sensitive (never the secret itself)")
    evidence: list[str] = Field(description="The lines of the work products it came from")
    supersedes: list[str] = Field(description="Items it replaces once written")
    state: ProposalState = Field(description="pending, written, approved, rejected or skipped")
    reason: str = Field(description="The gate's reason for its decision")
    created_at: datetime
    writer: str = Field(description="offline or llm")
    item_id: str | None = Field(description="The note it became, once written")
    decided_by: str | None = Field(description="The reviewer who approved or rejected it")
    decided_at: datetime | None
    review_reason: str | None = Field(description="The reviewer's reason")

    @classmethod
    def of(cls, p: Proposal) -> ProposalView:
        return cls(
            id=p.id,
            workspace=p.workspace,
            run_id=p.run_id,
            actor=p.actor,
            kind=p.kind,
            label=p.label,
            body=p.body,
            scope=p.scope,
            confidence=p.confidence,
            sensitivity=list(p.sensitivity),
            evidence=list(p.evidence),
            supersedes=list(p.supersedes),
            state=p.state,
            reason=p.reason,
            created_at=p.created_at,
            writer=p.writer,
            item_id=p.item_id,
            decided_by=p.decided_by,
            decided_at=p.decided_at,
            review_reason=p.review_reason,
        )

    def to_model(self) -> Proposal:
        return Proposal(
            id=self.id,
            workspace=self.workspace,
            run_id=self.run_id,
            actor=self.actor,
            kind=self.kind,
            label=self.label,
            body=self.body,
            scope=self.scope,
            confidence=self.confidence,
            sensitivity=tuple(self.sensitivity),
            evidence=tuple(self.evidence),
            supersedes=tuple(self.supersedes),
            state=self.state,
            reason=self.reason,
            created_at=self.created_at,
            writer=self.writer,
            item_id=self.item_id,
            decided_by=self.decided_by,
            decided_at=self.decided_at,
            review_reason=self.review_reason,
        )


class ProposalList(View):
    proposals: list[ProposalView] = Field(description="Oldest first")

    @classmethod
    def of(cls, found: list[Proposal]) -> ProposalList:
        return cls(proposals=[ProposalView.of(p) for p in found])


class WriteBackAckView(View):
    """A write-back request's acknowledgement: the pass is a durable job."""

    run_id: str
    job_id: str = Field(description="The pass's job (GET /v1/jobs/{id})")
    state: JobState = Field(description="queued, running, done or failed")
    created: bool = Field(description="False when this run was written back already")
    proposals: list[ProposalView] = Field(
        description="Once done: the run's proposals this reader may review"
    )
    counts: dict[str, int] = Field(
        description="Once done: how many proposals the gate wrote, queued for review "
        "(pending) and skipped, by state; no text"
    )
    error: str | None = Field(description="Why the last attempt failed, if one did")

    @classmethod
    def of(cls, ack: WriteBackAck) -> WriteBackAckView:
        return cls(
            run_id=ack.run_id,
            job_id=ack.job_id,
            state=cast(JobState, ack.state),
            created=ack.created,
            proposals=[ProposalView.of(p) for p in ack.proposals],
            counts=dict(ack.counts),
            error=ack.error,
        )

    def to_model(self) -> WriteBackAck:
        return WriteBackAck(
            run_id=self.run_id,
            job_id=self.job_id,
            state=self.state,
            created=self.created,
            proposals=tuple(p.to_model() for p in self.proposals),
            counts=dict(self.counts),
            error=self.error,
        )
