"""Mapping between records (items, edges, statements, proposals, versions, jobs) and
rows, for both SQL stores. ``Rows`` is told how its backend stores a time and a flag;
everything else (JSON as text, byte ranges, scoped source keys) is stored alike."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, cast

from ...errors import InvalidInput
from ...model import (
    ByteRange,
    Canonical,
    Edge,
    Evidence,
    Item,
    ItemSketch,
    Locator,
    Origin,
    Proposal,
    ProposalState,
    Statement,
    StorageClass,
    Version,
)
from ...ports import Job, JobState
from ..records import TABLES

__all__ = [
    "ITEM_COLUMNS",
    "SKETCH_SELECT",
    "Row",
    "Rows",
    "norm_object",
    "shown_key",
    "stored_key",
]

ITEM_COLUMNS = tuple(c for c in TABLES["items"].columns if c != "keys")
"""The columns an ``Item`` fills. Its keys (keyword-only text, ``Store.set_keys``) are not
part of the model: no read returns them, and only ``set_keys`` and a move write them."""

SKETCH_SELECT = (
    "id, workspace, scope, kind, class, label, body, indexed, parent_id, origin_run, "
    "COALESCE(occurred_at, origin_at), supersedes, superseded_by, tombstoned_at"
)
"""The columns of an ``ItemSketch``, in its order (``Rows.sketch`` reads them)."""


class Row(Protocol):
    """A row read by name: ``sqlite3.Row`` or psycopg's ``dict_row``."""

    def __getitem__(self, key: str, /) -> Any: ...


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


def norm_object(value: str) -> str:
    """The form two spellings of one object share (case and spacing apart)."""
    return " ".join(value.casefold().split()).strip(" .,;:!\"'")


@dataclass(frozen=True, slots=True)
class Rows:
    """Records to rows and back, for a backend that stores a time as ``time(t)`` gives it
    and reads it back through ``when``, and a flag as ``flag(b)`` gives it."""

    time: Callable[[datetime | None], object]
    when: Callable[[Any], datetime | None]
    flag: Callable[[bool], object]

    def at(self, value: object) -> datetime:
        """A time a column always holds (NOT NULL)."""
        at = self.when(value)
        assert at is not None
        return at

    def origin(self, r: Row) -> Origin:
        return Origin(
            r["origin_actor"], r["origin_source"], self.at(r["origin_at"]), r["origin_run"]
        )

    # -- items and edges -----------------------------------------------------------------

    def item_values(self, item: Item) -> dict[str, Any]:
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
            "indexed": self.flag(item.indexed),
            "scope": item.scope,
            "origin_actor": item.origin.actor,
            "origin_source": item.origin.source,
            "origin_run": item.origin.run_id,
            "origin_at": self.time(item.origin.at),
            "occurred_at": self.time(item.occurred_at),
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
            "tombstoned_at": self.time(item.tombstoned_at),
            "created_at": self.time(item.created_at),
            "updated_at": self.time(item.updated_at),
        }

    def item_from_row(self, row: Row) -> Item:
        start, end = row["byte_start"], row["byte_end"]
        ctype, cvalue = row["canonical_type"], row["canonical_value"]
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
            origin=self.origin(row),
            occurred_at=self.when(row["occurred_at"]),
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
            tombstoned_at=self.when(row["tombstoned_at"]),
            created_at=self.when(row["created_at"]),
            updated_at=self.when(row["updated_at"]),
        )

    def sketch(self, v: Sequence[Any]) -> ItemSketch:
        """The ``ItemSketch`` of a row of ``SKETCH_SELECT``, read by position."""
        tombstoned = v[13]
        return ItemSketch(
            v[0],
            v[1],
            v[2],
            v[3],
            v[4],
            v[5],
            v[6],
            bool(v[7]),
            v[8],
            v[9],
            self.at(v[10]),
            v[11],
            v[12],
            None if tombstoned is None else self.when(tombstoned),
        )

    def edge_values(self, edge: Edge, dedupe: str) -> dict[str, Any]:
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
            "origin_at": self.time(edge.origin.at),
        }

    def edge_from_row(self, row: Row) -> Edge:
        return Edge(
            id=row["id"],
            workspace=row["workspace"],
            type=row["type"],
            src=row["src"],
            dst=row["dst"],
            origin=self.origin(row),
            props=json.loads(row["props"]),
        )

    # -- statements and their evidence ---------------------------------------------------

    def statement_values(self, s: Statement) -> tuple[Any, ...]:
        """In the order of ``TABLES["statements"].columns``."""
        br = s.byte_range
        return (
            s.id,
            s.workspace,
            s.type,
            s.subject_id,
            s.subject,
            s.predicate,
            s.object,
            norm_object(s.object),
            s.object_id,
            s.scope,
            s.item_id,
            None if br is None else br.start,
            None if br is None else br.end,
            s.text,
            s.tier,
            s.confidence,
            self.time(s.valid_from),
            self.time(s.valid_to),
            s.superseded_by,
            s.replaces,
            json.dumps(list(s.conflicts)),
            s.origin.actor,
            s.origin.source,
            s.origin.run_id,
            self.time(s.origin.at),
        )

    def statement_from_row(self, r: Row) -> Statement:
        """A statement row with ``n``, the count of its evidence that still counts."""
        start = r["byte_start"]
        return Statement(
            id=r["id"],
            workspace=r["workspace"],
            type=r["type"],
            subject_id=r["subject_id"],
            subject=r["subject"],
            predicate=r["predicate"],
            object=r["object"],
            object_id=r["object_id"],
            scope=r["scope"],
            item_id=r["item_id"],
            byte_range=None if start is None else ByteRange(start, r["byte_end"]),
            text=r["text"],
            tier=r["tier"],
            confidence=r["confidence"],
            valid_from=self.at(r["valid_from"]),
            origin=self.origin(r),
            valid_to=self.when(r["valid_to"]),
            superseded_by=r["superseded_by"],
            replaces=r["replaces"],
            evidence=int(r["n"]),
            conflicts=tuple(json.loads(r["conflicts"])),
        )

    def evidence_values(self, workspace: str, statement_id: str, ev: Evidence) -> tuple[Any, ...]:
        """In the order of ``TABLES["evidence"].columns``."""
        br = ev.byte_range
        return (
            workspace,
            statement_id,
            ev.item_id,
            -1 if br is None else br.start,  # NULL would defeat the UNIQUE constraint
            None if br is None else br.end,
            ev.text,
            ev.tier,
            ev.confidence,
            self.time(ev.at),
        )

    def evidence_from_row(self, r: Row) -> Evidence:
        start = r["byte_start"]
        br = None if start is None or start < 0 else ByteRange(start, r["byte_end"])
        return Evidence(r["item_id"], br, r["text"], r["tier"], r["confidence"], self.at(r["at"]))

    # -- proposals, versions, jobs -------------------------------------------------------

    def proposal_values(self, p: Proposal) -> tuple[Any, ...]:
        """In the order of ``TABLES["proposals"].columns``."""
        return (
            p.id,
            p.workspace,
            p.run_id,
            p.actor,
            p.kind,
            p.label,
            p.body,
            p.scope,
            p.confidence,
            json.dumps(list(p.sensitivity)),
            json.dumps(list(p.evidence)),
            json.dumps(list(p.supersedes)),
            p.state,
            p.reason,
            p.writer,
            p.item_id,
            p.decided_by,
            self.time(p.decided_at),
            p.review_reason,
            self.time(p.created_at),
        )

    def proposal_from_row(self, r: Row) -> Proposal:
        return Proposal(
            id=r["id"],
            workspace=r["workspace"],
            run_id=r["run_id"],
            actor=r["actor"],
            kind=r["kind"],
            label=r["label"],
            body=r["body"],
            scope=r["scope"],
            confidence=float(r["confidence"]),
            sensitivity=tuple(json.loads(r["sensitivity"])),
            evidence=tuple(json.loads(r["evidence"])),
            supersedes=tuple(json.loads(r["supersedes"])),
            state=cast(ProposalState, r["state"]),
            reason=r["reason"],
            created_at=self.at(r["created_at"]),
            writer=r["writer"],
            item_id=r["item_id"],
            decided_by=r["decided_by"],
            decided_at=self.when(r["decided_at"]),
            review_reason=r["review_reason"],
        )

    def version_from_row(self, r: Row) -> Version:
        return Version(
            item_id=r["item_id"],
            number=int(r["number"]),
            label=r["label"],
            body=r["body"],
            summary=r["summary"],
            origin=self.origin(r),
            replaced_at=self.at(r["replaced_at"]),
            blob_key=r["blob_key"],
            text_key=r["text_key"],
            content_hash=r["content_hash"],
            size=r["size"],
            media_type=r["media_type"],
            name=r["name"],
            occurred_at=self.when(r["occurred_at"]),
        )

    def job_from_row(self, row: Row) -> Job:
        return Job(
            id=row["id"],
            workspace=row["workspace"],
            kind=row["kind"],
            key=row["key"],
            payload=json.loads(row["payload"]),
            state=cast(JobState, row["state"]),
            attempts=int(row["attempts"]),
            max_attempts=int(row["max_attempts"]),
            run_after=self.at(row["run_after"]),
            actor=row["actor"],
            created_at=self.at(row["created_at"]),
            updated_at=self.at(row["updated_at"]),
            subject=row["subject"],
            lease_owner=row["lease_owner"],
            lease_until=self.when(row["lease_until"]),
            last_error=row["last_error"],
            finished_at=self.when(row["finished_at"]),
        )
