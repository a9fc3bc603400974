"""PostgreSQL for the benches: a server from the ``pgserver`` wheel, tuned like a modest
dedicated database, one schema per brain, and a bulk loader that writes a synthetic brain
with COPY, as a restore would, instead of one row at a time.

The loader writes exactly what ``PostgresStore.put_items`` would (the item rows, one
vector row each, the BM25 postings by the store's own ``document_terms``, the statistics
rows), but drops the tables' keys and indexes first and rebuilds them after, then records
the embedding space and builds the HNSW indexes on the full tables (``vector_index_sql``),
so ``PostgresStore`` opens it as a brain it built itself.
"""

from __future__ import annotations

import shutil
import struct
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import numpy as np
import psycopg
from numpy.typing import NDArray

from orgbrain.adapters.postgres import PostgresStore
from orgbrain.adapters.postgres.keywords import document_terms
from orgbrain.adapters.postgres.rows import ITEM_COLUMNS, item_values
from orgbrain.adapters.postgres.schema import vector_index_sql
from orgbrain.model import Item, utcnow

__all__ = ["SETTINGS", "BulkLoader", "new_schema", "server"]

SETTINGS = {
    "shared_buffers": "4GB",
    "effective_cache_size": "8GB",
    "maintenance_work_mem": "4GB",
    "work_mem": "64MB",
    "max_wal_size": "8GB",
    "max_parallel_maintenance_workers": "1",
    "max_parallel_workers_per_gather": "0",
}
"""What the bench's server runs with (everything else PostgreSQL 16's defaults: fsync and
synchronous_commit on, so a commit returns once durable). One query uses one core, as the
embedded engine's does."""

_TABLES = ("items", "item_vectors", "kw_postings")


@contextmanager
def server() -> Iterator[str]:
    """The URL of a fresh PostgreSQL 16 with pgvector, stopped and deleted afterwards."""
    from pgserver import get_server
    from pgserver._commands import pg_ctl

    # Run as root, the server runs as its own user, who must be able to reach its folder.
    home = Path(tempfile.mkdtemp(prefix="orgbrain-bench-pg-"))
    home.chmod(0o755)
    data = home / "data"
    with warnings.catch_warnings():  # platformdirs warns about XDG_RUNTIME_DIR
        warnings.simplefilter("ignore")
        # The bench stops the server itself: pgserver's own stop remembers the postmaster
        # from before the restart below and, racing its exit, could kill a gone process.
        pg = get_server(data, cleanup_mode=None)
    url = pg.get_uri()
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            for key, value in SETTINGS.items():
                conn.execute(f"ALTER SYSTEM SET {key} = '{value}'")
        pg_ctl(["-w", "-m", "fast", "restart"], pgdata=data, user=pg.system_user)
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        yield url
    finally:
        try:
            pg_ctl(["-w", "-m", "fast", "stop"], pgdata=data, user=pg.system_user)
        finally:
            pg.cleanup()  # releases the handle only (cleanup_mode=None)
            shutil.rmtree(home, ignore_errors=True)


def new_schema(server_url: str, prefix: str = "b") -> str:
    """A URL whose tables live in a new, empty schema of the server's database."""
    schema = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    options = quote(f"-csearch_path={schema},public", safe="")
    return f"{server_url}{'&' if '?' in server_url else '?'}options={options}"


class BulkLoader:
    """Writes batches of (item, vector) into the empty brain at ``url`` with COPY."""

    def __init__(self, url: str, model: str, dim: int) -> None:
        PostgresStore(url, max_connections=1).close()  # the schema, by the store's migrations
        self.url, self.model, self.dim = url, model, dim
        self.conn = psycopg.connect(url, autocommit=True)
        self.pk = 0
        self.stats: dict[str, list[int]] = {}
        self.seconds: dict[str, float] = {"copy": 0.0}
        self._keys, self._indexes = self._drop_keys()

    def _drop_keys(self) -> tuple[list[tuple[str, str, str]], list[str]]:
        """Drop the tables' constraints and indexes; return what rebuilds them."""
        keys = self.conn.execute(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) "
            "FROM pg_constraint WHERE (conrelid = ANY(%(t)s::regclass[]) "
            "OR confrelid = ANY(%(t)s::regclass[])) "
            "AND contype IN ('p', 'u', 'f') ORDER BY contype = 'f' DESC",
            {"t": list(_TABLES)},
        ).fetchall()
        indexes = self.conn.execute(
            "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i WHERE i.indrelid = "
            "ANY(%s::regclass[]) AND NOT EXISTS "
            "(SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)",
            (list(_TABLES),),
        ).fetchall()
        for table, name, _ in keys:
            self.conn.execute(f"ALTER TABLE {table} DROP CONSTRAINT {name}")
        for (definition,) in indexes:
            name = definition.split(" INDEX ", 1)[1].split(" ON ", 1)[0]
            self.conn.execute(f"DROP INDEX {name}")
        # Rebuilt keys first, then foreign keys (they need the keys), then the rest.
        return [tuple(k) for k in reversed(keys)], [d for (d,) in indexes]

    def add(self, batch: Sequence[tuple[Item, NDArray[np.float32]]]) -> None:
        t0 = time.perf_counter()
        now = utcnow()
        items, vectors, postings = [], [], []
        for item, vec in batch:
            self.pk += 1
            terms, length = document_terms(item.label, item.body)
            values = item_values(item)
            values["created_at"] = values["updated_at"] = now
            items.append((self.pk, *(values[c] for c in ITEM_COLUMNS), length, 1))
            where = f"{item.workspace}\t{item.storage_class}\t{item.scope}"
            vectors.append(_vector_row(self.pk, item, vec))
            prefix = f"{self.pk}\t{where}\t"
            # The analyzer's terms are letters and digits only: nothing to escape.
            postings += [f"{prefix}{term}\t{tf}\t{length}\n" for term, tf in terms.items()]
            st = self.stats.setdefault(item.storage_class, [0, 0])
            st[0] += 1
            st[1] += length
        cols = ", ".join(("pk", *ITEM_COLUMNS, "kw_len", "n_vectors"))
        with self.conn.transaction(), self.conn.cursor() as cur:
            with cur.copy(f"COPY items ({cols}) FROM STDIN") as copy:
                for row in items:
                    copy.write_row(row)
            with cur.copy(
                "COPY item_vectors (item_pk, n, workspace, class, scope, embedding) "
                "FROM STDIN (FORMAT BINARY)"
            ) as copy:
                copy.write(b"".join([_BINARY_HEAD, *vectors, _BINARY_TAIL]))
            with cur.copy(
                "COPY kw_postings (item_pk, workspace, class, scope, term, tf, dl) FROM STDIN"
            ) as copy:
                copy.write("".join(postings))
        self.seconds["copy"] += time.perf_counter() - t0

    def finish(self, workspace: str) -> dict[str, float]:
        """Rebuild keys and indexes, record the embedding space, build the HNSW indexes;
        return the seconds each step took."""
        c = self.conn
        t = time.perf_counter()
        for table, name, definition in self._keys:
            c.execute(f"ALTER TABLE {table} ADD CONSTRAINT {name} {definition}")
        for definition in self._indexes:
            c.execute(definition)
        c.execute("SELECT setval(pg_get_serial_sequence('items', 'pk'), %s)", (max(self.pk, 1),))
        for cls, (docs, tokens) in sorted(self.stats.items()):
            c.execute(
                "INSERT INTO kw_stats (workspace, class, docs, tokens) VALUES (%s, %s, %s, %s)",
                (workspace, cls, docs, tokens),
            )
        self.seconds["keys and btree indexes"] = time.perf_counter() - t
        t = time.perf_counter()
        c.execute(
            "INSERT INTO meta (key, value) VALUES ('embedding_dim', %s), ('embedding_model', %s)",
            (str(self.dim), self.model),
        )
        for sql in vector_index_sql(self.dim):
            c.execute(sql)
        self.seconds["hnsw indexes"] = time.perf_counter() - t
        t = time.perf_counter()
        c.execute("VACUUM ANALYZE")
        self.seconds["vacuum analyze"] = time.perf_counter() - t
        c.close()
        return dict(self.seconds)


_BINARY_HEAD = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_BINARY_TAIL = struct.pack(">h", -1)


def _vector_row(pk: int, item: Item, vec: NDArray[np.float32]) -> bytes:
    """One row of ``item_vectors`` in COPY's binary format; the vector as pgvector sends
    it (dimensions, then big-endian float32s), so every float arrives exact."""
    texts = [s.encode() for s in (item.workspace, item.storage_class, item.scope)]
    floats = np.asarray(vec, dtype=">f4").tobytes()
    return b"".join(
        [
            struct.pack(">hiqih", 6, 8, pk, 2, 0),
            *(struct.pack(">i", len(t)) + t for t in texts),
            struct.pack(">ihh", 4 + len(floats), len(floats) // 4, 0),
            floats,
        ]
    )
