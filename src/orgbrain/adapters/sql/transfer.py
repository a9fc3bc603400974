"""What both SQL stores' moves between stores (``orgbrain migrate``) share: the counts a
move checks itself by, and the marks an import leaves (written in the import's own
transaction, so a checkpoint and the records it names commit together). Each backend
exports and imports its own rows: how an item's vectors travel is where they differ."""

from __future__ import annotations

from ...ports import RecordKind
from ..records import TABLES, check_kind
from .dialect import Connection, Part

__all__ = ["Marks"]

_MARK = "mark:"


class Marks(Part):
    """``count_records``, ``mark`` and ``set_mark``, and ``_set_mark`` for an import."""

    def count_records(self, kind: RecordKind) -> dict[str, int]:
        table = TABLES[check_kind(kind)]
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT workspace, count(*) AS n FROM {table.name} GROUP BY 1 ORDER BY 1"
            ).fetchall()
        return {str(r["workspace"]): int(r["n"]) for r in rows}

    def mark(self, name: str) -> str | None:
        with self._read() as conn:
            row = conn.execute(
                self._dialect.sql("SELECT value FROM meta WHERE key = ?"), (_MARK + name,)
            ).fetchone()
        return None if row is None else str(row["value"])

    def set_mark(self, name: str, value: str) -> None:
        with self._tx() as conn:
            self._set_mark(conn, (name, value))

    def _set_mark(self, conn: Connection, mark: tuple[str, str]) -> None:
        """Set mark ``mark[0]`` to ``mark[1]``, in the caller's transaction."""
        conn.execute(
            self._dialect.sql(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value"
            ),
            (_MARK + mark[0], mark[1]),
        )
