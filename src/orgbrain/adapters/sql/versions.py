"""The store's previous versions of items, for both SQL stores: one part of the store,
kept apart like its edges and log.

Writing a source key again updates its row, and the content the row held before is
copied to ``item_versions`` in the same transaction (``_keep_version``, called by the
store's ``_put``). Only what a writer wrote is versioned: files (their bytes) and notes
(their text). Sections and entities are derived and cut again from their source; a
file's indexing, a tombstone, or a flag (``indexed``, ``superseded_by``) is no new
version. A forgotten row's content is never copied back into view.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ...model import Version
from ...scopes import Visibility
from .dialect import Connection, Part

__all__ = ["OLD_ROW_COLUMNS", "VERSIONED_CLASSES", "Versions", "content_changed"]

VERSIONED_CLASSES = ("file", "note")
"""The classes whose previous content is kept: what a writer wrote, not what was derived."""

COPIED = (
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
"""The columns of the replaced row that ``item_versions`` keeps."""

OLD_ROW_COLUMNS = ("class", *COPIED, "tombstoned_at", "supersedes", "superseded_by")
"""What a store's ``_put`` reads of the row it is about to update."""

_INSERT = (
    f"INSERT INTO item_versions (workspace, item_id, number, {', '.join(COPIED)}, replaced_at) "
    "VALUES (?, ?, (SELECT coalesce(max(number), 0) + 1 FROM item_versions "
    f"WHERE workspace = ? AND item_id = ?), {', '.join('?' * len(COPIED))}, ?)"
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


class Versions(Part):
    """Previous versions of files and notes (``model.Version``)."""

    def _keep_version(
        self,
        conn: Connection,
        workspace: str,
        item_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        at: datetime,
    ) -> bool:
        """Copy the row's content ``old`` to its versions if ``new`` replaces it; in the
        caller's transaction, so the update and the kept version commit together (the
        caller holds the row, so numbers do not race)."""
        if not content_changed(old, new):
            return False
        d = self._dialect
        old_values = (old[c] for c in COPIED)
        params = (workspace, item_id, workspace, item_id, *old_values, d.rows.time(at))
        conn.execute(d.sql(_INSERT), params)
        return True

    def versions(self, workspace: str, item_id: str, visibility: Visibility) -> list[Version]:
        d = self._dialect
        sql = (
            "SELECT v.* FROM item_versions v JOIN items i ON i.workspace = v.workspace "
            "AND i.id = v.item_id WHERE v.workspace = ? AND v.item_id = ?"
        )
        params: list[Any] = [workspace, item_id]
        if visibility.scopes is not None:
            cond, more = d.any_of("i.scope", sorted(visibility.scopes))
            sql, params = f"{sql} AND {cond}", params + more
        with self._read() as conn:
            rows = conn.execute(d.sql(sql + " ORDER BY v.number DESC"), params).fetchall()
        return [d.rows.version_from_row(r) for r in rows]

    def erase_versions(self, workspace: str, item_id: str) -> list[str]:
        """Delete an item's previous versions; return the blob keys they named (raw bytes
        and extracted text) for the caller to delete."""
        with self._tx() as conn:
            rows = conn.execute(
                self._dialect.sql(
                    "DELETE FROM item_versions WHERE workspace = ? AND item_id = ? "
                    "RETURNING blob_key, text_key"
                ),
                (workspace, item_id),
            ).fetchall()
        return sorted({k for r in rows for k in (r["blob_key"], r["text_key"]) if k})
