"""The in-memory store's write-back proposals (``ports.ProposalStore``): apart from
items, decided once (only from ``pending``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ...model import Proposal, ProposalState
from ..records import TABLES
from .state import ROWS, Part, Row

__all__ = ["Proposals"]

_COLUMNS = TABLES["proposals"].columns


class Proposals(Part):
    def _proposal_row(self, workspace: str, proposal_id: str) -> Row | None:
        row = self._db.proposals.get(proposal_id)
        return row if row is not None and row["workspace"] == workspace else None

    def put_proposal(self, proposal: Proposal) -> tuple[Proposal, bool]:
        with self._db.lock:
            created = proposal.id not in self._db.proposals
            if created:
                row = dict(zip(_COLUMNS, ROWS.proposal_values(proposal), strict=True))
                row["_pos"] = self._db.next_pos()
                self._db.proposals[proposal.id] = row
            return ROWS.proposal_from_row(self._db.proposals[proposal.id]), created

    def proposal(self, workspace: str, proposal_id: str) -> Proposal | None:
        with self._db.lock:
            row = self._proposal_row(workspace, proposal_id)
            return None if row is None else ROWS.proposal_from_row(row)

    def proposals(
        self,
        workspace: str,
        *,
        scopes: Sequence[str] | None = None,
        states: Sequence[str] | None = None,
        run_id: str | None = None,
        limit: int = 100,
    ) -> list[Proposal]:
        with self._db.lock:
            rows = [
                p
                for p in self._db.proposals.values()
                if p["workspace"] == workspace
                and (scopes is None or p["scope"] in scopes)
                and (states is None or p["state"] in states)
                and (run_id is None or p["run_id"] == run_id)
            ]
            return [ROWS.proposal_from_row(p) for p in rows[:limit]]

    def pending_proposals(
        self, workspace: str, *, scopes: Sequence[str] | None = None
    ) -> tuple[int, datetime | None]:
        with self._db.lock:
            waiting = [
                p["created_at"]
                for p in self._db.proposals.values()
                if p["workspace"] == workspace and p["state"] == "pending"
                if scopes is None or p["scope"] in scopes
            ]
        return len(waiting), min(waiting, default=None)

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
        with self._db.lock:
            row = self._proposal_row(workspace, proposal_id)
            if row is None or row["state"] != "pending":
                return False
            row.update(state=state, decided_by=decided_by, decided_at=decided_at)
            row["review_reason"] = reason
            row["label"] = row["label"] if label is None else label
            row["body"] = row["body"] if body is None else body
            return True

    def proposal_written(self, workspace: str, proposal_id: str, item_id: str) -> None:
        with self._db.lock:
            row = self._proposal_row(workspace, proposal_id)
            if row is not None and row["item_id"] is None:
                row["item_id"] = item_id
