"""The in-memory store's listing of items (``ItemStore.list_items``): a page in write
order or newest first, its cursor a row's place in write order (as SQLite's rowid)."""

from __future__ import annotations

from ...errors import InvalidInput
from ...ports import ItemFilter, Page
from ...scopes import Visibility
from .state import Part, Row

__all__ = ["Listing"]


class Listing(Part):
    """``ItemStore.list_items``."""

    def list_items(
        self,
        workspace: str,
        filter: ItemFilter,
        visibility: Visibility,
        *,
        limit: int = 100,
        cursor: str | None = None,
    ) -> Page:
        if cursor is not None and (not cursor.isdigit() or len(cursor) > 18):
            raise InvalidInput(f"invalid cursor {cursor!r}")
        f, at = filter, None if cursor is None else int(cursor)
        needle = (f.name_contains or "").lower()
        with self._db.lock:
            rows = list(self._rows_of(workspace))
            if f.newest_first:
                rows.reverse()
            picked: list[Row] = []
            for r in rows:
                if at is not None and (r["_pos"] >= at if f.newest_first else r["_pos"] <= at):
                    continue
                if not _matches(r, f, needle) or not visibility.allows(r["scope"]):
                    continue
                picked.append(r)
                if len(picked) > limit:
                    break
            more = len(picked) > limit
            picked = picked[:limit]
            items = tuple(self._item(r) for r in picked)
        return Page(items, str(picked[-1]["_pos"]) if more and picked else None)


def _matches(r: Row, f: ItemFilter, needle: str) -> bool:
    """Whether row ``r`` passes ``f`` (its cursor and scope apart)."""
    for column, value in (
        ("class", f.storage_class),
        ("kind", f.kind),
        ("parent_id", f.parent_id),
        ("origin_run", f.run_id),
    ):
        if value is not None and r[column] != value:
            return False
    if f.storage_classes is not None and r["class"] not in f.storage_classes:
        return False
    if f.forgotten_only:
        if r["tombstoned_at"] is None:
            return False
    elif not f.tombstoned and r["tombstoned_at"] is not None:
        return False
    if f.indexed is not None and bool(r["indexed"]) != f.indexed:
        return False
    if needle and needle not in (r["name"] or "").lower() and needle not in r["label"].lower():
        return False
    return True
