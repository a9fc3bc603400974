"""The server store: PostgreSQL with pgvector, for brains that outgrow one machine.

Items, edges, the event log, statements, versions and proposals are tables (migrations in
``schema.py``); vectors are pgvector rows under HNSW indexes (``vectors.py``); keyword
search is BM25 over postings tables (``keywords.py``). Everything a search reads changes
in the transaction that changes the item, so every process over the database sees the
same brain at once: nothing is cached in a process, nothing needs catching up.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numpy as np

from ...errors import Conflict
from ...ids import new_id
from ...model import Edge, Item, ItemSketch, Origin, StorageClass, utcnow
from ...ports import Owed, ScoredId, Vector
from ...scopes import Visibility
from ...space import EmbeddingSpace, check_space, check_stored_width, space_of
from ..sql.items import ItemReads
from ..sql.outbox import Outbox
from ..sql.proposals import Proposals
from ..sql.rows import SKETCH_SELECT
from ..sql.sectionkeys import check_section_keys
from ..sql.statements import Statements
from ..sql.versions import OLD_ROW_COLUMNS, Versions
from . import keywords
from .db import DEFAULT_TIMEOUT_S, Connection, Database
from .graphlog import EdgesAndLog
from .pending import Pending
from .purge import Purge
from .rollups import Rollups
from .rows import DIALECT, ITEM_COLUMNS, ROWS, item_from_row, item_values
from .schema import migrate, read_only, vector_index_sql
from .transfer import Transfer
from .vectors import vector_rows, vector_search

__all__ = ["PostgresStore"]

_WRITTEN = (*ITEM_COLUMNS, "keys", "kw_len", "n_vectors")
_INSERT_ITEM = (
    f"INSERT INTO items ({', '.join(_WRITTEN)}) "
    f"VALUES ({', '.join(f'%({c})s' for c in _WRITTEN)}) "
    "ON CONFLICT DO NOTHING RETURNING *"
)
_UPDATE_ITEM = (
    "UPDATE items SET "
    + ", ".join(f"{c} = %({c})s" for c in _WRITTEN if c not in ("id", "workspace", "created_at"))
    + " WHERE pk = %(pk)s RETURNING *"
)
_OLD = (
    "SELECT pk, id, workspace, created_at, keys, kw_len, n_vectors, indexed, scope, "
    + ", ".join(OLD_ROW_COLUMNS)
    + " FROM items WHERE workspace = %s AND (source_key = %s OR id = %s) "
    "ORDER BY source_key = %s DESC LIMIT 1 FOR UPDATE"
)
_TEXT = ("class", "scope", "label", "body", "keys")
"""What the keyword index holds of an item: a change to any of them re-indexes it."""


class PostgresStore(
    EdgesAndLog, ItemReads, Rollups, Statements, Versions, Proposals, Purge, Transfer, Outbox
):
    """``Store`` over the PostgreSQL database at ``url`` (tables in its current schema).

    ``timeout_s`` bounds every statement (and the wait for a pooled connection); a
    request's deadline (``orgbrain.deadline``) bounds it further while one is served.
    """

    _dialect = DIALECT

    def __init__(
        self,
        url: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        min_connections: int = 1,
        max_connections: int = 10,
    ) -> None:
        self.url = url
        self._db = Database(
            url,
            timeout_s=timeout_s,
            min_size=min_connections,
            max_size=max_connections,
            what="store",
            vectors=True,
        )
        conn = self._db.connect()
        try:
            migrate(conn)
            self.read_only = read_only(conn)
            row = conn.execute("SELECT value FROM meta WHERE key = 'embedding_dim'").fetchone()
        finally:
            conn.close()
        self.embedding_dim: int | None = int(row["value"]) if row else None
        self._db.open()

    # -- connections -------------------------------------------------------------------

    def _read(self) -> AbstractContextManager[Connection]:
        return self._db.read()

    def _tx(self) -> AbstractContextManager[Connection]:
        return self._db.tx()

    @contextmanager
    def _lazy_tx(self) -> Iterator[Connection]:
        with self._db.tx() as conn:
            # This transaction's COMMIT returns before its WAL record is flushed; a server
            # crash may lose the last such commits (up to 3 x wal_writer_delay), never
            # corrupt or reorder anything.
            conn.execute("SET LOCAL synchronous_commit = off")
            yield conn

    @contextmanager
    def _write(self) -> Iterator[tuple[Connection, Pending]]:
        """A transaction whose postings, vectors and statistics are written at its end."""
        with self._db.tx() as conn:
            pending = Pending()
            yield conn, pending
            pending.flush(conn)

    def close(self) -> None:
        self._db.close()

    # -- meta ---------------------------------------------------------------------------

    def bind_embedder(self, name: str, dim: int, prefixes: tuple[str, str] = ("", "")) -> None:
        """Record the embedding space (``space.py``) when the brain has none (and index
        its vectors); refuse an embedder of another space than the recorded one."""
        wanted = space_of(name, dim, prefixes)
        with self._tx() as conn:
            conn.execute(
                "SELECT pg_advisory_xact_lock(hashtext('orgbrain-bind:' || current_schema()))"
            )
            row = conn.execute("SELECT value FROM meta WHERE key = 'embedding_space'").fetchone()
            if row is not None:
                recorded = EmbeddingSpace.from_json(row["value"])
            else:  # a new brain, or one written before spaces were recorded
                first = conn.execute(
                    "SELECT vector_dims(embedding) AS d FROM item_vectors LIMIT 1"
                ).fetchone()
                check_stored_width(first["d"] if first else None, wanted)
                conn.execute(
                    "INSERT INTO meta (key, value) VALUES ('embedding_space', %s), "
                    "('embedding_dim', %s) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (wanted.to_json(), str(dim)),
                )
                for sql in vector_index_sql(dim):
                    conn.execute(sql)
                recorded = wanted
        check_space(recorded, wanted)
        self.embedding_dim = recorded.dim

    # -- items --------------------------------------------------------------------------

    def put_item(self, item: Item, embedding: Vector | None = None) -> Item:
        with self._write() as (conn, pending):
            return self._put(conn, item, embedding, pending)

    def put_items(
        self,
        items: Sequence[tuple[Item, Vector | None]],
        *,
        supersede: Sequence[Edge] = (),
        owed: Owed | None = None,
    ) -> list[Item]:
        with self._write() as (conn, pending):
            stored = [self._put(conn, item, vec, pending) for item, vec in items]
            return self._commit_with(conn, [i for i, _ in items], stored, supersede, owed)

    def _put(
        self,
        conn: Connection,
        item: Item,
        embedding: Vector | None,
        pending: Pending,
        keys: str | None = None,
    ) -> Item:
        """Write ``item``; its keys are ``keys`` when given (a move), else the row's own,
        unless the item moves to another scope or is tombstoned (``set_keys``)."""
        now = utcnow()
        values = item_values(item)
        # Out of answers (unindexed or tombstoned): no vectors, no postings.
        answerable = item.indexed and item.tombstoned_at is None
        rows = vector_rows(embedding, self.embedding_dim) if answerable else None
        values.update(
            updated_at=now,
            created_at=values["created_at"] or now,
            keys=keys or "",
            n_vectors=0 if rows is None else len(rows),
        )
        terms, length = self._terms(values, answerable)
        # A new key and id: one statement. Otherwise the row of this key, else the row of
        # this id (the same item put in another scope: its key moves with it).
        row = conn.execute(_INSERT_ITEM, values).fetchone()
        if row is None:
            key = values["source_key"]
            old = conn.execute(_OLD, (item.workspace, key, item.id, key)).fetchone()
            if old is None:
                raise Conflict(f"{key} changed while it was being written; try again")
            values.update(pk=old["pk"], id=old["id"], created_at=old["created_at"])
            # Supersession is set once and never moved (``supersede_item``).
            for link in ("supersedes", "superseded_by"):
                values[link] = values[link] or old[link]
            if keys is None and old["scope"] == item.scope and item.tombstoned_at is None:
                values["keys"] = old["keys"]
                terms, length = self._terms(values, answerable)
            self._keep_version(conn, item.workspace, old["id"], old, values, now)
            had = old["kw_len"]
            if had is not None and terms is not None and all(old[f] == values[f] for f in _TEXT):
                terms = None  # the same text, class and scope: its postings stand
            elif had is not None:
                pending.drop_postings(conn, old["pk"], old["workspace"], old["class"], had)
            if old["n_vectors"]:
                pending.drop_vectors(conn, old["pk"])
            row = conn.execute(_UPDATE_ITEM, values).fetchone()
        assert row is not None
        pk = int(row["pk"])
        if terms is not None and length is not None:
            pending.add_postings(pk, item.workspace, item.storage_class, item.scope, terms, length)
        if rows is not None:
            pending.add_vectors(pk, item.workspace, item.storage_class, item.scope, rows)
        return item_from_row(row)

    @staticmethod
    def _terms(values: dict[str, Any], answerable: bool) -> tuple[Counter[str] | None, int | None]:
        """The postings an item's row makes (none out of answers); sets its ``kw_len``."""
        terms, length = (
            keywords.document_terms(values["label"], values["body"], values["keys"])
            if answerable
            else (None, None)
        )
        values["kw_len"] = length
        return terms, length

    def set_keys(self, workspace: str, keys: Mapping[str, str]) -> None:
        with self._write() as (conn, pending):
            for item_id, text in sorted(keys.items()):
                old = conn.execute(
                    "SELECT pk, class, scope, label, body, keys, kw_len FROM items "
                    "WHERE workspace = %s AND id = %s FOR UPDATE",
                    (workspace, item_id),
                ).fetchone()
                if old is None or old["keys"] == text:
                    continue  # unchanged keys are not written: their postings stand
                pk, had = int(old["pk"]), old["kw_len"]
                length = None
                if had is not None:  # answerable: its postings follow its keys
                    pending.drop_postings(conn, pk, workspace, old["class"], int(had))
                    terms, length = keywords.document_terms(old["label"], old["body"], text)
                    pending.add_postings(pk, workspace, old["class"], old["scope"], terms, length)
                conn.execute(
                    "UPDATE items SET keys = %s, kw_len = coalesce(%s, kw_len) WHERE pk = %s",
                    (text, length, pk),
                )

    def _visible_sql(self, visibility: Visibility, alias: str = "") -> tuple[str, list[Any]]:
        if visibility.scopes is None:
            return "", []
        return f" AND {alias}scope = ANY(%s)", [sorted(visibility.scopes)]

    def get_items(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, Item]:
        rows = self._rows_by_id("*", workspace, ids, visibility)
        return {r["id"]: item_from_row(r) for r in rows}

    def _rows_by_id(
        self, columns: str, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> list[Any]:
        """``columns`` of the items ``ids`` names that ``visibility`` lets a reader see."""
        unique = list(dict.fromkeys(ids))
        if not unique:
            return []
        vis, params = self._visible_sql(visibility)
        with self._read() as conn:
            return conn.execute(
                f"SELECT {columns} FROM items WHERE id = ANY(%s) AND workspace = %s" + vis,
                [unique, workspace, *params],
            ).fetchall()

    def item_sketches(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, ItemSketch]:
        rows = self._rows_by_id(SKETCH_SELECT, workspace, ids, visibility)
        sketch = ROWS.sketch
        return {r["id"]: sketch(list(r.values())) for r in rows}

    def embedding_of(self, workspace: str, item_id: str) -> Vector | None:
        """The item's vectors, one row each: its own first, then its passages'."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT v.embedding::real[] AS e FROM item_vectors v "
                "JOIN items i ON i.pk = v.item_pk "
                "WHERE i.workspace = %s AND i.id = %s ORDER BY v.n",
                (workspace, item_id),
            ).fetchall()
        if not rows:
            return None
        return np.asarray([r["e"] for r in rows], dtype=np.float32)

    def commit_index(
        self,
        file: Item,
        file_embedding: Vector | None,
        sections: Sequence[tuple[Item, Vector]],
        edge_origin_actor: str,
        *,
        owed: Owed | None = None,
    ) -> list[Item]:
        with self._write() as (conn, pending):
            # Only the version that was read may be marked indexed: a file re-added while
            # it was indexed keeps its new bytes, unindexed, for the next run.
            current = conn.execute(
                "SELECT content_hash, blob_key, tombstoned_at FROM items "
                "WHERE workspace = %s AND id = %s "
                "FOR UPDATE",
                (file.workspace, file.id),
            ).fetchone()
            # A file forgotten meanwhile stays forgotten (its row is not written back).
            if (
                current is None
                or current["tombstoned_at"] is not None
                or (current["content_hash"], current["blob_key"])
                != (file.content_hash, file.blob_key)
            ):
                raise Conflict(
                    f"{file.id} changed while it was being indexed; its new version waits"
                )
            check_section_keys(conn, self._dialect, file, [s for s, _ in sections])
            stored_file = self._put(conn, file, file_embedding, pending)
            stored: list[Item] = []
            keep: set[str] = set()
            for section, vec in sections:
                s = self._put(conn, section, vec, pending)
                stored.append(s)
                keep.add(s.id)
                self._put_edge(
                    conn,
                    Edge(
                        id=new_id("edg"),
                        workspace=file.workspace,
                        type="HAS_SECTION",
                        src=stored_file.id,
                        dst=s.id,
                        origin=Origin(edge_origin_actor, "index", utcnow()),
                    ),
                )
            stale = [
                r
                for r in conn.execute(
                    "SELECT pk, id, class, kw_len, n_vectors FROM items "
                    "WHERE workspace = %s AND parent_id = %s AND class = 'section' FOR UPDATE",
                    (file.workspace, stored_file.id),
                )
                if r["id"] not in keep
            ]
            for r in stale:
                conn.execute(
                    "DELETE FROM edges WHERE workspace = %s AND (src = %s OR dst = %s)",
                    (file.workspace, r["id"], r["id"]),
                )
                pk = int(r["pk"])
                if r["kw_len"] is not None:
                    pending.drop_postings(conn, pk, file.workspace, r["class"], int(r["kw_len"]))
                pending.vectors.pop(pk, None)
                conn.execute("DELETE FROM items WHERE pk = %s", (pk,))  # vectors cascade
            self._owe(conn, owed, stored)
            return stored

    def unindex_children(self, workspace: str, parent_id: str) -> None:
        """Take a file's sections out of answers (its bytes changed; reindex brings them back)."""
        with self._write() as (conn, pending):
            rows = conn.execute(
                "UPDATE items SET indexed = false, n_vectors = 0 "
                "WHERE workspace = %s AND parent_id = %s RETURNING pk, class, kw_len",
                (workspace, parent_id),
            ).fetchall()
            pks = [int(r["pk"]) for r in rows]
            if not pks:
                return
            conn.execute("DELETE FROM item_vectors WHERE item_pk = ANY(%s)", (pks,))
            for r in rows:
                if r["kw_len"] is not None:
                    pending.drop_postings(conn, int(r["pk"]), workspace, r["class"], r["kw_len"])
            conn.execute("UPDATE items SET kw_len = NULL WHERE pk = ANY(%s)", (pks,))

    # -- search -------------------------------------------------------------------------

    def keyword_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        terms: Sequence[str],
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        if not terms:
            return []
        with self._read() as conn:
            return keywords.keyword_search(
                conn, workspace, storage_class, terms, limit, visibility.scopes
            )

    def vector_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        vector: Vector,
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        dim = self.embedding_dim or int(np.asarray(vector).reshape(-1).shape[0])
        with self._read() as conn:
            return vector_search(
                conn, workspace, storage_class, vector, limit, visibility.scopes, dim
            )
