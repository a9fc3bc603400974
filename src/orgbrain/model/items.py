"""What the brain holds: items and the edges between them, with their origins, byte
ranges and locators, and the storage classes a free-text kind maps to."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal, NamedTuple

__all__ = [
    "STORAGE_CLASSES",
    "ByteRange",
    "Canonical",
    "Edge",
    "Item",
    "ItemSketch",
    "Locator",
    "Origin",
    "StorageClass",
    "item_count",
    "storage_class_for",
    "utcnow",
]

StorageClass = Literal["file", "section", "note", "entity", "statement"]
STORAGE_CLASSES: tuple[StorageClass, ...] = ("file", "section", "note", "entity", "statement")


def utcnow() -> datetime:
    return datetime.now(UTC)


def storage_class_for(kind: str) -> StorageClass:
    """Map a free-text kind to where it is stored: anything unknown is a note."""
    k = kind.strip().lower()
    if k in STORAGE_CLASSES:
        return k
    return "note"


@dataclass(frozen=True, slots=True)
class Origin:
    """Who wrote an item, through what, in which run, and when."""

    actor: str
    source: str
    at: datetime
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class Canonical:
    """A (type, value) pair for finding the same thing again, e.g. ("person", "priya")."""

    type: str
    value: str


@dataclass(frozen=True, slots=True)
class ByteRange:
    """Half-open byte range ``[start, end)`` in the text blob a section was cut from."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"bad byte range {self.start}..{self.end}")

    @property
    def length(self) -> int:
        return self.end - self.start


@dataclass(frozen=True, slots=True)
class Locator:
    """Where inside a file a section lives, beyond its byte range."""

    page_start: int | None = None
    page_end: int | None = None
    sheet: str | None = None
    heading_path: tuple[str, ...] = ()

    @property
    def breadcrumb(self) -> str:
        return " > ".join(self.heading_path)


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    workspace: str
    kind: str
    storage_class: StorageClass
    label: str
    body: str
    source_key: str
    indexed: bool
    scope: str
    origin: Origin
    summary: str = ""
    blob_key: str | None = None
    text_key: str | None = None
    byte_range: ByteRange | None = None
    locator: Locator = field(default_factory=Locator)
    canonical: Canonical | None = None
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
    embedding: tuple[float, ...] | None = None

    @property
    def when(self) -> datetime:
        """The time freshness counts from: when it happened, else when it was written."""
        return self.occurred_at or self.origin.at


class ItemSketch(NamedTuple):
    """What a search weighs of an item before it cites it (``Store.item_sketches``): a
    narrow read of a search's ~100 candidates, each a plain tuple, where building an
    ``Item`` of 30 fields for each was most of the candidates' cost; the hits are read
    in full. ``when`` is ``Item.when``; the other fields are ``Item``'s (``run_id`` its
    ``origin.run_id``)."""

    id: str
    workspace: str
    scope: str
    kind: str
    storage_class: StorageClass
    label: str
    body: str
    indexed: bool
    parent_id: str | None
    run_id: str | None
    when: datetime
    supersedes: str | None
    superseded_by: str | None
    tombstoned_at: datetime | None

    @classmethod
    def of(cls, item: Item) -> ItemSketch:
        """The sketch of an item read in full."""
        return cls(
            item.id,
            item.workspace,
            item.scope,
            item.kind,
            item.storage_class,
            item.label,
            item.body,
            item.indexed,
            item.parent_id,
            item.origin.run_id,
            item.when,
            item.supersedes,
            item.superseded_by,
            item.tombstoned_at,
        )


@dataclass(frozen=True, slots=True)
class Edge:
    id: str
    workspace: str
    type: str
    src: str
    dst: str
    origin: Origin
    props: dict[str, object] = field(default_factory=dict)


def item_count(counts: Mapping[str, int]) -> int:
    """How many items ``Store.counts`` says there are, of every class (indexed or not;
    forgotten ones and edges apart)."""
    return sum(counts.get(c, 0) for c in STORAGE_CLASSES)
