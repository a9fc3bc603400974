"""The in-memory store's previous versions of files and notes (``ports.VersionStore``),
kept by ``Items._keep_version`` when a put replaces a writer's content."""

from __future__ import annotations

from ...model import Version
from ...scopes import Visibility
from .state import ROWS, Part

__all__ = ["Versions"]


class Versions(Part):
    def versions(self, workspace: str, item_id: str, visibility: Visibility) -> list[Version]:
        with self._db.lock:
            if self._visible_row(workspace, item_id, visibility) is None:
                return []
            rows = [
                v
                for v in self._db.versions
                if v["workspace"] == workspace and v["item_id"] == item_id
            ]
        rows.sort(key=lambda v: -v["number"])
        return [ROWS.version_from_row(v) for v in rows]

    def erase_versions(self, workspace: str, item_id: str) -> list[str]:
        with self._db.lock:
            mine = [
                v
                for v in self._db.versions
                if v["workspace"] == workspace and v["item_id"] == item_id
            ]
            self._db.versions[:] = [v for v in self._db.versions if v not in mine]
        return sorted({k for v in mine for k in (v["blob_key"], v["text_key"]) if k})
