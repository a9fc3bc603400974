"""Mapping between items/edges and SQLite rows."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import Any

import numpy as np

from ...errors import InvalidInput
from ...model import ByteRange, Canonical, Edge, Item, Locator, Origin, StorageClass

__all__ = [
    "ITEM_COLUMNS",
    "edge_from_row",
    "edge_values",
    "item_from_row",
    "item_values",
    "shown_key",
    "stored_key",
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


def _ts(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _dt(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


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
        "indexed": int(item.indexed),
        "scope": item.scope,
        "origin_actor": item.origin.actor,
        "origin_source": item.origin.source,
        "origin_run": item.origin.run_id,
        "origin_at": _ts(item.origin.at),
        "occurred_at": _ts(item.occurred_at),
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
        "tombstoned_at": _ts(item.tombstoned_at),
        "created_at": _ts(item.created_at),
        "updated_at": _ts(item.updated_at),
    }


def stored_key(scope: str, source_key: str) -> str:
    """The key as the ``items`` table holds it: namespaced by scope outside ``org``, so the
    same key in two scopes is two items, and a key in a scope a writer cannot see answers
    exactly as a free one (migration 0006)."""
    if scope == "org":
        if source_key.startswith("@"):
            raise InvalidInput("a source key may not start with '@' (it marks a scope)")
        return source_key
    return f"@{scope}/{source_key}"


def shown_key(scope: str, stored: str) -> str:
    prefix = f"@{scope}/"
    return stored[len(prefix) :] if scope != "org" and stored.startswith(prefix) else stored


def item_from_row(row: sqlite3.Row, *, with_embedding: bool = False) -> Item:
    start, end = row["byte_start"], row["byte_end"]
    ctype, cvalue = row["canonical_type"], row["canonical_value"]
    origin_at = _dt(row["origin_at"])
    assert origin_at is not None
    embedding = None
    if with_embedding and row["embedding"] is not None:
        embedding = tuple(float(x) for x in np.frombuffer(row["embedding"], dtype=np.float32))
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
        occurred_at=_dt(row["occurred_at"]),
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
        tombstoned_at=_dt(row["tombstoned_at"]),
        created_at=_dt(row["created_at"]),
        updated_at=_dt(row["updated_at"]),
        embedding=embedding,
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
        "origin_at": _ts(edge.origin.at),
    }


def edge_from_row(row: sqlite3.Row) -> Edge:
    at = _dt(row["origin_at"])
    assert at is not None
    return Edge(
        id=row["id"],
        workspace=row["workspace"],
        type=row["type"],
        src=row["src"],
        dst=row["dst"],
        origin=Origin(row["origin_actor"], row["origin_source"], at, row["origin_run"]),
        props=json.loads(row["props"]),
    )
