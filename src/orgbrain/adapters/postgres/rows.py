"""Mapping between items/edges and PostgreSQL rows (``dict_row``: times come back as
aware datetimes in UTC, booleans as booleans)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ...model import ByteRange, Canonical, Edge, Item, Locator, Origin, StorageClass
from ..sqlite.rows import shown_key, stored_key

__all__ = [
    "ITEM_COLUMNS",
    "edge_from_row",
    "edge_values",
    "item_from_row",
    "item_values",
    "shown_key",
    "stored_key",
    "utc",
]

ITEM_COLUMNS = (
    "id",
    "workspace",
    "kind",
    "class",
    "label",
    "summary",
    "body",
    "source_key",
    "indexed",
    "scope",
    "origin_actor",
    "origin_source",
    "origin_run",
    "origin_at",
    "occurred_at",
    "blob_key",
    "text_key",
    "byte_start",
    "byte_end",
    "page_start",
    "page_end",
    "sheet",
    "heading_path",
    "canonical_type",
    "canonical_value",
    "parent_id",
    "ordinal",
    "name",
    "media_type",
    "size",
    "content_hash",
    "index_error",
    "supersedes",
    "superseded_by",
    "tombstoned_at",
    "created_at",
    "updated_at",
)

Row = Mapping[str, Any]


def utc(value: datetime | None) -> datetime | None:
    """A time as ``timestamptz`` keeps it: one without a zone is taken as UTC (the session's
    zone), so comparing it with what the row gives back compares instants."""
    return value.replace(tzinfo=UTC) if value is not None and value.tzinfo is None else value


def item_values(item: Item) -> dict[str, Any]:
    br = item.byte_range
    loc = item.locator
    return {
        "id": item.id,
        "workspace": item.workspace,
        "kind": item.kind,
        "class": item.storage_class,
        "label": item.label,
        "summary": item.summary,
        "body": item.body,
        "source_key": stored_key(item.scope, item.source_key),
        "indexed": item.indexed,
        "scope": item.scope,
        "origin_actor": item.origin.actor,
        "origin_source": item.origin.source,
        "origin_run": item.origin.run_id,
        "origin_at": utc(item.origin.at),
        "occurred_at": utc(item.occurred_at),
        "blob_key": item.blob_key,
        "text_key": item.text_key,
        "byte_start": None if br is None else br.start,
        "byte_end": None if br is None else br.end,
        "page_start": loc.page_start,
        "page_end": loc.page_end,
        "sheet": loc.sheet,
        "heading_path": json.dumps(list(loc.heading_path)) if loc.heading_path else None,
        "canonical_type": None if item.canonical is None else item.canonical.type,
        "canonical_value": None if item.canonical is None else item.canonical.value,
        "parent_id": item.parent_id,
        "ordinal": item.ordinal,
        "name": item.name,
        "media_type": item.media_type,
        "size": item.size,
        "content_hash": item.content_hash,
        "index_error": item.index_error,
        "supersedes": item.supersedes,
        "superseded_by": item.superseded_by,
        "tombstoned_at": utc(item.tombstoned_at),
        "created_at": utc(item.created_at),
        "updated_at": utc(item.updated_at),
    }


def item_from_row(row: Row) -> Item:
    start, end = row["byte_start"], row["byte_end"]
    ctype, cvalue = row["canonical_type"], row["canonical_value"]
    origin_at: datetime = row["origin_at"]
    cls: StorageClass = row["class"]
    return Item(
        id=row["id"],
        workspace=row["workspace"],
        kind=row["kind"],
        storage_class=cls,
        label=row["label"],
        summary=row["summary"],
        body=row["body"],
        source_key=shown_key(row["scope"], row["source_key"]),
        indexed=bool(row["indexed"]),
        scope=row["scope"],
        origin=Origin(row["origin_actor"], row["origin_source"], origin_at, row["origin_run"]),
        occurred_at=row["occurred_at"],
        blob_key=row["blob_key"],
        text_key=row["text_key"],
        byte_range=None if start is None else ByteRange(start, end),
        locator=Locator(
            page_start=row["page_start"],
            page_end=row["page_end"],
            sheet=row["sheet"],
            heading_path=tuple(json.loads(row["heading_path"])) if row["heading_path"] else (),
        ),
        canonical=None if ctype is None else Canonical(ctype, cvalue),
        parent_id=row["parent_id"],
        ordinal=row["ordinal"],
        name=row["name"],
        media_type=row["media_type"],
        size=row["size"],
        content_hash=row["content_hash"],
        index_error=row["index_error"],
        supersedes=row["supersedes"],
        superseded_by=row["superseded_by"],
        tombstoned_at=row["tombstoned_at"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
    )


def edge_values(edge: Edge, dedupe: str) -> dict[str, Any]:
    return {
        "id": edge.id,
        "workspace": edge.workspace,
        "type": edge.type,
        "src": edge.src,
        "dst": edge.dst,
        "dedupe": dedupe,
        "props": json.dumps(edge.props, sort_keys=True, default=str),
        "origin_actor": edge.origin.actor,
        "origin_source": edge.origin.source,
        "origin_run": edge.origin.run_id,
        "origin_at": edge.origin.at,
    }


def edge_from_row(row: Row) -> Edge:
    return Edge(
        id=row["id"],
        workspace=row["workspace"],
        type=row["type"],
        src=row["src"],
        dst=row["dst"],
        origin=Origin(
            row["origin_actor"], row["origin_source"], row["origin_at"], row["origin_run"]
        ),
        props=json.loads(row["props"]),
    )
