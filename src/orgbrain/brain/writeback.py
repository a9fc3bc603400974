"""The facade's write-back side: a run's work products handed over (one durable pass per
run), and the review inbox (list, show, approve, reject)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace

from .. import writeback
from ..context import BrainContext
from ..errors import Conflict, Forbidden, InvalidInput, NotFound, Unavailable
from ..jobs import WriteBackJobs, wait_derived, work_on_own
from ..model import Proposal, ProposalState, RunProducts, WriteBackAck
from ..ports import Job
from ..writeback import find_writeback, parse_products, products_dict, request_writeback
from ..writeback.review import MAX_LISTED

__all__ = ["WRITEBACK_WAIT_S", "WriteBackFacade"]

WRITEBACK_WAIT_S = 60.0
"""How long ``write_back(wait=True)`` works on the pass before it answers anyway."""


class WriteBackFacade:
    """``Brain``'s write-back and review-inbox methods (one class of the facade)."""

    _ctx: BrainContext

    def write_back(
        self,
        run: RunProducts | Mapping[str, object],
        *,
        wait: bool = False,
        timeout: float = WRITEBACK_WAIT_S,
    ) -> WriteBackAck:
        """Hand a finished run's work products to write-back: checked whole, then one
        durable pass per run (asking again for the same run gives the same pass back).
        Fire and forget: the acknowledgement comes when the job is on disk; with
        ``wait`` the pass (and the derivation of what it wrote) is worked on in this
        thread until done or ``timeout``. A principal writes back its own runs: the run's
        user is the principal's, and its scope one the principal writes."""
        ctx = self._ctx
        products = _products(run)
        p = ctx.principal
        if p is not None:
            if products.user_id not in (None, p.user_id):
                raise Forbidden(f"a run of user {products.user_id} is not yours to write back")
            products = replace(products, user_id=p.user_id)
        products = replace(products, scope=ctx.write_scope(products.scope))
        job, created = request_writeback(ctx, products)  # this actor's own pass of the run
        if not created and job.payload.get("products") != products_dict(products):
            raise Conflict(
                f"run {products.run_id} was written back already with other work products "
                "(one pass per run)"
            )
        if wait:
            job = self._work_on(job, timeout)
        return self._ack(job, created)

    def writeback_state(self, run_id: str) -> WriteBackAck:
        """Where a run's write-back pass stands, and (once done) its proposals this reader
        may see."""
        job = find_writeback(self._ctx, run_id)
        if job is None:
            raise NotFound(f"no write-back for run {run_id}")
        return self._ack(job, False)

    def proposals(
        self,
        *,
        state: ProposalState | Sequence[ProposalState] | None = "pending",
        run_id: str | None = None,
        limit: int = 100,
    ) -> list[Proposal]:
        """Proposals this reader may review, oldest first: the pending inbox by default
        (``state=None``: every state)."""
        states = [state] if isinstance(state, str) else state
        return writeback.list_proposals(self._ctx, states=states, run_id=run_id, limit=limit)

    def proposal(self, proposal_id: str) -> Proposal:
        """One proposal this reader may review (``NotFound`` otherwise)."""
        return writeback.get_proposal(self._ctx, proposal_id)

    def approve(
        self,
        proposal_id: str,
        *,
        label: str | None = None,
        body: str | None = None,
        reason: str | None = None,
    ) -> Proposal:
        """Write a pending proposal (edited, if given) at its stored scope, with this
        reader as the origin's actor. ``Conflict`` if it was decided already."""
        return writeback.approve(self._ctx, proposal_id, label=label, body=body, reason=reason)

    def reject(self, proposal_id: str, *, reason: str) -> Proposal:
        """Keep a pending proposal out of the brain, with the reason."""
        return writeback.reject(self._ctx, proposal_id, reason=reason)

    # -- helpers ------------------------------------------------------------------------

    def _ack(self, job: Job, created: bool) -> WriteBackAck:
        run_id = str(job.payload.get("run_id", ""))
        proposals: tuple[Proposal, ...] = ()
        counts: dict[str, int] = {}
        if job.state == "done":
            ctx = self._ctx
            listed = writeback.list_proposals(ctx, states=None, run_id=run_id)
            proposals = tuple(p for p in listed if p.actor == job.actor)
            for p in _of_pass(ctx, job, run_id):
                counts[p.state] = counts.get(p.state, 0) + 1
        return WriteBackAck(run_id, job.id, job.state, created, proposals, counts, job.last_error)

    def _work_on(self, job: Job, timeout: float) -> Job:
        ctx = self._ctx
        assert ctx.jobs is not None
        deadline = time.monotonic() + timeout
        work_on_own(ctx, WriteBackJobs(), [job.key], timeout)  # a failed attempt: the ack says why
        current = ctx.jobs.get(job.id) or job
        if current.state == "done":
            run_id = str(current.payload.get("run_id", ""))
            mine = _of_pass(ctx, current, run_id)
            written = [p.item_id for p in mine if p.state == "written" and p.item_id]
            items = list(ctx.get_many(written).values())
            left = max(deadline - time.monotonic(), 1.0)
            try:
                wait_derived(ctx, items, left)
            except Unavailable:
                pass  # written and acknowledged; derivation goes on
        return current


def _of_pass(ctx: BrainContext, job: Job, run_id: str) -> list[Proposal]:
    """The proposals ``job``'s pass of ``run_id`` stored (not another actor's run of it)."""
    found = ctx.proposals.proposals(ctx.workspace, run_id=run_id, limit=MAX_LISTED)
    return [p for p in found if p.actor == job.actor]


def _products(run: RunProducts | Mapping[str, object]) -> RunProducts:
    if isinstance(run, RunProducts):
        return parse_products(run.run_id, products_dict(run))
    if not isinstance(run, Mapping):
        raise InvalidInput("work products are a RunProducts or a mapping")
    run_id = run.get("run_id")
    if not isinstance(run_id, str):
        raise InvalidInput("work products need a run_id")
    return parse_products(run_id, run)
