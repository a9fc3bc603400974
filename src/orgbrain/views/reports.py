"""What a run of work reports: indexing one file, and read injection for one turn."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from pydantic import Field

from ..errors import OrgBrainError
from ..model import (
    ContextItem,
    Decision,
    Forgotten,
    IndexReport,
    Provenance,
    StorageClass,
    TurnContext,
)
from ._base import View
from .errors import ErrorView

__all__ = ["ContextItemView", "ForgottenView", "IndexReportView", "TurnContextView"]


class IndexReportView(View):
    item_id: str
    label: str
    sections: int
    ok: bool
    error: ErrorView | None = Field(description="Why the file failed to index; null if it did")

    @classmethod
    def of(cls, r: IndexReport) -> IndexReportView:
        error = None
        if r.error is not None:
            error = ErrorView(code=r.error_code or OrgBrainError.code, message=r.error)
        return cls(item_id=r.item_id, label=r.label, sections=r.sections, ok=r.ok, error=error)

    def to_model(self) -> IndexReport:
        if self.error is None:
            return IndexReport(self.item_id, self.label, self.sections)
        return IndexReport(
            self.item_id, self.label, self.sections, self.error.message, self.error.code
        )


class ContextItemView(View):
    id: str
    label: str
    kind: str
    storage_class: str
    scope: str
    origin: Provenance
    score: float | None = Field(description="The search score; null for an anchor")
    citation: str = Field(description="Where it came from, as the block cites it")
    truncated: bool = Field(description="Whether its body was cut to fit the budget")

    @classmethod
    def of(cls, i: ContextItem) -> ContextItemView:
        return cls(
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


class TurnContextView(View):
    """Read injection for one turn; the items' bodies are in the block, not beside it."""

    decision: Decision
    why: str = Field(default="", description="Why the brain spoke or stayed quiet, in words")
    reason: str = Field(description="The same with the search's scores, for debugging")
    text: str = Field(description="The block to put before the turn; empty for none")
    tokens: int
    budget: int
    top_score: float
    scores: list[float]
    items: list[ContextItemView]
    dropped_anchors: list[str] = Field(description="Anchors unknown or not visible")
    latency_ms: float
    event_id: int | None = Field(description="The turn's row in the brain's log")

    @classmethod
    def of(cls, ctx: TurnContext) -> TurnContextView:
        return cls(
            decision=ctx.decision,
            why=ctx.why,
            reason=ctx.reason,
            text=ctx.text,
            tokens=ctx.tokens,
            budget=ctx.budget,
            top_score=ctx.top_score,
            scores=list(ctx.scores),
            items=[ContextItemView.of(i) for i in ctx.items],
            dropped_anchors=list(ctx.dropped_anchors),
            latency_ms=ctx.latency_ms,
            event_id=ctx.event_id,
        )


class ForgottenView(View):
    """What forgetting (or erasing) an item did, and its audit record in the log."""

    item_id: str
    storage_class: str
    items: int = Field(description="Items that left every stream: the item and its sections")
    erased: bool = Field(description="Whether its bytes, text and name were deleted too")
    reason: str
    actor: str
    at: datetime
    event_id: int = Field(description="The audit record's id in the workspace's log")

    @classmethod
    def of(cls, f: Forgotten) -> ForgottenView:
        return cls(
            item_id=f.item_id,
            storage_class=f.storage_class,
            items=f.items,
            erased=f.erased,
            reason=f.reason,
            actor=f.actor,
            at=f.at,
            event_id=f.event_id,
        )

    def to_model(self) -> Forgotten:
        return Forgotten(
            self.item_id,
            cast(StorageClass, self.storage_class),
            self.items,
            self.erased,
            self.reason,
            self.actor,
            self.at,
            self.event_id,
        )
