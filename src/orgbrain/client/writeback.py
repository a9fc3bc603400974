"""The client's write-back methods, mirroring ``Brain``'s: a run's work products handed
over, where its pass stands, and the review inbox (list, show, approve, reject)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..errors import InvalidInput
from ..model import Proposal, ProposalState, RunProducts, WriteBackAck
from ..views import ProposalList, ProposalView, WriteBackAckView
from ..writeback import products_dict
from .transport import Transport, drop_none, segment

__all__ = ["WRITEBACK_WAIT_S", "WriteBackMethods"]

WRITEBACK_WAIT_S = 60.0


class WriteBackMethods:
    """``Client``'s write-back and review-inbox methods (one class of the client)."""

    _t: Transport

    def write_back(
        self,
        run: RunProducts | Mapping[str, object],
        *,
        wait: bool = False,
        timeout: float = WRITEBACK_WAIT_S,
        poll: float = 0.1,
    ) -> WriteBackAck:
        """Hand a finished run's work products to write-back, like ``Brain.write_back``:
        the acknowledgement comes once the pass is on disk; with ``wait`` it comes once
        the pass is done (or ``timeout`` ran out: the ack says where it stands)."""
        run_id, body = _products(run)
        path = f"/v1/runs/{segment(run_id)}/writeback"
        params = {"wait": "true"} if wait else {}
        deadline = time.monotonic() + timeout
        ack = self._t.view(WriteBackAckView, "POST", path, json=body, params=params)
        while wait and ack.state not in ("done", "failed") and time.monotonic() < deadline:
            time.sleep(poll)
            ack = self._t.view(WriteBackAckView, "GET", path)
        return ack.to_model()

    def writeback_state(self, run_id: str) -> WriteBackAck:
        """Where a run's write-back pass stands, and (once done) its proposals this key
        may see."""
        path = f"/v1/runs/{segment(run_id)}/writeback"
        return self._t.view(WriteBackAckView, "GET", path).to_model()

    def proposals(
        self,
        *,
        state: ProposalState | None = "pending",
        run_id: str | None = None,
        limit: int = 100,
    ) -> list[Proposal]:
        """Proposals this key may review, oldest first: the pending inbox by default
        (``state=None``: every state)."""
        if state is not None and not isinstance(state, str):
            raise InvalidInput("state is one state, or None for every state")
        params = drop_none({"state": state or "all", "run_id": run_id, "limit": limit})
        found = self._t.view(ProposalList, "GET", "/v1/proposals", params=params)
        return [p.to_model() for p in found.proposals]

    def proposal(self, proposal_id: str) -> Proposal:
        """One proposal this key may review (``NotFound`` otherwise)."""
        path = f"/v1/proposals/{segment(proposal_id)}"
        return self._t.view(ProposalView, "GET", path).to_model()

    def approve(
        self,
        proposal_id: str,
        *,
        label: str | None = None,
        body: str | None = None,
        reason: str | None = None,
    ) -> Proposal:
        """Write a pending proposal (edited, if given) at its stored scope, with this
        key's principal as the origin's actor. ``Conflict`` if it was decided already."""
        edits = drop_none({"label": label, "body": body, "reason": reason})
        path = f"/v1/proposals/{segment(proposal_id)}/approve"
        return self._t.view(ProposalView, "POST", path, json=edits).to_model()

    def reject(self, proposal_id: str, *, reason: str) -> Proposal:
        """Keep a pending proposal out of the brain, with the reason."""
        path = f"/v1/proposals/{segment(proposal_id)}/reject"
        return self._t.view(ProposalView, "POST", path, json={"reason": reason}).to_model()


def _products(run: RunProducts | Mapping[str, object]) -> tuple[str, dict[str, Any]]:
    """The run id and the request body (the run id travels in the path)."""
    if isinstance(run, RunProducts):
        run_id, data = run.run_id, dict(products_dict(run))
    elif isinstance(run, Mapping):
        data = dict(run)
        found = data.pop("run_id", None)
        if not isinstance(found, str) or not found:
            raise InvalidInput("work products need a run_id")
        run_id = found
    else:
        raise InvalidInput("work products are a RunProducts or a mapping")
    return run_id, drop_none(data)
