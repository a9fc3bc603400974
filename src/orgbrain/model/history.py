"""An item's story and history: its derivation and audit steps, previous versions, and
the supersession chain through it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .items import Item, Origin
from .statements import Statement, Superseding

__all__ = [
    "History",
    "Story",
    "Version",
]


@dataclass(frozen=True, slots=True)
class Story:
    """An item's write story: when it was acknowledged, how its derivation went step by
    step, the statements it holds, what it supersedes and what superseded it, and for a
    file its audit pass, step by step."""

    item: Item
    acknowledged_at: datetime
    derivation: str
    """none, queued, running, done or failed."""
    steps: tuple[dict[str, object], ...]
    statements: tuple[Statement, ...]
    supersedes: tuple[Superseding, ...]
    superseded_by: tuple[Superseding, ...]
    error: str | None = None
    audit: str = "none"
    """A file's audit pass (docs/audit.md): none, queued, running, done or failed."""
    audit_steps: tuple[dict[str, object], ...] = ()
    audit_error: str | None = None


@dataclass(frozen=True, slots=True)
class Version:
    """A previous version of an item, kept when the same source key was written again with
    other content (a file's new bytes, a note's new text): what it held, who wrote it, and
    when it was replaced. ``number`` counts from 1 in write order; the item itself holds
    the newest (``History.version``). A file version's ``blob_key`` and ``text_key`` still
    name its bytes and extracted text, so it stays readable and citable."""

    item_id: str
    number: int
    label: str
    body: str
    summary: str
    origin: Origin
    replaced_at: datetime
    blob_key: str | None = None
    text_key: str | None = None
    content_hash: str | None = None
    size: int | None = None
    media_type: str | None = None
    name: str | None = None
    occurred_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class History:
    """An item's history: the item (its current version, numbered ``version``), its
    previous versions newest first, and the supersession chain through it both ways,
    nearest link first, each with its origin and reason."""

    item: Item
    version: int
    versions: tuple[Version, ...]
    supersedes: tuple[Superseding, ...]
    superseded_by: tuple[Superseding, ...]
