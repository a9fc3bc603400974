"""The item reads both SQL stores run alike: by source key, a listing page by page, and
an indexing error noted. Each backend keeps its own writes, its lookup by ids (SQLite
needs a hint to look rows up by id), vectors and search."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence

from ...errors import InvalidInput
from ...model import Item, utcnow
from ...ports import ItemFilter, Page
from ...scopes import Visibility
from .dialect import Part
from .rows import stored_key

__all__ = ["ItemReads"]


class ItemReads(Part):
    """``get_item``, ``get_by_source_key``, ``list_items`` and ``set_index_error``."""

    @abstractmethod
    def get_items(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, Item]: ...

    def get_item(self, workspace: str, item_id: str, visibility: Visibility) -> Item | None:
        return self.get_items(workspace, [item_id], visibility).get(item_id)

    def get_by_source_key(
        self, workspace: str, source_key: str, visibility: Visibility, *, scope: str
    ) -> Item | None:
        d = self._dialect
        sql = "SELECT * FROM items WHERE workspace = ? AND source_key = ?"
        params: list[object] = [workspace, stored_key(scope, source_key)]
        if visibility.scopes is not None:
            cond, more = d.any_of("scope", sorted(visibility.scopes))
            sql, params = f"{sql} AND {cond}", params + more
        with self._read() as conn:
            row = conn.execute(d.sql(sql), params).fetchone()
        return None if row is None else d.rows.item_from_row(row)

    def list_items(
        self,
        workspace: str,
        filter: ItemFilter,
        visibility: Visibility,
        *,
        limit: int = 100,
        cursor: str | None = None,
    ) -> Page:
        d = self._dialect
        where = ["workspace = ?"]
        params: list[object] = [workspace]
        for column, value in (
            ("class", filter.storage_class),
            ("kind", filter.kind),
            ("parent_id", filter.parent_id),
            ("origin_run", filter.run_id),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if filter.storage_classes is not None:
            cond, more = d.any_of("class", filter.storage_classes)
            where.append(cond)
            params += more
        if filter.forgotten_only:
            where.append("tombstoned_at IS NOT NULL")
        elif not filter.tombstoned:
            where.append("tombstoned_at IS NULL")
        if filter.indexed is not None:
            where.append("indexed = ?")
            params.append(d.rows.flag(filter.indexed))
        if filter.name_contains:
            where.append(
                f"({d.find}(lower(coalesce(name, '')), ?) > 0 OR {d.find}(lower(label), ?) > 0)"
            )
            needle = filter.name_contains.lower()
            params += [needle, needle]
        if cursor is not None:
            if not cursor.isdigit() or len(cursor) > 18:
                raise InvalidInput(f"invalid cursor {cursor!r}")
            where.append(f"{d.pos} < ?" if filter.newest_first else f"{d.pos} > ?")
            params.append(int(cursor))
        if visibility.scopes is not None:
            cond, more = d.any_of("scope", sorted(visibility.scopes))
            where.append(cond)
            params += more
        order = f"{d.pos} DESC" if filter.newest_first else d.pos
        sql = f"SELECT * FROM items WHERE {' AND '.join(where)} ORDER BY {order} LIMIT ?"
        with self._read() as conn:
            rows = conn.execute(d.sql(sql), [*params, limit + 1]).fetchall()
        more_rows = len(rows) > limit
        rows = rows[:limit]
        items = tuple(d.rows.item_from_row(r) for r in rows)
        return Page(items, str(rows[-1][d.pos]) if more_rows and rows else None)

    def set_index_error(
        self, workspace: str, item_id: str, error: str | None, *, content_hash: str | None = None
    ) -> None:
        d = self._dialect
        sql = "UPDATE items SET index_error = ?, updated_at = ? WHERE workspace = ? AND id = ?"
        params: list[object] = [error, d.rows.time(utcnow()), workspace, item_id]
        if content_hash is not None:
            sql += " AND content_hash = ?"
            params.append(content_hash)
        with self._tx() as conn:
            conn.execute(d.sql(sql), params)
