"""What derivation produced, as every transport shows it: statements, conflicts, an item's
write story, and the derivation events ``GET /v1/events`` streams."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from ..model import Disagreement, Item, Statement, StatementType, Story, Superseding
from ._base import View
from .items import ByteRangeView, ItemView, OriginView

__all__ = [
    "ConflictList",
    "ConflictView",
    "DerivationState",
    "EventView",
    "ItemRefView",
    "StatementList",
    "StatementView",
    "StepView",
    "StoryView",
    "SupersedingView",
]

DerivationState = Literal["none", "queued", "running", "done", "failed"]

# What every event record carries besides what its step produced.
_EVENT_KEYS = frozenset({"id", "kind", "at", "item_id"})


class StatementView(View):
    id: str
    workspace: str
    type: StatementType = Field(description="fact, preference, event or decision")
    subject_id: str = Field(description="The entity it is about")
    subject: str = Field(description="That entity's label")
    predicate: str = Field(description="Canonical snake_case, e.g. owner")
    object: str
    object_id: str | None = Field(default=None, description="The object's entity, if one")
    scope: str
    item_id: str = Field(description="The item it was first read from")
    byte_range: ByteRangeView | None = Field(
        default=None, description="The evidence's bytes in that item's text, half-open"
    )
    text: str = Field(description="The sentence it was read from")
    tier: str = Field(description="The extraction tier that found it: pattern, classifier, llm")
    confidence: float
    valid_from: datetime
    valid_to: datetime | None = None
    superseded_by: str | None = None
    replaces: str | None = None
    evidence: int = Field(default=1, description="How many places state it")
    conflicts: list[str] = Field(
        default_factory=list, description="Current statements that disagree with it"
    )
    current: bool = Field(description="Neither superseded nor ended")
    origin: OriginView

    @classmethod
    def of(cls, s: Statement) -> StatementView:
        return cls(
            id=s.id,
            workspace=s.workspace,
            type=s.type,
            subject_id=s.subject_id,
            subject=s.subject,
            predicate=s.predicate,
            object=s.object,
            object_id=s.object_id,
            scope=s.scope,
            item_id=s.item_id,
            byte_range=ByteRangeView.of(s.byte_range),
            text=s.text,
            tier=s.tier,
            confidence=s.confidence,
            valid_from=s.valid_from,
            valid_to=s.valid_to,
            superseded_by=s.superseded_by,
            replaces=s.replaces,
            evidence=s.evidence,
            conflicts=list(s.conflicts),
            current=s.current,
            origin=OriginView.of(s.origin),
        )

    def to_model(self) -> Statement:
        return Statement(
            id=self.id,
            workspace=self.workspace,
            type=self.type,
            subject_id=self.subject_id,
            subject=self.subject,
            predicate=self.predicate,
            object=self.object,
            object_id=self.object_id,
            scope=self.scope,
            item_id=self.item_id,
            byte_range=None if self.byte_range is None else self.byte_range.to_model(),
            text=self.text,
            tier=self.tier,
            confidence=self.confidence,
            valid_from=self.valid_from,
            origin=self.origin.to_model(),
            valid_to=self.valid_to,
            superseded_by=self.superseded_by,
            replaces=self.replaces,
            evidence=self.evidence,
            conflicts=tuple(self.conflicts),
        )


class StatementList(View):
    statements: list[StatementView]


class ConflictView(View):
    """Two current statements of one subject and predicate, from different sources, that
    disagree at overlapping times: both kept, both flagged."""

    a: StatementView
    b: StatementView

    @classmethod
    def of(cls, d: Disagreement) -> ConflictView:
        return cls(a=StatementView.of(d.a), b=StatementView.of(d.b))

    def to_model(self) -> Disagreement:
        return Disagreement(self.a.to_model(), self.b.to_model())


class ConflictList(View):
    conflicts: list[ConflictView]


class ItemRefView(View):
    id: str
    label: str

    @classmethod
    def of(cls, item: Item) -> ItemRefView:
        return cls(id=item.id, label=item.label)


class SupersedingView(View):
    """One supersession link: ``new`` supersedes ``old``, said by ``origin``."""

    new: ItemRefView
    old: ItemRefView
    origin: OriginView
    reason: str = Field(
        description="explicit (a write named it), derived (its statements) or judged (the "
        "supersession judge)"
    )
    why: dict[str, Any] = Field(
        default_factory=dict,
        description="For a judged link: the judge's version, probability and deciding "
        "signals, the tier that decided (judge or llm) and, for llm, the model's relation "
        "and why",
    )

    @classmethod
    def of(cls, link: Superseding) -> SupersedingView:
        return cls(
            new=ItemRefView.of(link.new),
            old=ItemRefView.of(link.old),
            origin=OriginView.of(link.origin),
            reason=link.reason,
            why=dict(link.why),
        )


class EventView(View):
    """One event of the feed: its sequence number, kind, time, item, and its record."""

    id: int = Field(description="Sequence number: increases with every event, resume after it")
    kind: str
    at: datetime
    item_id: str | None = None
    record: dict[str, Any] = Field(default_factory=dict, description="What it says")

    @classmethod
    def of(cls, event: dict[str, object]) -> EventView:
        item_id = event.get("item_id")
        return cls(
            id=int(str(event["id"])),
            kind=str(event["kind"]),
            at=datetime.fromisoformat(str(event["at"])),
            item_id=None if item_id is None else str(item_id),
            record={k: v for k, v in event.items() if k not in _EVENT_KEYS},
        )


class StepView(View):
    """One derivation step as it was logged: what it produced and how long it took."""

    id: int = Field(description="The event's sequence number")
    at: datetime
    step: str = Field(
        description="mentions, statements, restated, similar or sequence; derived when all "
        "were done; in an audit, its tool (audited when a pass ended)"
    )
    ms: float | None = None
    produced: dict[str, Any] = Field(
        default_factory=dict, description="Counts and ids: entities, statements, edges, ..."
    )

    @classmethod
    def of(cls, event: dict[str, object]) -> StepView:
        e = EventView.of(event)
        produced = {k: v for k, v in e.record.items() if k not in ("step", "ms")}
        ms = e.record.get("ms")
        return cls(
            id=e.id,
            at=e.at,
            step=str(e.record.get("step", e.kind)),
            ms=float(ms) if isinstance(ms, int | float) else None,
            produced=produced,
        )


class StoryView(View):
    """An item's write story: acknowledged when, each derivation step, the statements it
    holds, what it supersedes and what superseded it."""

    item: ItemView
    acknowledged_at: datetime
    derivation: DerivationState
    error: str | None = Field(default=None, description="Why derivation failed, if it did")
    steps: list[StepView]
    statements: list[StatementView]
    supersedes: list[SupersedingView]
    superseded_by: list[SupersedingView]
    audit: DerivationState = Field(
        default="none", description="A file's audit pass (docs/audit.md); none for others"
    )
    audit_error: str | None = Field(default=None, description="Why an audit attempt failed")
    audit_steps: list[StepView] = Field(
        default_factory=list,
        description="Each audit step (search, observe_mention, link, neighborhood, read, "
        "think) and how each pass ended (audited)",
    )

    @classmethod
    def of(cls, story: Story, *, body_chars: int | None = None) -> StoryView:
        states = ("none", "queued", "running", "done", "failed")
        state: DerivationState = (
            story.derivation  # type: ignore[assignment]
            if story.derivation in states
            else "none"
        )
        audit: DerivationState = story.audit if story.audit in states else "none"  # type: ignore[assignment]
        return cls(
            item=ItemView.of(story.item, body_chars=body_chars),
            acknowledged_at=story.acknowledged_at,
            derivation=state,
            error=story.error,
            steps=[StepView.of(e) for e in story.steps],
            statements=[StatementView.of(s) for s in story.statements],
            supersedes=[SupersedingView.of(s) for s in story.supersedes],
            superseded_by=[SupersedingView.of(s) for s in story.superseded_by],
            audit=audit,
            audit_error=story.audit_error,
            audit_steps=[StepView.of(e) for e in story.audit_steps],
        )
