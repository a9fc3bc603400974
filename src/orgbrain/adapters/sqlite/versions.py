"""The store's previous versions of items: one part of ``SQLiteStore``, kept apart like
``graphlog.py``.

Writing a source key again updates its row, and the content the row held before is
copied to ``item_versions`` in the same transaction (``_keep_version``, called by
``SQLiteStore._put``). Only what a writer wrote is versioned: files (their bytes) and
notes (their text). Sections and entities are derived and cut again from their source;
a file's indexing, a tombstone, or a flag (``indexed``, ``superseded_by``) is no new
version. A forgotten row's content is never copied back into view.
"""

from __future__ import annotations

import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from ...model import Origin, Version
from ...scopes import Visibility

__all__ = ["OLD_ROW_COLUMNS", "VERSIONED_CLASSES", "Versions"]

VERSIONED_CLASSES = ("file", "note")
"""The classes whose previous content is kept: what a writer wrote, not what was derived."""

OLD_ROW_COLUMNS = (
    "class",
    "label",
    "body",
    "summary",
    "blob_key",
    "text_key",
    "content_hash",
    "size",
    "media_type",
    "name",
    "occurred_at",
    "origin_actor",
    "origin_source",
    "origin_run",
    "origin_at",
    "tombstoned_at",
    "supersedes",
    "superseded_by",
)
"""What ``SQLiteStore._put`` reads of the row it is about to update."""

_COPIED = (
    "label",
    "body",
    "summary",
    "blob_key",
    "text_key",
    "content_hash",
    "size",
    "media_type",
    "name",
    "occurred_at",
    "origin_actor",
    "origin_source",
    "origin_run",
    "origin_at",
)
_INSERT = (
    f"INSERT INTO item_versions (workspace, item_id, number, {', '.join(_COPIED)}, replaced_at) "
    f"VALUES (?, ?, (SELECT coalesce(max(number), 0) + 1 FROM item_versions "
    f"WHERE workspace = ? AND item_id = ?), {', '.join('?' * len(_COPIED))}, ?)"
)


def content_changed(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """Whether writing ``new`` over the row ``old`` replaces what a writer wrote: a file's
    bytes, or a note's label, text or time. Indexing (the extracted body, the text key),
    flags and tombstones are not content."""
    if old["class"] not in VERSIONED_CLASSES or old["class"] != new["class"]:
        return False
    if old["tombstoned_at"] is not None or new["tombstoned_at"] is not None:
        return False  # forgotten content stays out of reads; forgetting is no new version
    if old["class"] == "file":
        return (old["blob_key"], old["content_hash"]) != (new["blob_key"], new["content_hash"])
    fields = ("label", "body", "occurred_at")
    return any(old[f] != new[f] for f in fields)


class Versions(ABC):
    """Previous versions of files and notes (``model.Version``)."""

    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def _keep_version(
        self,
        conn: sqlite3.Connection,
        workspace: str,
        item_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        at: datetime,
    ) -> bool:
        """Copy the row's content ``old`` to its versions if ``new`` replaces it; in the
        caller's transaction, so the update and the kept version commit together."""
        if not content_changed(old, new):
            return False
        conn.execute(
            _INSERT,
            (workspace, item_id, workspace, item_id, *(old[c] for c in _COPIED), at.isoformat()),
        )
        return True

    def versions(self, workspace: str, item_id: str, visibility: Visibility) -> list[Version]:
        sql = (
            "SELECT v.* FROM item_versions v JOIN items i ON i.workspace = v.workspace "
            "AND i.id = v.item_id WHERE v.workspace = ? AND v.item_id = ?"
        )
        params: list[Any] = [workspace, item_id]
        if visibility.scopes is not None:
            sql += f" AND i.scope IN ({', '.join('?' * len(visibility.scopes))})"
            params += sorted(visibility.scopes)
        rows = self._conn().execute(sql + " ORDER BY v.number DESC", params)
        return [_version(r) for r in rows]

    def erase_versions(self, workspace: str, item_id: str) -> list[str]:
        """Delete an item's previous versions; return the blob keys they named (raw bytes
        and extracted text) for the caller to delete."""
        with self._tx() as conn:
            rows = conn.execute(
                "DELETE FROM item_versions WHERE workspace = ? AND item_id = ? "
                "RETURNING blob_key, text_key",
                (workspace, item_id),
            ).fetchall()
        return sorted({k for r in rows for k in (r[0], r[1]) if k})


def _version(r: sqlite3.Row) -> Version:
    return Version(
        item_id=r["item_id"],
        number=int(r["number"]),
        label=r["label"],
        body=r["body"],
        summary=r["summary"],
        origin=Origin(
            r["origin_actor"],
            r["origin_source"],
            datetime.fromisoformat(r["origin_at"]),
            r["origin_run"],
        ),
        replaced_at=datetime.fromisoformat(r["replaced_at"]),
        blob_key=r["blob_key"],
        text_key=r["text_key"],
        content_hash=r["content_hash"],
        size=r["size"],
        media_type=r["media_type"],
        name=r["name"],
        occurred_at=None if r["occurred_at"] is None else datetime.fromisoformat(r["occurred_at"]),
    )
