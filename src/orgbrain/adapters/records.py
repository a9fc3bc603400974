"""The tables a move between stores carries (``Store.export_records``), as both stores
hold them: their columns, which are times and flags, and what names a record.

The SQLite and PostgreSQL schemas keep the same columns under the same names; what
differs is the row's own number (``rowid``, ``pk``), the derived indexes (vectors,
keyword postings) and how a time or a flag is written, which each adapter maps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..errors import InvalidInput
from ..ports import RECORD_KINDS, Record, RecordKind

__all__ = ["TABLES", "Table", "check_kind", "checked", "record_name"]


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    columns: tuple[str, ...]
    """Every column a record carries (an event's sequence number as ``id``)."""
    times: frozenset[str]
    flags: frozenset[str] = frozenset()
    names: tuple[str, ...] = ("id",)
    """The columns that name a record (for messages and a brain's fingerprint)."""


_ORIGIN = "origin_actor origin_source origin_run origin_at"


def _columns(names: str) -> tuple[str, ...]:
    return tuple(names.split())


TABLES: Mapping[RecordKind, Table] = {
    "items": Table(
        "items",
        _columns(
            "id workspace kind class label summary body source_key indexed scope "
            f"{_ORIGIN} occurred_at blob_key text_key byte_start byte_end page_start "
            "page_end sheet heading_path canonical_type canonical_value parent_id ordinal "
            "name media_type size content_hash index_error supersedes superseded_by "
            "tombstoned_at created_at updated_at keys"
        ),
        frozenset({"origin_at", "occurred_at", "tombstoned_at", "created_at", "updated_at"}),
        frozenset({"indexed"}),
    ),
    "versions": Table(
        "item_versions",
        _columns(
            "workspace item_id number label body summary blob_key text_key content_hash "
            f"size media_type name occurred_at {_ORIGIN} replaced_at"
        ),
        frozenset({"occurred_at", "origin_at", "replaced_at"}),
        names=("item_id", "number"),
    ),
    "edges": Table(
        "edges",
        _columns(f"id workspace type src dst dedupe props {_ORIGIN}"),
        frozenset({"origin_at"}),
    ),
    "statements": Table(
        "statements",
        _columns(
            "id workspace type subject_id subject predicate object object_norm object_id "
            "scope item_id byte_start byte_end text tier confidence valid_from valid_to "
            f"superseded_by replaces conflicts {_ORIGIN}"
        ),
        frozenset({"valid_from", "valid_to", "origin_at"}),
    ),
    "evidence": Table(
        "statement_evidence",
        _columns("workspace statement_id item_id byte_start byte_end text tier confidence at"),
        frozenset({"at"}),
        names=("statement_id", "item_id", "byte_start"),
    ),
    "events": Table(
        "events",
        _columns("id workspace kind at actor subject record"),
        frozenset({"at"}),
    ),
    "proposals": Table(
        "proposals",
        _columns(
            "id workspace run_id actor kind label body scope confidence sensitivity "
            "evidence supersedes state reason writer item_id decided_by decided_at "
            "review_reason created_at"
        ),
        frozenset({"decided_at", "created_at"}),
    ),
    "jobs": Table(
        "jobs",
        _columns(
            "id workspace kind key subject actor payload state attempts max_attempts "
            "run_after lease_owner lease_until last_error created_at updated_at finished_at"
        ),
        frozenset({"run_after", "lease_until", "created_at", "updated_at", "finished_at"}),
    ),
}


def check_kind(kind: object) -> RecordKind:
    for known in RECORD_KINDS:
        if kind == known:
            return known
    raise InvalidInput(f"unknown record kind {kind!r}: use one of {', '.join(RECORD_KINDS)}")


def record_name(kind: RecordKind, record: Record) -> str:
    """What names ``record`` among its kind: its id, or its numbered place."""
    return ":".join(str(record.get(c)) for c in TABLES[kind].names)


def checked(kind: RecordKind, record: Record) -> dict[str, Any]:
    """The record's columns, each present; times aware. Else ``InvalidInput``."""
    table = TABLES[kind]
    missing = [c for c in table.columns if c not in record]
    if missing:
        raise InvalidInput(f"a {kind} record lacks {', '.join(missing)}")
    out = {c: record[c] for c in table.columns}
    for c in table.times:
        value = out[c]
        if value is not None and (not isinstance(value, datetime) or value.tzinfo is None):
            raise InvalidInput(f"a {kind} record's {c} is not an aware time: {value!r}")
    return out
