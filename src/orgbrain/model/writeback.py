"""Write-back: a finished run's work products, the proposals made of them, and the
acknowledgement of a write-back request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

__all__ = [
    "PROPOSAL_STATES",
    "RUN_OUTCOMES",
    "Proposal",
    "ProposalState",
    "RunOutcome",
    "RunProducts",
    "WriteBackAck",
]

RunOutcome = Literal["succeeded", "blocked", "completed"]
RUN_OUTCOMES: tuple[RunOutcome, ...] = ("succeeded", "blocked", "completed")
ProposalState = Literal["pending", "written", "approved", "rejected", "skipped"]
PROPOSAL_STATES: tuple[ProposalState, ...] = (
    "pending",
    "written",
    "approved",
    "rejected",
    "skipped",
)


@dataclass(frozen=True, slots=True)
class RunProducts:
    """What a finished run hands to write-back: its outcome, summary, decisions and
    artefacts (at most ``writeback.MAX_PRODUCT_CHARS`` characters in all), and whose run
    it was. ``user_id`` is the person the run worked for: a personal fact lands in their
    scope, and with no user a personal fact is skipped, never widened to org."""

    run_id: str
    outcome: RunOutcome
    summary: str
    decisions: tuple[str, ...] = ()
    artefacts: tuple[str, ...] = ()
    user_id: str | None = None
    scope: str = "org"
    """Where the run's organisation knowledge belongs (``org`` or ``team:<id>``)."""

    @property
    def text(self) -> str:
        """Everything the writer reads, in order: summary, decisions, artefacts."""
        return "\n".join((self.summary, *self.decisions, *self.artefacts))


@dataclass(frozen=True, slots=True)
class Proposal:
    """One thing a write-back pass proposed to remember, and what the gate (then, for the
    inbox, a reviewer) made of it.

    ``state``: ``written`` (the gate wrote it straight in), ``pending`` (waiting in the
    review inbox), ``approved`` / ``rejected`` (a reviewer decided), ``skipped`` (the gate
    dropped it; ``reason`` says why). ``item_id`` is the note it became, once written.
    ``scope`` is where it is stored and where it lands if approved; a proposal is visible
    only to whoever may approve it. It is never searched or injected while pending."""

    id: str
    workspace: str
    run_id: str
    actor: str
    kind: str
    label: str
    body: str
    scope: str
    confidence: float
    sensitivity: tuple[str, ...]
    """Why it is sensitive (no secret text): empty when it is not."""
    evidence: tuple[str, ...]
    """The lines of the run's work products it came from."""
    supersedes: tuple[str, ...]
    """Items it would replace, when written."""
    state: ProposalState
    reason: str
    """The gate's reason for its decision."""
    created_at: datetime
    writer: str = "offline"
    item_id: str | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None
    review_reason: str | None = None


@dataclass(frozen=True, slots=True)
class WriteBackAck:
    """A write-back request's acknowledgement: the pass is a durable job (``job_id``,
    ``state`` queued, running, done or failed). ``created`` is False when this run was
    already written back (one pass per run). Once the pass is done, ``counts`` says how
    many proposals the gate wrote, queued for review and skipped (by state; no text),
    and ``proposals`` holds those this reader may review."""

    run_id: str
    job_id: str
    state: str
    created: bool
    proposals: tuple[Proposal, ...] = ()
    counts: Mapping[str, int] = field(default_factory=dict)
    error: str | None = None
