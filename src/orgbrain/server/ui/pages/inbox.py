"""The review inbox: the proposals the signed-in key may review, each with its evidence
(the run's lines it came from), the gate's reason, and what it would supersede; approve
(optionally edited) or reject with a reason. A decision is made once."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from starlette.responses import RedirectResponse, Response

from ....errors import InvalidInput
from ....views import ItemView, ProposalView
from ..access import Viewing, checked, ui_state
from ..routing import HtmlRoute

__all__ = ["router"]

router = APIRouter(route_class=HtmlRoute, include_in_schema=False)

MAX_SHOWN = 200


@router.get("/ui/inbox")
def inbox(
    request: Request,
    viewer: Viewing,
    done: Annotated[str | None, Query(max_length=300)] = None,
) -> Response:
    brain = viewer.brain
    proposals = [ProposalView.of(p) for p in brain.proposals(limit=MAX_SHOWN)]
    replaced = brain.get_many(sorted({i for p in proposals for i in p.supersedes}))
    decided = [
        ProposalView.of(p) for p in brain.proposals(state=("approved", "rejected"), limit=MAX_SHOWN)
    ]
    decided = sorted(decided, key=lambda p: p.decided_at or p.created_at, reverse=True)[:20]
    return ui_state(request).renderer.html(
        "inbox.html",
        {
            "viewer": viewer,
            "nav": "inbox",
            "proposals": proposals,
            "replaced": {i.id: ItemView.of(i, body_chars=400) for i in replaced.values()},
            "decided": decided,
            "done": done,
        },
    )


@router.post("/ui/inbox/{proposal_id}/approve")
def approve(
    request: Request,
    viewer: Viewing,
    proposal_id: str,
    csrf: Annotated[str, Form(max_length=200)] = "",
    label: Annotated[str, Form(max_length=500)] = "",
    body: Annotated[str, Form(max_length=8000)] = "",
    reason: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    checked(request, viewer, csrf)
    brain = viewer.brain
    proposal = brain.proposal(proposal_id)
    edited_body = body.replace("\r\n", "\n").strip()
    edited_label = label.strip()
    done = brain.approve(
        proposal.id,
        label=edited_label if edited_label and edited_label != proposal.label else None,
        body=edited_body if edited_body and edited_body != proposal.body else None,
        reason=reason.strip() or None,
    )
    return RedirectResponse(f"/ui/inbox?done=approved+{done.id}", status_code=303)


@router.post("/ui/inbox/{proposal_id}/reject")
def reject(
    request: Request,
    viewer: Viewing,
    proposal_id: str,
    csrf: Annotated[str, Form(max_length=200)] = "",
    reason: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    checked(request, viewer, csrf)
    if not reason.strip():
        raise InvalidInput("say why it is rejected: the reason is kept with it")
    done = viewer.brain.reject(proposal_id, reason=reason.strip())
    return RedirectResponse(f"/ui/inbox?done=rejected+{done.id}", status_code=303)
