"""Write-back over HTTP: a run's work products handed over (``POST
/v1/runs/{run_id}/writeback``, one durable pass per run) and the review inbox
(``/v1/proposals``). A proposal is visible only to a key that may decide it; to any other
it is a plain 404, like an item out of scope."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request, Response

from ...brain.writeback import WRITEBACK_WAIT_S
from ...views import ProposalList, ProposalView, WriteBackAckView
from ...writeback.review import MAX_LISTED
from ..auth import Reader, Reviewer, Writer, context_of
from ..problems import problem_responses
from ..schemas import ApproveIn, RejectIn, RunProductsIn

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["write-back"])

RUN_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,199}$"
RunId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=200,
        pattern=RUN_ID_PATTERN,
        description="The run's id: letters, digits and _.:@/- (starting alphanumeric)",
    ),
]
ProposalId = Annotated[str, Path(min_length=1, max_length=200, description="A proposal id")]
StateFilter = Literal["pending", "written", "approved", "rejected", "skipped", "all"]

_READ_ERRORS = problem_responses(400, 401, 403, 404, 422, 503)
_ACK: dict[int | str, dict[str, Any]] = {
    200: {"model": WriteBackAckView, "description": "The pass is done (or failed for good)"},
}


@router.post(
    "/runs/{run_id:path}/writeback",
    status_code=202,
    response_model=WriteBackAckView,
    summary="Hand a finished run's work products to write-back (one pass per run)",
    responses={**_ACK, **problem_responses(400, 401, 403, 404, 409, 413, 422, 503)},
)
def write_back(
    request: Request,
    response: Response,
    caller: Writer,
    run_id: RunId,
    body: RunProductsIn,
    wait: Annotated[
        bool, Query(description="Answer once the pass is done (200), up to the wait")
    ] = False,
) -> WriteBackAckView:
    """202 with a ``Location`` to follow once the pass is on disk; the server's workers
    run it. The same products for the same run again give the same pass back
    (``created: false``); other products are a conflict. ``wait=true`` works on the pass
    before answering (at most 60 s and half the request deadline): 200 once done."""
    ctx = context_of(request)
    products = {k: v for k, v in body.model_dump().items() if v is not None}
    timeout = min(WRITEBACK_WAIT_S, ctx.config.deadline_s / 2)
    ack = caller.brain.write_back({**products, "run_id": run_id}, wait=wait, timeout=timeout)
    ctx.worker.wake()
    if ack.state in ("done", "failed"):
        response.status_code = 200
    else:
        response.headers["Location"] = f"/v1/runs/{run_id}/writeback"
    return WriteBackAckView.of(ack)


@router.get(
    "/runs/{run_id:path}/writeback",
    response_model=WriteBackAckView,
    summary="Where a run's write-back pass stands, and (once done) what it proposed",
    responses=_READ_ERRORS,
)
def writeback_state(caller: Reader, run_id: RunId) -> WriteBackAckView:
    return WriteBackAckView.of(caller.brain.writeback_state(run_id))


@router.get(
    "/proposals",
    response_model=ProposalList,
    summary="The review inbox: proposals this key may decide, oldest first",
    responses=_READ_ERRORS,
)
def list_proposals(
    caller: Reader,
    state: Annotated[
        StateFilter, Query(description="Only this state (default pending); all: every state")
    ] = "pending",
    run_id: Annotated[
        str | None, Query(min_length=1, max_length=200, description="Only this run's")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=MAX_LISTED)] = 100,
) -> ProposalList:
    states = None if state == "all" else state
    return ProposalList.of(caller.brain.proposals(state=states, run_id=run_id, limit=limit))


@router.get(
    "/proposals/{proposal_id}",
    response_model=ProposalView,
    summary="One proposal this key may decide",
    responses=_READ_ERRORS,
)
def get_proposal(caller: Reader, proposal_id: ProposalId) -> ProposalView:
    return ProposalView.of(caller.brain.proposal(proposal_id))


@router.post(
    "/proposals/{proposal_id}/approve",
    response_model=ProposalView,
    summary="Approve a pending proposal (edited, if given): written at its stored scope",
    responses=problem_responses(400, 401, 403, 404, 409, 422, 503),
)
def approve(
    request: Request, caller: Reviewer, proposal_id: ProposalId, body: ApproveIn | None = None
) -> ProposalView:
    """Writes the proposal as a note at the scope it is stored at, with this key's
    principal as the origin's actor; 409 if it was decided already."""
    edits = body or ApproveIn()
    done = caller.brain.approve(
        proposal_id, label=edits.label, body=edits.body, reason=edits.reason
    )
    context_of(request).worker.wake()  # the note's derivation is queued
    return ProposalView.of(done)


@router.post(
    "/proposals/{proposal_id}/reject",
    response_model=ProposalView,
    summary="Reject a pending proposal, with the reason: kept, never written",
    responses=problem_responses(400, 401, 403, 404, 409, 422, 503),
)
def reject(caller: Reviewer, proposal_id: ProposalId, body: RejectIn) -> ProposalView:
    return ProposalView.of(caller.brain.reject(proposal_id, reason=body.reason))
