"""Records out of and into the PostgreSQL store, as a move between stores carries them
(``orgbrain migrate``): one part of ``PostgresStore``, kept apart like ``graphlog.py``.

An item goes in through the store's own write (``_put``), so its vectors and keyword
postings are what any write would have made, then takes back the time it was last
updated. Every other record goes in as the row it was, ``ON CONFLICT DO NOTHING`` (a row
already here stays); an event keeps its sequence number, and the sequence moves past it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from ...errors import Conflict
from ...model import Item
from ...ports import Record, RecordKind, RecordPage, Vector
from ..records import TABLES, check_kind, checked
from ..sql.transfer import Marks
from .db import Connection
from .rows import item_from_row

__all__ = ["Transfer"]


def _column(kind: RecordKind, name: str) -> str:
    """The stored column a record's field is (an event's id is its sequence number)."""
    return "seq" if (kind, name) == ("events", "id") else name


class Transfer(Marks):
    """``export_records`` and ``import_records`` (``Marks``: the counts and marks)."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[Connection]: ...

    @abstractmethod
    def _write(self) -> AbstractContextManager[tuple[Connection, Any]]: ...

    @abstractmethod
    def _put(
        self,
        conn: Connection,
        item: Item,
        embedding: Vector | None,
        pending: Any,
        keys: str | None = None,
    ) -> Item:
        """The store's write of one item (with ``keys``), in the caller's ``_write``
        transaction."""

    def export_records(self, kind: RecordKind, *, after: int = 0, limit: int = 500) -> RecordPage:
        table = TABLES[check_kind(kind)]
        pos = _column(kind, "id") if kind == "events" else "pk"
        picked = ", ".join(f"{_column(kind, c)} AS {c}" for c in table.columns)
        size = max(1, limit)
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {pos} AS _pos, {picked} FROM {table.name} "
                f"WHERE {pos} > %s ORDER BY {pos} LIMIT %s",
                (after, size),
            ).fetchall()
            vectors: dict[int, list[list[float]]] = {}
            if kind == "items" and rows:
                for v in conn.execute(
                    "SELECT item_pk, embedding::real[] AS e FROM item_vectors "
                    "WHERE item_pk = ANY(%s) ORDER BY item_pk, n",
                    ([int(r["_pos"]) for r in rows],),
                ):
                    vectors.setdefault(int(v["item_pk"]), []).append(v["e"])
        records: list[Record] = []
        for r in rows:
            out: dict[str, object] = {c: r[c] for c in table.columns}
            if kind == "items":
                found = vectors.get(int(r["_pos"]))
                out["vectors"] = None if found is None else np.asarray(found, dtype=np.float32)
            records.append(out)
        done = len(rows) < size
        return RecordPage(tuple(records), None if done else int(rows[-1]["_pos"]))

    def import_records(
        self, kind: RecordKind, records: Sequence[Record], *, mark: tuple[str, str] | None = None
    ) -> int:
        table = TABLES[check_kind(kind)]
        rows = [checked(kind, r) for r in records]
        added = 0
        with self._write() as (conn, pending):
            if kind == "items":
                for row, record in zip(rows, records, strict=True):
                    added += self._import_item(conn, row, record.get("vectors"), pending)
            else:
                columns = ", ".join(_column(kind, c) for c in table.columns)
                sql = (
                    f"INSERT INTO {table.name} ({columns}) "
                    f"VALUES ({', '.join(['%s'] * len(table.columns))}) ON CONFLICT DO NOTHING"
                )
                for row in rows:
                    added += conn.execute(sql, [row[c] for c in table.columns]).rowcount
            if kind == "events" and added:
                conn.execute(
                    "SELECT setval(pg_get_serial_sequence('events', 'seq'), "
                    "(SELECT max(seq) FROM events))"
                )
            if mark is not None:
                self._set_mark(conn, mark)
        return added

    def _import_item(
        self, conn: Connection, row: dict[str, Any], vectors: object, pending: Any
    ) -> int:
        clash = conn.execute(
            "SELECT id FROM items WHERE id = %s OR (workspace = %s AND source_key = %s)",
            (row["id"], row["workspace"], row["source_key"]),
        ).fetchone()
        if clash is not None:
            if clash["id"] != row["id"]:
                raise Conflict(
                    f"item {row['id']}: its key {row['source_key']} names another item "
                    f"({clash['id']}) here"
                )
            return 0
        embedding = None if vectors is None else np.asarray(vectors, dtype=np.float32)
        self._put(conn, item_from_row(row), embedding, pending, keys=row["keys"])
        # The write stamps it now; a moved item keeps when it was last changed.
        conn.execute(
            "UPDATE items SET updated_at = %s WHERE id = %s", (row["updated_at"], row["id"])
        )
        return 1
