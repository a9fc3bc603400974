"""Write-back proposals: the review inbox."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from ..model import Proposal, ProposalState

__all__ = ["ProposalStore"]


class ProposalStore(Protocol):
    """Proposals an agent's write-back made, and the decisions on them."""

    def put_proposal(self, proposal: Proposal) -> tuple[Proposal, bool]:
        """Store a proposal, or return the one with its id (and whether it is new)."""
        ...

    def proposal(self, workspace: str, proposal_id: str) -> Proposal | None:
        """One proposal, whoever may see it (the caller checks)."""
        ...

    def proposals(
        self,
        workspace: str,
        *,
        scopes: Sequence[str] | None = None,
        states: Sequence[str] | None = None,
        run_id: str | None = None,
        limit: int = 100,
    ) -> list[Proposal]:
        """Proposals at one of ``scopes`` (None: any), in one of ``states``, of one run;
        oldest first."""
        ...

    def pending_proposals(
        self, workspace: str, *, scopes: Sequence[str] | None = None
    ) -> tuple[int, datetime | None]:
        """The review inbox's size: how many proposals at one of ``scopes`` (None: any)
        are pending, and when the oldest of them was stored (None when none is)."""
        ...

    def decide_proposal(
        self,
        workspace: str,
        proposal_id: str,
        state: ProposalState,
        *,
        decided_by: str,
        decided_at: datetime,
        reason: str | None,
        label: str | None = None,
        body: str | None = None,
    ) -> bool:
        """Move a pending proposal to ``state`` (with an edited label or body); False if
        it was no longer pending. Once: two reviewers cannot both decide."""
        ...

    def proposal_written(self, workspace: str, proposal_id: str, item_id: str) -> None:
        """Record the note a written or approved proposal became (once)."""
        ...
