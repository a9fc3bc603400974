"""Items and their parts: origin, byte range, locator, canonical name; pages and lists."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime
from typing import Literal

from pydantic import Field

from ..errors import OrgBrainError
from ..model import ByteRange, Canonical, Item, Locator, Origin, StorageClass
from ._base import View

__all__ = [
    "ByteRangeView",
    "CanonicalView",
    "IndexAccepted",
    "IndexState",
    "ItemPage",
    "ItemView",
    "ItemWithEmbedding",
    "LocatorView",
    "OriginView",
    "SectionList",
    "item_state",
]

IndexState = Literal["added", "queued", "indexing", "indexed", "failed"]

# How the indexer records a failure on an item: "<code>: <message>".
_RECORDED = re.compile(r"(?P<code>[a-z][a-z0-9_]*): (?P<message>.*)", re.S)


def _recorded(text: str) -> tuple[str | None, str]:
    """The code and message of a recorded ``index_error``; the one place it is parsed."""
    m = _RECORDED.fullmatch(text)
    return (m["code"], m["message"]) if m else (None, text)


def item_state(item: Item) -> IndexState:
    """Where an item stands from its own fields; a worker that knows it is queued or
    indexing says so instead."""
    if item.indexed:
        return "indexed"
    if item.storage_class == "file" and item.index_error:
        return "failed"
    return "added"


class OriginView(View):
    actor: str
    source: str
    at: datetime
    run_id: str | None = None

    @classmethod
    def of(cls, o: Origin) -> OriginView:
        return cls(actor=o.actor, source=o.source, at=o.at, run_id=o.run_id)

    def to_model(self) -> Origin:
        return Origin(self.actor, self.source, self.at, self.run_id)


class ByteRangeView(View):
    start: int = Field(description="First byte, inclusive")
    end: int = Field(description="Last byte, exclusive")

    @classmethod
    def of(cls, r: ByteRange | None) -> ByteRangeView | None:
        return None if r is None else cls(start=r.start, end=r.end)

    def to_model(self) -> ByteRange:
        return ByteRange(self.start, self.end)


class LocatorView(View):
    page_start: int | None = None
    page_end: int | None = None
    sheet: str | None = None
    heading_path: list[str] = Field(default_factory=list)
    breadcrumb: str = ""

    @classmethod
    def of(cls, loc: Locator) -> LocatorView:
        return cls(
            page_start=loc.page_start,
            page_end=loc.page_end,
            sheet=loc.sheet,
            heading_path=list(loc.heading_path),
            breadcrumb=loc.breadcrumb,
        )

    def to_model(self) -> Locator:
        return Locator(self.page_start, self.page_end, self.sheet, tuple(self.heading_path))


class CanonicalView(View):
    type: str
    value: str

    @classmethod
    def of(cls, c: Canonical | None) -> CanonicalView | None:
        return None if c is None else cls(type=c.type, value=c.value)

    def to_model(self) -> Canonical:
        return Canonical(self.type, self.value)


class ItemView(View):
    id: str
    workspace: str
    kind: str = Field(description="Free text, e.g. policy or file")
    storage_class: StorageClass
    label: str
    summary: str
    body: str
    source_key: str
    indexed: bool = Field(description="Answerable by search")
    state: IndexState = Field(description="added, queued, indexing, indexed or failed")
    scope: str = Field(description="org, team:<id> or user:<id>")
    origin: OriginView
    blob_key: str | None = None
    text_key: str | None = None
    byte_range: ByteRangeView | None = None
    locator: LocatorView
    canonical: CanonicalView | None = None
    occurred_at: datetime | None = None
    parent_id: str | None = None
    ordinal: int | None = None
    name: str | None = None
    media_type: str | None = None
    size: int | None = None
    content_hash: str | None = None
    index_error: str | None = Field(
        default=None, description="Why indexing failed, as recorded: '<code>: <message>'"
    )
    index_error_code: str | None = Field(
        default=None, description="The stable code of index_error, e.g. corrupt_file"
    )
    supersedes: str | None = None
    superseded_by: str | None = None
    tombstoned_at: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def of(
        cls,
        item: Item,
        *,
        state: IndexState | None = None,
        body_chars: int | None = None,
        embedding: bool = False,
    ) -> ItemView:
        """``item`` as every transport shows it. ``state`` is what a worker knows (default:
        from the item); ``body_chars`` cuts the body; ``embedding`` adds the vector (an
        ``ItemWithEmbedding``), which is otherwise never shown."""
        code = None if item.index_error is None else _recorded(item.index_error)[0]
        body = item.body if body_chars is None else item.body[:body_chars]
        if embedding and item.embedding is not None:
            view = ItemView.of(item, state=state, body_chars=body_chars)
            return ItemWithEmbedding(**dict(view), embedding=list(item.embedding))
        return ItemView(
            id=item.id,
            workspace=item.workspace,
            kind=item.kind,
            storage_class=item.storage_class,
            label=item.label,
            summary=item.summary,
            body=body,
            source_key=item.source_key,
            indexed=item.indexed,
            state=state or item_state(item),
            scope=item.scope,
            origin=OriginView.of(item.origin),
            blob_key=item.blob_key,
            text_key=item.text_key,
            byte_range=ByteRangeView.of(item.byte_range),
            locator=LocatorView.of(item.locator),
            canonical=CanonicalView.of(item.canonical),
            occurred_at=item.occurred_at,
            parent_id=item.parent_id,
            ordinal=item.ordinal,
            name=item.name,
            media_type=item.media_type,
            size=item.size,
            content_hash=item.content_hash,
            index_error=item.index_error,
            index_error_code=code,
            supersedes=item.supersedes,
            superseded_by=item.superseded_by,
            tombstoned_at=item.tombstoned_at,
            created_at=item.created_at,
            updated_at=item.updated_at,
        )

    def to_model(self) -> Item:
        return Item(
            id=self.id,
            workspace=self.workspace,
            kind=self.kind,
            storage_class=self.storage_class,
            label=self.label,
            body=self.body,
            source_key=self.source_key,
            indexed=self.indexed,
            scope=self.scope,
            origin=self.origin.to_model(),
            summary=self.summary,
            blob_key=self.blob_key,
            text_key=self.text_key,
            byte_range=None if self.byte_range is None else self.byte_range.to_model(),
            locator=self.locator.to_model(),
            canonical=None if self.canonical is None else self.canonical.to_model(),
            occurred_at=self.occurred_at,
            parent_id=self.parent_id,
            ordinal=self.ordinal,
            name=self.name,
            media_type=self.media_type,
            size=self.size,
            content_hash=self.content_hash,
            index_error=self.index_error,
            supersedes=self.supersedes,
            superseded_by=self.superseded_by,
            tombstoned_at=self.tombstoned_at,
            created_at=self.created_at,
            updated_at=self.updated_at,
        )

    def index_failure(self) -> OrgBrainError | None:
        """The error indexing recorded on this item, as its class in the tree."""
        if self.index_error is None:
            return None
        code, message = _recorded(self.index_error)
        return OrgBrainError.from_code(code, message)


class ItemWithEmbedding(ItemView):
    """An item with its vector: 384 floats nobody reads by eye, so no body carries them
    unless a caller asks (``ItemView.of(item, embedding=True)``)."""

    embedding: list[float]

    def to_model(self) -> Item:
        return replace(super().to_model(), embedding=tuple(self.embedding))


class ItemPage(View):
    items: list[ItemView]
    next_cursor: str | None = Field(description="Pass as ?cursor= for the next page")


class SectionList(View):
    file_id: str
    sections: list[ItemView]


class IndexAccepted(View):
    id: str
    state: IndexState
