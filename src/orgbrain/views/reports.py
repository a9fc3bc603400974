"""What a run of work reports: indexing one file, and read injection for one turn."""

from __future__ import annotations

from pydantic import Field

from ..errors import OrgBrainError
from ..model import ContextItem, Decision, IndexReport, Provenance, TurnContext
from ._base import View
from .errors import ErrorView

__all__ = ["ContextItemView", "IndexReportView", "TurnContextView"]


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
    reason: str = Field(description="Why the brain spoke or stayed quiet")
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
