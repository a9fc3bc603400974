"""The HTTP API's own bodies, as pydantic models (they are the OpenAPI schema): what a
request sends, and the responses only HTTP has (identity, health).

Everything the model shows (items, hits, edges, keys) is a view from ``orgbrain.views``,
the vocabulary every transport shares; it is not redefined here."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
)

from ..keys import Permission
from ..model import RunOutcome
from ..views import IndexAccepted, IndexState, ItemView

__all__ = [
    "ApproveIn",
    "IndexAccepted",
    "IndexState",
    "ItemOut",
    "KeyCreateIn",
    "Me",
    "NoteIn",
    "Ready",
    "RejectIn",
    "RunProductsIn",
    "SearchIn",
    "Status",
    "WorkspaceOut",
    "utc_datetime",
]

# Names the upload route has always imported from here; the shapes are the views'.
ItemOut = ItemView


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
        default=None,
        min_length=1,
        max_length=2000,
        description="Identity: the same key again makes a new version of that item (the "
        "previous one stays in its history)",
    )
    occurred_at: When | None = None
    supersedes: list[Annotated[Text, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list,
        max_length=20,
        description="Ids of visible files or notes this note replaces: each in this note's "
        "scope, or this note is org",
    )
    wait: Literal["ack", "derived"] = Field(
        default="ack",
        description="ack: answer once written (durable, answerable); derived: once its "
        "derivation is done too (202 with derived false if that takes too long)",
    )


# -- search -------------------------------------------------------------------------------


class SearchIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    query: Text = Field(min_length=1, max_length=20_000)
    k: int | None = Field(
        default=None,
        ge=1,
        le=1000,
        description="Hits wanted (default 5); at most 100 are returned: a larger k is capped "
        "and reason says so",
    )
    kind: Text | None = Field(default=None, max_length=200, description="Only this kind")
    plan: Text | None = Field(
        default=None,
        max_length=100,
        description="tuned-z, hybrid, bm25, dense, ... (default: the server's ORGBRAIN_PLAN, "
        "else tuned-z)",
    )
    mode: Literal["current", "history", "as_of"] | None = Field(
        default=None,
        description="current (default): the current belief first, superseded hits below "
        "what replaced them; history: supersession left out of the order; as_of: as the "
        "brain believed at as_of",
    )
    as_of: When | None = Field(
        default=None, description="Answer as of this RFC 3339 date-time (implies mode as_of)"
    )


# -- write-back and the review inbox -------------------------------------------------------

Line = Annotated[Text, Field(max_length=8000)]


class RunProductsIn(BaseModel):
    """A finished run's work products (the run id is the path's). Summary, decisions and
    artefacts together are at most 8000 characters (413 past that): a summary, not the
    transcript."""

    model_config = ConfigDict(extra="forbid", strict=True)

    outcome: RunOutcome = Field(description="succeeded, blocked or completed")
    summary: Line = Field(default="", description="What the run did and learned")
    decisions: list[Line] = Field(
        default_factory=list, max_length=200, description="Decisions the run made or recorded"
    )
    artefacts: list[Line] = Field(
        default_factory=list, max_length=200, description="What it produced: PRs, documents"
    )
    user_id: Text | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="The person the run worked for (a key's own user; it may be left out)",
    )
    scope: Text | None = Field(
        default=None,
        max_length=300,
        description="Where its organisation knowledge belongs: org (default) or team:<id>",
    )


class ApproveIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    label: Text | None = Field(default=None, max_length=2000, description="An edited label")
    body: Text | None = Field(
        default=None, min_length=1, max_length=100_000, description="An edited body"
    )
    reason: Text | None = Field(default=None, max_length=2000, description="Why it is approved")


class RejectIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    reason: Text = Field(min_length=1, max_length=2000, description="Why it is rejected")


# -- keys and identity --------------------------------------------------------------------


class KeyCreateIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    principal: Text = Field(max_length=200, description="user:<id> (or the bare id)")
    permissions: list[Permission] = Field(min_length=1, max_length=4)
    teams: list[Text] = Field(default_factory=list, max_length=100)
    agent: bool = False
    label: Text = Field(default="", max_length=200)


class Me(_Out):
    key_id: str
    workspace: str
    principal: str
    teams: list[str]
    agent: bool
    permissions: list[Permission]
    scopes: list[str] = Field(description="What this key reads: org, its teams and itself")
    workspace_items: int = Field(
        description="Items its workspace holds (of every scope); 0 means searches find nothing"
    )
    note: str | None = Field(default=None, description="What to know, e.g. an empty workspace")


class WorkspaceOut(_Out):
    workspace: str
    counts: dict[str, int]


class Status(_Out):
    status: Literal["ok"]


class Ready(_Out):
    status: Literal["ready"]
    checks: dict[str, str]
