"""``POST /v1/context``: read injection for one agent turn, seen through the key's scopes.

It fails open like the function behind it: a broken search gives ``decision: failed`` and
an empty block with status 200, so an agent's turn goes on without memories.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from ..inject import InjectPolicy, TurnContext
from .auth import Reader
from .problems import problem_responses

__all__ = ["ContextIn", "ContextItemOut", "ContextOut", "context_out", "router"]

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


class ContextItemOut(BaseModel):
    id: str
    label: str
    kind: str
    storage_class: str
    scope: str
    origin: Literal["anchor", "search"]
    score: float | None = Field(description="The search score; null for an anchor")
    citation: str = Field(description="Where it came from, as the block cites it")
    truncated: bool = Field(description="Whether its body was cut to fit the budget")


class ContextOut(BaseModel):
    decision: Literal["injected", "nothing", "failed"]
    reason: str = Field(description="Why the brain spoke or stayed quiet")
    text: str = Field(description="The block to put before the turn; empty for none")
    tokens: int
    budget: int
    top_score: float
    scores: list[float]
    items: list[ContextItemOut]
    dropped_anchors: list[str] = Field(description="Anchors unknown or not visible")
    latency_ms: float
    event_id: int | None = Field(description="The turn's row in the brain's log")


def context_out(ctx: TurnContext) -> ContextOut:
    return ContextOut(
        decision=ctx.decision,
        reason=ctx.reason,
        text=ctx.text,
        tokens=ctx.tokens,
        budget=ctx.budget,
        top_score=ctx.top_score,
        scores=list(ctx.scores),
        items=[
            ContextItemOut(
                id=i.id,
                label=i.label,
                kind=i.kind,
                storage_class=i.storage_class,
                scope=i.scope,
                origin=i.origin,
                score=i.score,
                citation=i.citation,
                truncated=i.truncated,
            )
            for i in ctx.items
        ],
        dropped_anchors=list(ctx.dropped_anchors),
        latency_ms=ctx.latency_ms,
        event_id=ctx.event_id,
    )


@router.post(
    "/context",
    response_model=ContextOut,
    summary="What the brain knows for this turn: cited, floored, within a token budget",
    responses=problem_responses(400, 401, 403, 422, 503),
)
def context(caller: Reader, body: ContextIn) -> ContextOut:
    policy = InjectPolicy(token_budget=body.budget)
    return context_out(caller.brain.context_for_turn(body.message, body.anchors, policy=policy))
