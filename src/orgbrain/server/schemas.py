"""The HTTP API's request and response bodies, as pydantic models (they are the OpenAPI
schema), and the functions that turn model dataclasses into them."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
)

from ..keys import ApiKey, Permission
from ..model import ByteRange, Citation, Edge, Hit, Item, Locator, Origin, SearchResult

__all__ = [
    "ByteRangeOut",
    "CitationOut",
    "EdgeList",
    "EdgeOut",
    "HitOut",
    "IndexAccepted",
    "IndexState",
    "ItemOut",
    "ItemPage",
    "KeyCreateIn",
    "KeyCreated",
    "KeyList",
    "KeyOut",
    "LocatorOut",
    "Me",
    "NoteIn",
    "OriginOut",
    "Ready",
    "SearchIn",
    "SearchOut",
    "SectionList",
    "Status",
    "WorkspaceOut",
    "citation_out",
    "edge_out",
    "item_out",
    "key_out",
    "search_out",
    "utc_datetime",
]

IndexState = Literal["added", "queued", "indexing", "indexed", "failed"]


def _no_surrogates(value: str) -> str:
    # JSON may carry lone UTF-16 surrogates ("\ud800"); nothing downstream can encode them.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError("text must be valid Unicode (no lone surrogates)") from None
    return value


def utc_datetime(value: datetime) -> datetime:
    """An aware datetime in UTC; refuse ones that cannot be (year 1 minus an offset)."""
    try:
        return value.astimezone(UTC)
    except (OverflowError, ValueError):
        raise ValueError("datetime out of range") from None


def _iso_text(value: object) -> object:
    # Lax pydantic reads a number as a Unix time; the API takes ISO 8601 text only.
    if not isinstance(value, str):
        raise ValueError("a date-time is an ISO 8601 string, e.g. 2024-05-01T09:00:00Z")
    return value


Text = Annotated[str, AfterValidator(_no_surrogates)]
When = Annotated[
    AwareDatetime, Strict(False), BeforeValidator(_iso_text), AfterValidator(utc_datetime)
]


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True)


# -- items --------------------------------------------------------------------------------


class OriginOut(_Out):
    actor: str
    source: str
    at: datetime
    run_id: str | None = None


class ByteRangeOut(_Out):
    start: int = Field(description="First byte, inclusive")
    end: int = Field(description="Last byte, exclusive")


class LocatorOut(_Out):
    page_start: int | None = None
    page_end: int | None = None
    sheet: str | None = None
    heading_path: list[str] = Field(default_factory=list)
    breadcrumb: str = ""


class CanonicalOut(_Out):
    type: str
    value: str


class ItemOut(_Out):
    id: str
    workspace: str
    kind: str = Field(description="Free text, e.g. policy or file")
    storage_class: Literal["file", "section", "note", "entity", "statement"]
    label: str
    summary: str
    body: str
    source_key: str
    indexed: bool = Field(description="Answerable by search")
    state: IndexState = Field(description="added, queued, indexing, indexed or failed")
    scope: str = Field(description="org, team:<id> or user:<id>")
    origin: OriginOut
    blob_key: str | None = None
    text_key: str | None = None
    byte_range: ByteRangeOut | None = None
    locator: LocatorOut
    canonical: CanonicalOut | None = None
    occurred_at: datetime | None = None
    parent_id: str | None = None
    ordinal: int | None = None
    name: str | None = None
    media_type: str | None = None
    size: int | None = None
    content_hash: str | None = None
    index_error: str | None = None
    supersedes: str | None = None
    superseded_by: str | None = None
    tombstoned_at: datetime | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


class ItemPage(_Out):
    items: list[ItemOut]
    next_cursor: str | None = Field(description="Pass as ?cursor= for the next page")


class SectionList(_Out):
    file_id: str
    sections: list[ItemOut]


class EdgeOut(_Out):
    id: str
    workspace: str
    type: str
    src: str
    dst: str
    origin: OriginOut
    props: dict[str, Any] = Field(default_factory=dict)


class EdgeList(_Out):
    item_id: str
    edges: list[EdgeOut]


class IndexAccepted(_Out):
    id: str
    state: IndexState


# -- writes -------------------------------------------------------------------------------


class NoteIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    body: Text = Field(min_length=1, description="The fact, at most 100,000 characters")
    kind: Text = Field(default="note", min_length=1, max_length=200)
    label: Text | None = Field(default=None, max_length=2000)
    scope: Text | None = Field(
        default=None, max_length=300, description="org (default), team:<id> or user:<id>"
    )
    source_key: Text | None = Field(
        default=None, min_length=1, max_length=2000, description="Identity to update in place"
    )
    occurred_at: When | None = None


# -- search -------------------------------------------------------------------------------


class SearchIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    query: Text = Field(min_length=1, max_length=20_000)
    k: int | None = Field(default=None, ge=1, le=1000, description="Hits wanted (max 8)")
    kind: Text | None = Field(default=None, max_length=200, description="Only this kind")
    plan: Text | None = Field(
        default=None,
        max_length=100,
        description="tuned-z, hybrid, bm25, dense, ... (default: the server's ORGBRAIN_PLAN, "
        "else tuned-z)",
    )


class CitationOut(_Out):
    item_id: str
    file_id: str | None
    label: str
    blob_key: str | None
    text_key: str | None
    byte_range: ByteRangeOut | None
    locator: LocatorOut
    text: str = Field(description="The citation for a person, e.g. 'handbook.md · Billing'")


class HitOut(_Out):
    item: ItemOut
    score: float
    fused: float
    citation: CitationOut
    ranks: dict[str, int]


class SearchOut(_Out):
    query: str
    hits: list[HitOut]
    verdict: Literal["none", "single", "many"]
    reason: str
    top_score: float
    plan: str
    speak: bool
    timings_ms: dict[str, float]


# -- keys and identity --------------------------------------------------------------------


class KeyCreateIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    principal: Text = Field(max_length=200, description="user:<id> (or the bare id)")
    permissions: list[Permission] = Field(min_length=1, max_length=3)
    teams: list[Text] = Field(default_factory=list, max_length=100)
    agent: bool = False
    label: Text = Field(default="", max_length=200)


class KeyOut(_Out):
    id: str
    workspace: str
    principal: str = Field(description="user:<id>")
    teams: list[str]
    agent: bool
    permissions: list[Permission]
    label: str
    created_at: datetime
    revoked_at: datetime | None
    active: bool


class KeyCreated(_Out):
    key: KeyOut
    token: str = Field(description="The API key itself; shown this once, never again")


class KeyList(_Out):
    keys: list[KeyOut]


class Me(_Out):
    key_id: str
    workspace: str
    principal: str
    teams: list[str]
    agent: bool
    permissions: list[Permission]
    scopes: list[str] = Field(description="What this key reads: org, its teams and itself")


class WorkspaceOut(_Out):
    workspace: str
    counts: dict[str, int]


class Status(_Out):
    status: Literal["ok"]


class Ready(_Out):
    status: Literal["ready"]
    checks: dict[str, str]


# -- conversions --------------------------------------------------------------------------


def _origin(o: Origin) -> OriginOut:
    return OriginOut(actor=o.actor, source=o.source, at=o.at, run_id=o.run_id)


def _range(r: ByteRange | None) -> ByteRangeOut | None:
    return None if r is None else ByteRangeOut(start=r.start, end=r.end)


def _locator(loc: Locator) -> LocatorOut:
    return LocatorOut(
        page_start=loc.page_start,
        page_end=loc.page_end,
        sheet=loc.sheet,
        heading_path=list(loc.heading_path),
        breadcrumb=loc.breadcrumb,
    )


def item_out(item: Item, state: IndexState) -> ItemOut:
    return ItemOut(
        id=item.id,
        workspace=item.workspace,
        kind=item.kind,
        storage_class=item.storage_class,
        label=item.label,
        summary=item.summary,
        body=item.body,
        source_key=item.source_key,
        indexed=item.indexed,
        state=state,
        scope=item.scope,
        origin=_origin(item.origin),
        blob_key=item.blob_key,
        text_key=item.text_key,
        byte_range=_range(item.byte_range),
        locator=_locator(item.locator),
        canonical=None
        if item.canonical is None
        else CanonicalOut(type=item.canonical.type, value=item.canonical.value),
        occurred_at=item.occurred_at,
        parent_id=item.parent_id,
        ordinal=item.ordinal,
        name=item.name,
        media_type=item.media_type,
        size=item.size,
        content_hash=item.content_hash,
        index_error=item.index_error,
        supersedes=item.supersedes,
        superseded_by=item.superseded_by,
        tombstoned_at=item.tombstoned_at,
        created_at=item.created_at,
        updated_at=item.updated_at,
    )


def citation_out(c: Citation) -> CitationOut:
    return CitationOut(
        item_id=c.item_id,
        file_id=c.file_id,
        label=c.label,
        blob_key=c.blob_key,
        text_key=c.text_key,
        byte_range=_range(c.byte_range),
        locator=_locator(c.locator),
        text=c.describe(),
    )


def _hit(h: Hit, state: IndexState) -> HitOut:
    return HitOut(
        item=item_out(h.item, state),
        score=h.score,
        fused=h.fused,
        citation=citation_out(h.citation),
        ranks=dict(h.ranks),
    )


def search_out(r: SearchResult) -> SearchOut:
    return SearchOut(
        query=r.query,
        hits=[_hit(h, "indexed") for h in r.hits],
        verdict=r.verdict,
        reason=r.reason,
        top_score=r.top_score,
        plan=r.plan,
        speak=r.speak,
        timings_ms=dict(r.timings_ms),
    )


def edge_out(e: Edge) -> EdgeOut:
    return EdgeOut(
        id=e.id,
        workspace=e.workspace,
        type=e.type,
        src=e.src,
        dst=e.dst,
        origin=_origin(e.origin),
        props=dict(e.props),
    )


def key_out(k: ApiKey) -> KeyOut:
    return KeyOut(
        id=k.id,
        workspace=k.workspace,
        principal=f"user:{k.user_id}",
        teams=sorted(k.team_ids),
        agent=k.agent,
        permissions=sorted(k.permissions),
        label=k.label,
        created_at=k.created_at,
        revoked_at=k.revoked_at,
        active=k.active,
    )
