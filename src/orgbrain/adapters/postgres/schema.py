"""Named, ordered, recorded migrations for the PostgreSQL store (its own set: the SQLite
store's are in ``adapters/sqlite/schema.py``).

Every migration runs in its own transaction under an advisory lock, so N servers and M
workers starting together over one database apply each migration once; each is recorded
in ``migrations`` with the time it was applied. Tables live in the connection's current
schema (``search_path``), so one database can hold several brains, one per schema. The
``vector`` extension is database-wide: the first migration creates it if it is missing
(managed PostgreSQL services allow that to the database owner), and it is best created
once by an administrator beforehand.

The vector indexes (HNSW, cosine, one per storage class) need the embedding dimension, so
``vector_index_sql`` builds them when the store learns it (``bind_embedder``).
"""

from __future__ import annotations

from ...errors import Unavailable
from ...model import STORAGE_CLASSES
from ..sql.outbox import OUTBOX_POSTGRES
from .db import Connection
from .rollups import ROLLUP_MIGRATION

__all__ = ["HNSW_MAX_DIM", "KW_IMPACT", "MIGRATIONS", "migrate", "vector_index_sql"]

KW_IMPACT = "(tf::real / (tf + 0.3 + 0.009 * dl)::real)"
"""A posting's impact, the order a term's postings are read in (``keywords.py``): BM25's
term-frequency part, tf / (tf + k1 (1 - b + b dl / avgdl)) with k1 1.2 and b 0.75, at a
fixed average length of 100 terms (the search scores with the real one). Written into
migration ``0011`` as it stands here; changing it needs a new migration."""

COVER_MAX_DIM = 600
"""Vectors of at most this many dimensions are copied into the ``item_vectors_visible``
btree (workspace, class, scope, with each row's item and vector), so an exact read of
what a reader may see is one range of one index; a btree entry holds at most about 2,700
bytes, so wider vectors are read from the table instead."""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_items_edges",
        """
        CREATE EXTENSION IF NOT EXISTS vector;
        CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL);
        CREATE TABLE items (
            pk bigserial PRIMARY KEY,
            id text NOT NULL UNIQUE,
            workspace text NOT NULL,
            kind text NOT NULL,
            class text NOT NULL,
            label text NOT NULL DEFAULT '',
            summary text NOT NULL DEFAULT '',
            body text NOT NULL DEFAULT '',
            source_key text NOT NULL,
            indexed boolean NOT NULL DEFAULT false,
            scope text NOT NULL DEFAULT 'org',
            origin_actor text NOT NULL,
            origin_source text NOT NULL,
            origin_run text,
            origin_at timestamptz NOT NULL,
            occurred_at timestamptz,
            blob_key text,
            text_key text,
            byte_start bigint,
            byte_end bigint,
            page_start integer,
            page_end integer,
            sheet text,
            heading_path text,
            canonical_type text,
            canonical_value text,
            parent_id text,
            ordinal integer,
            name text,
            media_type text,
            size bigint,
            content_hash text,
            index_error text,
            supersedes text,
            superseded_by text,
            tombstoned_at timestamptz,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            kw_len integer,
            n_vectors integer NOT NULL DEFAULT 0,
            UNIQUE (workspace, source_key)
        );
        CREATE INDEX items_ws_class ON items (workspace, class, indexed);
        CREATE INDEX items_parent ON items (workspace, parent_id);
        CREATE INDEX items_canonical ON items (workspace, canonical_value);
        CREATE INDEX items_run ON items (workspace, origin_run);
        CREATE TABLE edges (
            pk bigserial PRIMARY KEY,
            id text NOT NULL UNIQUE,
            workspace text NOT NULL,
            type text NOT NULL,
            src text NOT NULL,
            dst text NOT NULL,
            dedupe text NOT NULL DEFAULT '',
            props text NOT NULL DEFAULT '{}',
            origin_actor text NOT NULL,
            origin_source text NOT NULL,
            origin_run text,
            origin_at timestamptz NOT NULL,
            UNIQUE (workspace, type, src, dst, dedupe)
        );
        CREATE INDEX edges_src ON edges (workspace, src);
        CREATE INDEX edges_dst ON edges (workspace, dst);
        """,
    ),
    (
        # Sequence numbers are handed out under a per-workspace lock held to commit
        # (graphlog.py), so a reader of events after N never skips one committed late.
        "0002_events",
        """
        CREATE TABLE events (
            seq bigserial PRIMARY KEY,
            workspace text NOT NULL,
            kind text NOT NULL,
            at timestamptz NOT NULL,
            actor text,
            subject text,
            record text NOT NULL
        );
        CREATE INDEX events_ws_kind ON events (workspace, kind, seq);
        CREATE INDEX events_ws_seq ON events (workspace, seq);
        CREATE INDEX events_subject ON events (workspace, subject, seq);
        """,
    ),
    (
        # One row per vector of an answerable item (its own, then its passages'), with the
        # columns a search filters on, so a filtered search reads one table. HNSW indexes
        # over it come with the dimension (vector_index_sql).
        "0003_item_vectors",
        """
        CREATE TABLE item_vectors (
            item_pk bigint NOT NULL REFERENCES items (pk) ON DELETE CASCADE,
            n smallint NOT NULL,
            workspace text NOT NULL,
            class text NOT NULL,
            scope text NOT NULL,
            embedding vector NOT NULL,
            PRIMARY KEY (item_pk, n)
        );
        CREATE INDEX item_vectors_filter ON item_vectors (workspace, class, scope);
        """,
    ),
    (
        # BM25 in SQL (keywords.py): the postings of answerable items (term frequency,
        # document length and scope beside each, so a search reads one index), and the
        # document count and length per workspace and class as rows of deltas that add up
        # (no row every writer must lock); a search folds them together now and then.
        "0004_keywords",
        """
        CREATE TABLE kw_postings (
            item_pk bigint NOT NULL REFERENCES items (pk) ON DELETE CASCADE,
            term text NOT NULL,
            workspace text NOT NULL,
            class text NOT NULL,
            scope text NOT NULL,
            tf integer NOT NULL,
            dl integer NOT NULL,
            PRIMARY KEY (item_pk, term)
        );
        CREATE INDEX kw_postings_term ON kw_postings (term, workspace, class)
            INCLUDE (item_pk, tf, dl, scope);
        CREATE TABLE kw_stats (
            id bigserial PRIMARY KEY,
            workspace text NOT NULL,
            class text NOT NULL,
            docs bigint NOT NULL,
            tokens bigint NOT NULL
        );
        CREATE INDEX kw_stats_ws ON kw_stats (workspace, class);
        """,
    ),
    (
        "0005_jobs",
        """
        CREATE TABLE jobs (
            pk bigserial PRIMARY KEY,
            id text NOT NULL UNIQUE,
            workspace text NOT NULL,
            kind text NOT NULL,
            key text NOT NULL,
            subject text,
            actor text NOT NULL,
            payload text NOT NULL DEFAULT '{}',
            state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
            attempts integer NOT NULL DEFAULT 0,
            max_attempts integer NOT NULL,
            run_after timestamptz NOT NULL,
            lease_owner text,
            lease_until timestamptz,
            last_error text,
            created_at timestamptz NOT NULL,
            updated_at timestamptz NOT NULL,
            finished_at timestamptz,
            UNIQUE (workspace, key)
        );
        CREATE INDEX jobs_ready ON jobs (state, kind, run_after);
        CREATE INDEX jobs_ws ON jobs (workspace, state, pk);
        """,
    ),
    (
        "0006_statements",
        """
        CREATE TABLE statements (
            pk bigserial PRIMARY KEY,
            id text NOT NULL UNIQUE,
            workspace text NOT NULL,
            type text NOT NULL,
            subject_id text NOT NULL,
            subject text NOT NULL,
            predicate text NOT NULL,
            object text NOT NULL,
            object_norm text NOT NULL,
            object_id text,
            scope text NOT NULL,
            item_id text NOT NULL,
            byte_start bigint,
            byte_end bigint,
            text text NOT NULL,
            tier text NOT NULL,
            confidence double precision NOT NULL,
            valid_from timestamptz NOT NULL,
            valid_to timestamptz,
            superseded_by text,
            replaces text,
            conflicts text NOT NULL DEFAULT '[]',
            origin_actor text NOT NULL,
            origin_source text NOT NULL,
            origin_run text,
            origin_at timestamptz NOT NULL
        );
        CREATE INDEX statements_subject ON statements (workspace, subject_id, predicate);
        CREATE INDEX statements_object ON statements (workspace, object_id);
        CREATE TABLE statement_evidence (
            pk bigserial PRIMARY KEY,
            workspace text NOT NULL,
            statement_id text NOT NULL,
            item_id text NOT NULL,
            byte_start bigint NOT NULL,
            byte_end bigint,
            text text NOT NULL,
            tier text NOT NULL,
            confidence double precision NOT NULL,
            at timestamptz NOT NULL,
            UNIQUE (statement_id, item_id, byte_start)
        );
        CREATE INDEX statement_evidence_item ON statement_evidence (workspace, item_id);
        """,
    ),
    (
        "0007_item_versions",
        """
        CREATE TABLE item_versions (
            pk bigserial PRIMARY KEY,
            workspace text NOT NULL,
            item_id text NOT NULL,
            number integer NOT NULL,
            label text NOT NULL,
            body text NOT NULL,
            summary text NOT NULL,
            blob_key text,
            text_key text,
            content_hash text,
            size bigint,
            media_type text,
            name text,
            occurred_at timestamptz,
            origin_actor text NOT NULL,
            origin_source text NOT NULL,
            origin_run text,
            origin_at timestamptz NOT NULL,
            replaced_at timestamptz NOT NULL,
            UNIQUE (workspace, item_id, number)
        );
        """,
    ),
    (
        "0008_proposals",
        """
        CREATE TABLE proposals (
            pk bigserial PRIMARY KEY,
            id text NOT NULL UNIQUE,
            workspace text NOT NULL,
            run_id text NOT NULL,
            actor text NOT NULL,
            kind text NOT NULL,
            label text NOT NULL,
            body text NOT NULL,
            scope text NOT NULL,
            confidence double precision NOT NULL,
            sensitivity text NOT NULL,
            evidence text NOT NULL,
            supersedes text NOT NULL,
            state text NOT NULL,
            reason text NOT NULL,
            writer text NOT NULL,
            item_id text,
            decided_by text,
            decided_at timestamptz,
            review_reason text,
            created_at timestamptz NOT NULL
        );
        CREATE INDEX proposals_state ON proposals (workspace, state, pk);
        CREATE INDEX proposals_run ON proposals (workspace, run_id, pk);
        """,
    ),
    (
        # The loop's counts (``event_counts``) read one kind over a window of time.
        "0009_event_times",
        """
        CREATE INDEX events_ws_kind_at ON events (workspace, kind, at);
        """,
    ),
    (
        # A reader's own counts (stats, the web UI's health page) read only its events.
        "0010_event_actors",
        """
        CREATE INDEX events_ws_kind_actor_at ON events (workspace, kind, actor, at);
        """,
    ),
    (
        # Keyword search reads each query term's postings best first, a bounded number of
        # them (keywords.py): an index in impact order (KW_IMPACT) replaces the one by
        # term, and the document frequencies of common terms are remembered in kw_df.
        "0011_keyword_impacts",
        """
        CREATE INDEX kw_postings_impact ON kw_postings
            (workspace, class, term, (tf::real / (tf + 0.3 + 0.009 * dl)::real) DESC)
            INCLUDE (item_pk, scope, tf, dl);
        DROP INDEX kw_postings_term;
        CREATE TABLE kw_df (
            workspace text NOT NULL,
            class text NOT NULL,
            term text NOT NULL,
            df bigint NOT NULL,
            docs bigint NOT NULL,
            counted_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (workspace, class, term)
        );
        """,
    ),
    (
        # The exact read of a filtered vector search (vectors.py) reads only the reader's
        # rows, in one index, when a vector fits in a btree entry (vector_index_sql).
        "0012_vectors_by_scope",
        """
        DO $$
        BEGIN
            IF (SELECT value::int FROM meta WHERE key = 'embedding_dim') <= """
        + str(COVER_MAX_DIM)
        + """ THEN
                CREATE INDEX item_vectors_visible ON item_vectors (workspace, class, scope)
                    INCLUDE (item_pk, embedding);
            END IF;
        END
        $$;
        """,
    ),
    ROLLUP_MIGRATION,  # running counts of the loop's events (rollups.py)
    (
        # An item's keys: keyword-only text (a conversation turn's neighbours' words,
        # graph/context_keys.py), posted with its label and body (keywords.py) but never
        # returned, cited or embedded. The one-off pass that fills them for brains written
        # before is run on open (mark:context_keys).
        "0014_context_keys",
        """
        ALTER TABLE items ADD COLUMN keys text NOT NULL DEFAULT '';
        INSERT INTO meta (key, value) VALUES ('mark:context_keys', 'pending')
            ON CONFLICT (key) DO NOTHING;
        """,
    ),
    (
        # A search hit says which of its statements a newer item replaced and which older
        # statements it replaced (retrieve/replacements.py): both directions of the
        # supersession links, read by ``superseded_by``.
        "0015_statement_links",
        """
        CREATE INDEX statements_successor ON statements (workspace, superseded_by);
        """,
    ),
    (
        # Brains recorded only the model and dimension of their first embedder; the
        # embedding space (space.py) adds its prefixes (none, for every model before this).
        "0016_embedding_space",
        """
        INSERT INTO meta (key, value)
            SELECT 'embedding_space', json_build_object(
                'model', coalesce((SELECT value FROM meta WHERE key = 'embedding_model'), ''),
                'dim', value::int, 'query_prefix', '', 'passage_prefix', '')::text
            FROM meta WHERE key = 'embedding_dim'
            ON CONFLICT (key) DO NOTHING;
        DELETE FROM meta WHERE key = 'embedding_model';
        """,
    ),
    OUTBOX_POSTGRES,  # work a write owes, committed with it (sql/outbox.py)
)

HNSW_MAX_DIM = 2000
"""pgvector's HNSW indexes ``vector`` columns of at most this many dimensions; past it the
store searches exactly (no index)."""


def vector_index_sql(dim: int) -> list[str]:
    """One HNSW (cosine) index per storage class over the ``dim``-dimensional vectors, and
    the covering btree for exact reads (``COVER_MAX_DIM``)."""
    cover = (
        [
            "CREATE INDEX IF NOT EXISTS item_vectors_visible ON item_vectors "
            "(workspace, class, scope) INCLUDE (item_pk, embedding)"
        ]
        if dim <= COVER_MAX_DIM
        else []
    )
    if dim > HNSW_MAX_DIM:
        return cover
    return cover + [
        f"CREATE INDEX IF NOT EXISTS item_vectors_hnsw_{cls} ON item_vectors "
        f"USING hnsw ((embedding::vector({dim})) vector_cosine_ops) WHERE class = '{cls}'"
        for cls in STORAGE_CLASSES
    ]


def migrate(
    conn: Connection,
    migrations: tuple[tuple[str, str], ...] = MIGRATIONS,
) -> list[str]:
    """Apply pending migrations in order, each in its own transaction; return their names.

    Other parts sharing the database (API keys) pass their own named list; all are
    recorded in one ``migrations`` table of the current schema.
    """
    if read_only(conn):
        _check_applied(conn, [name for name, _ in migrations])
        return []
    lock = "SELECT pg_advisory_xact_lock(hashtext('orgbrain-migrate:' || current_schema()))"
    # A migration runs once, at start, on a connection of its own: the store's statement
    # timeout is for requests, not for building an index over a grown table.
    conn.execute("SET statement_timeout = 0")
    with conn.transaction():
        conn.execute(lock)
        conn.execute(
            "CREATE TABLE IF NOT EXISTS migrations "
            "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
    applied = []
    for name, sql in migrations:
        with conn.transaction():
            conn.execute(lock)
            if conn.execute("SELECT 1 FROM migrations WHERE name = %s", (name,)).fetchone():
                continue
            conn.execute(sql.encode())
            conn.execute("INSERT INTO migrations (name) VALUES (%s)", (name,))
        applied.append(name)
    return applied


def read_only(conn: Connection) -> bool:
    """Whether this connection's database takes no writes: a hot standby (a streaming
    replica) or a session set read only."""
    row = conn.execute("SELECT current_setting('transaction_read_only') AS ro").fetchone()
    return row is not None and row["ro"] == "on"


def _check_applied(conn: Connection, names: list[str]) -> None:
    """On a read-only database nothing can be migrated: every migration must already be
    there (the primary applies them), or the store refuses to open, saying which."""
    with conn.transaction():
        table = conn.execute("SELECT to_regclass('migrations') AS t").fetchone()
        have = (
            {r["name"] for r in conn.execute("SELECT name FROM migrations")}
            if table is not None and table["t"] is not None
            else set()
        )
    missing = [n for n in names if n not in have]
    if missing:
        raise Unavailable(
            f"the database is read only (a replica?) and lacks {len(missing)} migration(s), "
            f"first {missing[0]}: open the primary with this version first, then the replica"
        )
