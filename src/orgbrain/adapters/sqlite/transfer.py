"""Records out of and into the SQLite store, as a move between stores carries them
(``orgbrain migrate``): one part of ``SQLiteStore``, kept apart like ``graphlog.py``.

A record goes in as the row it was, with ``ON CONFLICT DO NOTHING`` (a row already here
stays, any other failure fails the page). The full-text index and the keyword changes
follow an item through the table's triggers; its vectors are stamped with a fresh
``vec_seq``, so every process's vector index catches up with them.
"""

from __future__ import annotations

import sqlite3
from abc import abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ...errors import Conflict
from ...ports import Record, RecordKind, RecordPage, Vector
from ..records import TABLES, check_kind, checked, record_name
from ..sql.transfer import Marks
from .rows import job_stamp

__all__ = ["Transfer"]


def _text_time(kind: RecordKind, value: datetime) -> str | None:
    return job_stamp(value) if kind == "jobs" else value.isoformat()


def _column(kind: RecordKind, name: str) -> str:
    """The stored column a record's field is (an event's id is its rowid)."""
    return "rowid" if (kind, name) == ("events", "id") else name


class Transfer(Marks):
    """``export_records`` and ``import_records`` (``Marks``: the counts and marks)."""

    embedding_dim: int | None

    @abstractmethod
    def _conn(self) -> sqlite3.Connection: ...

    @abstractmethod
    def _tx(self) -> AbstractContextManager[sqlite3.Connection]: ...

    @abstractmethod
    def _vector_blob(self, embedding: Vector | None) -> bytes | None: ...

    @staticmethod
    @abstractmethod
    def _next_seq(conn: sqlite3.Connection) -> int: ...

    def export_records(self, kind: RecordKind, *, after: int = 0, limit: int = 500) -> RecordPage:
        table = TABLES[check_kind(kind)]
        picked = ", ".join(f"{_column(kind, c)} AS {c}" for c in table.columns)
        extra = ", embedding" if kind == "items" else ""
        rows = (
            self._conn()
            .execute(
                f"SELECT rowid AS _pos, {picked}{extra} FROM {table.name} "
                "WHERE rowid > ? ORDER BY rowid LIMIT ?",
                (after, max(1, limit)),
            )
            .fetchall()
        )
        records = tuple(self._record(kind, r) for r in rows)
        done = len(rows) < max(1, limit)
        return RecordPage(records, None if done else int(rows[-1]["_pos"]))

    def _record(self, kind: RecordKind, row: sqlite3.Row) -> Record:
        table = TABLES[kind]
        out: dict[str, object] = {c: row[c] for c in table.columns}
        for c in table.times:
            if out[c] is not None:
                at = datetime.fromisoformat(str(out[c]))
                out[c] = at if at.tzinfo else at.replace(tzinfo=UTC)
        for c in table.flags:
            out[c] = bool(out[c])
        if kind == "items":
            blob = row["embedding"]
            vectors = None
            if blob is not None:
                flat = np.frombuffer(blob, dtype=np.float32)
                vectors = flat.reshape(-1, self.embedding_dim or flat.shape[0]).copy()
            out["vectors"] = vectors
        return out

    def import_records(
        self, kind: RecordKind, records: Sequence[Record], *, mark: tuple[str, str] | None = None
    ) -> int:
        check_kind(kind)
        rows = [checked(kind, r) for r in records]
        vectors = [r.get("vectors") for r in records]
        added = 0
        with self._tx() as conn:
            for row, vecs in zip(rows, vectors, strict=True):
                added += self._insert(conn, kind, row, vecs)
            if mark is not None:
                self._set_mark(conn, mark)
        return added

    def _insert(
        self, conn: sqlite3.Connection, kind: RecordKind, row: dict[str, Any], vectors: object
    ) -> int:
        table = TABLES[kind]
        values = dict(row)
        for c in table.times:
            if values[c] is not None:
                values[c] = _text_time(kind, values[c])
        for c in table.flags:
            values[c] = int(bool(values[c]))
        columns = [_column(kind, c) for c in table.columns]
        if kind == "items":
            clash = conn.execute(
                "SELECT id FROM items WHERE id = ? OR (workspace = ? AND source_key = ?)",
                (row["id"], row["workspace"], row["source_key"]),
            ).fetchone()
            if clash is not None:
                if clash["id"] != row["id"]:
                    raise Conflict(
                        f"item {row['id']}: its key {row['source_key']} names another item "
                        f"({clash['id']}) here"
                    )
                return 0
            answerable = bool(row["indexed"]) and row["tombstoned_at"] is None
            blob = self._vector_blob(vectors) if answerable and vectors is not None else None  # type: ignore[arg-type]
            if blob is not None:
                columns += ["embedding", "vec_seq"]
                values["embedding"], values["vec_seq"] = blob, self._next_seq(conn)
        params = [values[c] for c in table.columns]
        if len(columns) > len(table.columns):
            params += [values["embedding"], values["vec_seq"]]
        cur = conn.execute(
            f"INSERT INTO {table.name} ({', '.join(columns)}) "
            f"VALUES ({', '.join('?' * len(columns))}) ON CONFLICT DO NOTHING",
            params,
        )
        if cur.rowcount != 1 and kind == "items":
            raise Conflict(f"item {record_name(kind, row)} could not be stored")
        return 1 if cur.rowcount == 1 else 0
