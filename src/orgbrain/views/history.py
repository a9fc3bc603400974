"""An item's history: its previous versions and the supersession chain through it."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from ..model import History, Superseding, Version
from ._base import View
from .items import ItemView, OriginView

__all__ = ["HistoryLinkView", "HistoryView", "VersionView", "WriteAccepted"]


class VersionView(View):
    """A previous version of an item: what it held until ``replaced_at``."""

    item_id: str
    number: int = Field(description="1 for the first version, in write order")
    label: str
    body: str
    summary: str
    origin: OriginView = Field(description="Who wrote this version, through what, when")
    replaced_at: datetime
    blob_key: str | None = None
    text_key: str | None = None
    content_hash: str | None = None
    size: int | None = None
    media_type: str | None = None
    name: str | None = None
    occurred_at: datetime | None = None

    @classmethod
    def of(cls, v: Version, *, body_chars: int | None = None) -> VersionView:
        return cls(
            item_id=v.item_id,
            number=v.number,
            label=v.label,
            body=v.body if body_chars is None else v.body[:body_chars],
            summary=v.summary,
            origin=OriginView.of(v.origin),
            replaced_at=v.replaced_at,
            blob_key=v.blob_key,
            text_key=v.text_key,
            content_hash=v.content_hash,
            size=v.size,
            media_type=v.media_type,
            name=v.name,
            occurred_at=v.occurred_at,
        )

    def to_model(self) -> Version:
        return Version(
            item_id=self.item_id,
            number=self.number,
            label=self.label,
            body=self.body,
            summary=self.summary,
            origin=self.origin.to_model(),
            replaced_at=self.replaced_at,
            blob_key=self.blob_key,
            text_key=self.text_key,
            content_hash=self.content_hash,
            size=self.size,
            media_type=self.media_type,
            name=self.name,
            occurred_at=self.occurred_at,
        )


class HistoryLinkView(View):
    """One supersession link: ``new_id`` supersedes ``old_id``, said by ``origin``."""

    new_id: str
    new_label: str
    old_id: str
    old_label: str
    origin: OriginView = Field(description="Who said so, through what, when")
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
    standing: bool = Field(
        description="The old item's superseded_by names this link's new item: the first "
        "successor, which stays; a later claim is listed but does not move it"
    )

    @classmethod
    def of(cls, link: Superseding) -> HistoryLinkView:
        return cls(
            new_id=link.new.id,
            new_label=link.new.label,
            old_id=link.old.id,
            old_label=link.old.label,
            origin=OriginView.of(link.origin),
            reason=link.reason,
            why=dict(link.why),
            standing=link.old.superseded_by == link.new.id,
        )


class HistoryView(View):
    """An item (its current version, numbered ``version``), its previous versions newest
    first, and the supersession chain through it both ways, nearest link first."""

    item: ItemView
    version: int = Field(description="The current version's number")
    versions: list[VersionView] = Field(description="Previous versions, newest first")
    supersedes: list[HistoryLinkView] = Field(
        description="What it replaced, and what those replaced, nearest first"
    )
    superseded_by: list[HistoryLinkView] = Field(
        description="What replaced it, and what replaced those, nearest first"
    )

    @classmethod
    def of(cls, h: History, *, body_chars: int | None = None) -> HistoryView:
        return cls(
            item=ItemView.of(h.item, body_chars=body_chars),
            version=h.version,
            versions=[VersionView.of(v, body_chars=body_chars) for v in h.versions],
            supersedes=[HistoryLinkView.of(s) for s in h.supersedes],
            superseded_by=[HistoryLinkView.of(s) for s in h.superseded_by],
        )


class WriteAccepted(View):
    """A write that was acknowledged (durable, answerable) while its derivation, asked
    for with ``wait=derived``, was not done within the wait: it goes on in the background."""

    item: ItemView
    derived: bool = Field(description="Always false here: derivation goes on")
    detail: str
