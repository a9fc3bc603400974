"""The store's previous versions of items: one part of ``PostgresStore``, kept apart like
``graphlog.py``. The rules are the SQLite store's (``adapters/sqlite/versions.py``): only
what a writer wrote is versioned (files' bytes, notes' text), copied in the transaction
that replaces it."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from ...model import Version
from ...scopes import Visibility
from ..sql.versions import COPIED, OLD_ROW_COLUMNS, content_changed
from .db import Connection
from .rows import ROWS

__all__ = ["OLD_ROW_COLUMNS", "Versions"]

_INSERT = (
    f"INSERT INTO item_versions (workspace, item_id, number, {', '.join(COPIED)}, replaced_at) "
    f"VALUES (%s, %s, (SELECT coalesce(max(number), 0) + 1 FROM item_versions "
    f"WHERE workspace = %s AND item_id = %s), {', '.join(['%s'] * len(COPIED))}, %s)"
)


class Versions(ABC):
    """Previous versions of files and notes (``model.Version``)."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[Connection]: ...

    def _keep_version(
        self,
        conn: Connection,
        workspace: str,
        item_id: str,
        old: Mapping[str, Any],
        new: Mapping[str, Any],
        at: datetime,
    ) -> bool:
        """Copy the row's content ``old`` to its versions if ``new`` replaces it (the
        row is locked by the caller, so numbers do not race)."""
        if not content_changed(old, new):
            return False
        conn.execute(
            _INSERT, (workspace, item_id, workspace, item_id, *(old[c] for c in COPIED), at)
        )
        return True

    def versions(self, workspace: str, item_id: str, visibility: Visibility) -> list[Version]:
        sql = (
            "SELECT v.* FROM item_versions v JOIN items i ON i.workspace = v.workspace "
            "AND i.id = v.item_id WHERE v.workspace = %s AND v.item_id = %s"
        )
        params: list[Any] = [workspace, item_id]
        if visibility.scopes is not None:
            sql += " AND i.scope = ANY(%s)"
            params.append(sorted(visibility.scopes))
        with self._read() as conn:
            rows = conn.execute(sql + " ORDER BY v.number DESC", params).fetchall()
        return [ROWS.version_from_row(r) for r in rows]

    def erase_versions(self, workspace: str, item_id: str) -> list[str]:
        """Delete an item's previous versions; return the blob keys they named."""
        with self._tx() as conn:
            rows = conn.execute(
                "DELETE FROM item_versions WHERE workspace = %s AND item_id = %s "
                "RETURNING blob_key, text_key",
                (workspace, item_id),
            ).fetchall()
        return sorted({k for r in rows for k in (r["blob_key"], r["text_key"]) if k})
