"""``POST /v1/context``: read injection for one agent turn, seen through the key's scopes.

It fails open like the function behind it: a broken search gives ``decision: failed`` and
an empty block with status 200, so an agent's turn goes on without memories.
"""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from ..inject import InjectPolicy
from ..views import TurnContextView
from .auth import Reader
from .problems import problem_responses

__all__ = ["ContextIn", "router"]

router = APIRouter(prefix="/v1", tags=["agents"])


class ContextIn(BaseModel):
    message: str = Field(max_length=20_000, description="The latest message of the turn")
    anchors: list[str] = Field(
        default_factory=list,
        max_length=4,
        description="Up to 4 item ids always included when visible (issue, project, doc)",
    )
    budget: int = Field(
        default=InjectPolicy().token_budget, ge=100, le=4000, description="Token budget"
    )


@router.post(
    "/context",
    response_model=TurnContextView,
    summary="What the brain knows for this turn: cited, floored, within a token budget",
    responses=problem_responses(400, 401, 403, 422, 503),
)
def context(caller: Reader, body: ContextIn) -> TurnContextView:
    policy = InjectPolicy(token_budget=body.budget)
    turn = caller.brain.context_for_turn(body.message, body.anchors, policy=policy)
    return TurnContextView.of(turn)
