"""Named, ordered, recorded migrations for the SQLite store."""

from __future__ import annotations

import sqlite3

from ..sql.outbox import OUTBOX_SQLITE
from .moves import SPACE_MIGRATION
from .rollups import ROLLUP_MIGRATION

__all__ = ["MIGRATIONS", "migrate"]

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_items_edges",
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE items (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            workspace TEXT NOT NULL,
            kind TEXT NOT NULL,
            class TEXT NOT NULL,
            label TEXT NOT NULL DEFAULT '',
            summary TEXT NOT NULL DEFAULT '',
            body TEXT NOT NULL DEFAULT '',
            source_key TEXT NOT NULL,
            indexed INTEGER NOT NULL DEFAULT 0,
            scope TEXT NOT NULL DEFAULT 'org',
            origin_actor TEXT NOT NULL,
            origin_source TEXT NOT NULL,
            origin_run TEXT,
            origin_at TEXT NOT NULL,
            occurred_at TEXT,
            blob_key TEXT,
            text_key TEXT,
            byte_start INTEGER,
            byte_end INTEGER,
            page_start INTEGER,
            page_end INTEGER,
            sheet TEXT,
            heading_path TEXT,
            canonical_type TEXT,
            canonical_value TEXT,
            parent_id TEXT,
            ordinal INTEGER,
            name TEXT,
            media_type TEXT,
            size INTEGER,
            content_hash TEXT,
            index_error TEXT,
            supersedes TEXT,
            superseded_by TEXT,
            tombstoned_at TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            embedding BLOB,
            vec_seq INTEGER NOT NULL DEFAULT 0,
            UNIQUE (workspace, source_key)
        );
        CREATE INDEX items_ws_class ON items (workspace, class, indexed);
        CREATE INDEX items_parent ON items (workspace, parent_id);
        CREATE INDEX items_vec_seq ON items (vec_seq);
        CREATE INDEX items_canonical ON items (workspace, canonical_type, canonical_value);
        CREATE TABLE vec_deleted (seq INTEGER PRIMARY KEY, workspace TEXT NOT NULL,
                                  item_rowid INTEGER NOT NULL);
        CREATE VIRTUAL TABLE items_fts USING fts5 (
            label, body, content='items', content_rowid='rowid',
            tokenize='porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER items_fts_insert AFTER INSERT ON items BEGIN
            INSERT INTO items_fts (rowid, label, body) VALUES (new.rowid, new.label, new.body);
        END;
        CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN
            INSERT INTO items_fts (items_fts, rowid, label, body)
            VALUES ('delete', old.rowid, old.label, old.body);
        END;
        CREATE TRIGGER items_fts_update AFTER UPDATE OF label, body ON items BEGIN
            INSERT INTO items_fts (items_fts, rowid, label, body)
            VALUES ('delete', old.rowid, old.label, old.body);
            INSERT INTO items_fts (rowid, label, body) VALUES (new.rowid, new.label, new.body);
        END;
        CREATE TABLE edges (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            workspace TEXT NOT NULL,
            type TEXT NOT NULL,
            src TEXT NOT NULL,
            dst TEXT NOT NULL,
            dedupe TEXT NOT NULL DEFAULT '',
            props TEXT NOT NULL DEFAULT '{}',
            origin_actor TEXT NOT NULL,
            origin_source TEXT NOT NULL,
            origin_run TEXT,
            origin_at TEXT NOT NULL,
            UNIQUE (workspace, type, src, dst, dedupe)
        );
        CREATE INDEX edges_src ON edges (workspace, src);
        CREATE INDEX edges_dst ON edges (workspace, dst);
        """,
    ),
    (
        "0002_events",
        """
        CREATE TABLE events (
            rowid INTEGER PRIMARY KEY,
            workspace TEXT NOT NULL,
            kind TEXT NOT NULL,
            at TEXT NOT NULL,
            actor TEXT,
            record TEXT NOT NULL
        );
        CREATE INDEX events_ws_kind ON events (workspace, kind, rowid);
        """,
    ),
    (
        # Keyword search filters inside FTS5: workspace, class and scope are indexed as
        # opaque tokens ('x' + hex of the value), and only answerable rows are indexed, so
        # a stream's top-k is found by the full-text engine itself, with no join to filter.
        "0003_fts_filtered",
        """
        DROP TRIGGER items_fts_insert;
        DROP TRIGGER items_fts_delete;
        DROP TRIGGER items_fts_update;
        DROP TABLE items_fts;
        CREATE VIRTUAL TABLE items_fts USING fts5 (
            ws, cls, sc, label, body, content='',
            tokenize='porter unicode61 remove_diacritics 2'
        );
        INSERT INTO items_fts (rowid, ws, cls, sc, label, body)
            SELECT rowid,
                'x' || hex(items.workspace), 'x' || hex(items.class), 'x' || hex(items.scope),
                items.label, items.body
            FROM items WHERE indexed = 1 AND tombstoned_at IS NULL;
        CREATE TRIGGER items_fts_insert AFTER INSERT ON items BEGIN
            INSERT INTO items_fts (rowid, ws, cls, sc, label, body)
            SELECT new.rowid,
                'x' || hex(new.workspace), 'x' || hex(new.class), 'x' || hex(new.scope),
                new.label, new.body
            WHERE new.indexed = 1 AND new.tombstoned_at IS NULL;
        END;
        CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN
            INSERT INTO items_fts (items_fts, rowid, ws, cls, sc, label, body)
            SELECT 'delete', old.rowid,
                'x' || hex(old.workspace), 'x' || hex(old.class), 'x' || hex(old.scope),
                old.label, old.body
            WHERE old.indexed = 1 AND old.tombstoned_at IS NULL;
        END;
        CREATE TRIGGER items_fts_update
        AFTER UPDATE OF workspace, class, scope, label, body, indexed, tombstoned_at ON items
        BEGIN
            INSERT INTO items_fts (items_fts, rowid, ws, cls, sc, label, body)
            SELECT 'delete', old.rowid,
                'x' || hex(old.workspace), 'x' || hex(old.class), 'x' || hex(old.scope),
                old.label, old.body
            WHERE old.indexed = 1 AND old.tombstoned_at IS NULL;
            INSERT INTO items_fts (rowid, ws, cls, sc, label, body)
            SELECT new.rowid,
                'x' || hex(new.workspace), 'x' || hex(new.class), 'x' || hex(new.scope),
                new.label, new.body
            WHERE new.indexed = 1 AND new.tombstoned_at IS NULL;
        END;
        """,
    ),
    (
        # The derived keyword index (keywords.py) catches up from SQLite rows: every change
        # to an answerable row's searchable fields stamps the row in kw_changes with a
        # fresh kw_seq, as vec_seq does for embeddings, so a catch-up reads only what
        # changed since its last look, in this process or another.
        "0004_keyword_changes",
        """
        INSERT OR IGNORE INTO meta (key, value) VALUES ('kw_seq', '0');
        CREATE TABLE kw_changes (
            item_rowid INTEGER PRIMARY KEY,
            workspace TEXT NOT NULL,
            seq INTEGER NOT NULL
        );
        CREATE INDEX kw_changes_seq ON kw_changes (workspace, seq);
        CREATE TRIGGER kw_changes_insert AFTER INSERT ON items
        WHEN (new.indexed = 1 AND new.tombstoned_at IS NULL)
        BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'kw_seq';
            INSERT OR REPLACE INTO kw_changes (item_rowid, workspace, seq) VALUES (new.rowid,
                new.workspace, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'kw_seq'));
        END;
        CREATE TRIGGER kw_changes_delete AFTER DELETE ON items
        WHEN (old.indexed = 1 AND old.tombstoned_at IS NULL)
        BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'kw_seq';
            INSERT OR REPLACE INTO kw_changes (item_rowid, workspace, seq) VALUES (old.rowid,
                old.workspace, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'kw_seq'));
        END;
        CREATE TRIGGER kw_changes_update
        AFTER UPDATE OF class, scope, label, body, indexed, tombstoned_at ON items
        WHEN ((old.indexed = 1 AND old.tombstoned_at IS NULL)
            OR (new.indexed = 1 AND new.tombstoned_at IS NULL))
        AND (old.class IS NOT new.class
            OR old.scope IS NOT new.scope OR old.label IS NOT new.label
            OR old.body IS NOT new.body OR old.indexed IS NOT new.indexed
            OR old.tombstoned_at IS NOT new.tombstoned_at)
        BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'kw_seq';
            INSERT OR REPLACE INTO kw_changes (item_rowid, workspace, seq) VALUES (new.rowid,
                new.workspace, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'kw_seq'));
        END;
        """,
    ),
    (
        # Durable background jobs (adapters/sqlite/jobs.py): in the brain's own file, so
        # every process over it sees one queue. Times are fixed-width UTC ISO text, so
        # comparing the strings compares the times.
        "0005_jobs",
        """
        CREATE TABLE jobs (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            workspace TEXT NOT NULL,
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            subject TEXT,
            actor TEXT NOT NULL,
            payload TEXT NOT NULL DEFAULT '{}',
            state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            max_attempts INTEGER NOT NULL,
            run_after TEXT NOT NULL,
            lease_owner TEXT,
            lease_until TEXT,
            last_error TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            finished_at TEXT,
            UNIQUE (workspace, key)
        );
        CREATE INDEX jobs_ready ON jobs (state, kind, run_after);
        CREATE INDEX jobs_ws ON jobs (workspace, state, rowid);
        """,
    ),
    (
        "0006_scoped_source_keys",
        """
        UPDATE items SET source_key = '@' || scope || '/' || source_key
        WHERE scope <> 'org' AND substr(source_key, 1, length(scope) + 2) <> '@' || scope || '/';
        """,
    ),
    (
        # Before the jobs table, the server logged each index request as an event and
        # re-queued on startup those still unindexed and unchanged since (the newest
        # request per file decides). Those become queued jobs here, so an upgrade loses no
        # acknowledged request; their key is the one jobs/index.py gives the same bytes.
        "0007_index_requests_to_jobs",
        """
        WITH asked AS (
            SELECT workspace, json_extract(record, '$.item_id') AS item_id,
                max(rowid) AS last
            FROM events WHERE kind = 'index_request' GROUP BY 1, 2
        )
        INSERT OR IGNORE INTO jobs (id, workspace, kind, key, subject, actor, payload, state,
            max_attempts, run_after, created_at, updated_at)
        SELECT 'job_' || lower(hex(randomblob(10))), i.workspace, 'index',
            'index:' || i.id || ':' || coalesce(i.content_hash, '-') || ':' || i.scope,
            i.id, coalesce(e.actor, 'human:local'),
            json_object(
                'workspace', i.workspace, 'item_id', i.id, 'content_hash', i.content_hash,
                'scope', i.scope, 'actor', coalesce(e.actor, 'human:local'),
                'user_id', json_extract(e.record, '$.user_id'),
                'team_ids', json(coalesce(json_extract(e.record, '$.team_ids'), '[]')),
                'agent', json(CASE WHEN json_extract(e.record, '$.agent')
                    THEN 'true' ELSE 'false' END)
            ),
            'queued', 8,
            strftime('%Y-%m-%dT%H:%M:%S', 'now') || '.000000+00:00',
            strftime('%Y-%m-%dT%H:%M:%S', 'now') || '.000000+00:00',
            strftime('%Y-%m-%dT%H:%M:%S', 'now') || '.000000+00:00'
        FROM asked a
        JOIN events e ON e.rowid = a.last
        JOIN items i ON i.workspace = a.workspace AND i.id = a.item_id
        WHERE i.class = 'file' AND i.indexed = 0 AND i.tombstoned_at IS NULL
            AND julianday(i.updated_at) <= julianday(e.at);
        """,
    ),
    (
        # The typed graph's statements (model.Statement) and the places that state them;
        # an event may name the item it is about, so an item's story is one indexed read.
        "0008_statements",
        """
        CREATE TABLE statements (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            workspace TEXT NOT NULL,
            type TEXT NOT NULL,
            subject_id TEXT NOT NULL,
            subject TEXT NOT NULL,
            predicate TEXT NOT NULL,
            object TEXT NOT NULL,
            object_norm TEXT NOT NULL,
            object_id TEXT,
            scope TEXT NOT NULL,
            item_id TEXT NOT NULL,
            byte_start INTEGER,
            byte_end INTEGER,
            text TEXT NOT NULL,
            tier TEXT NOT NULL,
            confidence REAL NOT NULL,
            valid_from TEXT NOT NULL,
            valid_to TEXT,
            superseded_by TEXT,
            replaces TEXT,
            conflicts TEXT NOT NULL DEFAULT '[]',
            origin_actor TEXT NOT NULL,
            origin_source TEXT NOT NULL,
            origin_run TEXT,
            origin_at TEXT NOT NULL
        );
        CREATE INDEX statements_subject ON statements (workspace, subject_id, predicate);
        CREATE INDEX statements_object ON statements (workspace, object_id);
        CREATE TABLE statement_evidence (
            rowid INTEGER PRIMARY KEY,
            workspace TEXT NOT NULL,
            statement_id TEXT NOT NULL,
            item_id TEXT NOT NULL,
            byte_start INTEGER,
            byte_end INTEGER,
            text TEXT NOT NULL,
            tier TEXT NOT NULL,
            confidence REAL NOT NULL,
            at TEXT NOT NULL,
            UNIQUE (statement_id, item_id, byte_start)
        );
        CREATE INDEX statement_evidence_item ON statement_evidence (workspace, item_id);
        CREATE INDEX items_canonical_value ON items (workspace, canonical_value);
        CREATE INDEX items_run ON items (workspace, origin_run);
        ALTER TABLE events ADD COLUMN subject TEXT;
        CREATE INDEX events_subject ON events (workspace, subject, rowid);
        """,
    ),
    (
        # Writing a source key again never loses what it held: the row keeps the newest
        # content and each previous one is copied here, in the same transaction, numbered
        # from 1 per item (versions.py). A file version's blobs stay where they were.
        "0009_item_versions",
        """
        CREATE TABLE item_versions (
            rowid INTEGER PRIMARY KEY,
            workspace TEXT NOT NULL,
            item_id TEXT NOT NULL,
            number INTEGER NOT NULL,
            label TEXT NOT NULL,
            body TEXT NOT NULL,
            summary TEXT NOT NULL,
            blob_key TEXT,
            text_key TEXT,
            content_hash TEXT,
            size INTEGER,
            media_type TEXT,
            name TEXT,
            occurred_at TEXT,
            origin_actor TEXT NOT NULL,
            origin_source TEXT NOT NULL,
            origin_run TEXT,
            origin_at TEXT NOT NULL,
            replaced_at TEXT NOT NULL,
            UNIQUE (workspace, item_id, number)
        );
        """,
    ),
    (
        # Write-back proposals: apart from items, so that no read of items (search,
        # injection, listing, the graph) can ever meet a pending one. A proposal's id is
        # a digest of its run and text, so a retried pass finds the ones it made.
        "0010_proposals",
        """
        CREATE TABLE proposals (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            workspace TEXT NOT NULL,
            run_id TEXT NOT NULL,
            actor TEXT NOT NULL,
            kind TEXT NOT NULL,
            label TEXT NOT NULL,
            body TEXT NOT NULL,
            scope TEXT NOT NULL,
            confidence REAL NOT NULL,
            sensitivity TEXT NOT NULL,
            evidence TEXT NOT NULL,
            supersedes TEXT NOT NULL,
            state TEXT NOT NULL,
            reason TEXT NOT NULL,
            writer TEXT NOT NULL,
            item_id TEXT,
            decided_by TEXT,
            decided_at TEXT,
            review_reason TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX proposals_state ON proposals (workspace, state, rowid);
        CREATE INDEX proposals_run ON proposals (workspace, run_id, rowid);
        """,
    ),
    (
        # The loop's counts (orgbrain stats) read one kind of event since a time.
        "0011_event_times",
        """
        CREATE INDEX events_ws_kind_at ON events (workspace, kind, at);
        """,
    ),
    (
        # A reader's own counts (stats: its searches, the web UI's health page) read only
        # its own events.
        "0012_event_actors",
        """
        CREATE INDEX events_ws_kind_actor_at ON events (workspace, kind, actor, at);
        """,
    ),
    ROLLUP_MIGRATION,  # running counts of the loop's events (rollups.py)
    (
        # An item's keys: keyword-only text (a conversation turn's neighbours' words,
        # graph/context_keys.py), searched with its label and body but never returned,
        # cited or embedded. A change to them stamps kw_changes like the body's, and FTS5
        # reads them as part of the body. The one-off pass that fills them for brains
        # written before is run on open (mark:context_keys).
        "0014_context_keys",
        """
        ALTER TABLE items ADD COLUMN keys TEXT NOT NULL DEFAULT '';
        DROP TRIGGER kw_changes_update;
        CREATE TRIGGER kw_changes_update
        AFTER UPDATE OF class, scope, label, body, keys, indexed, tombstoned_at ON items
        WHEN ((old.indexed = 1 AND old.tombstoned_at IS NULL)
            OR (new.indexed = 1 AND new.tombstoned_at IS NULL))
        AND (old.class IS NOT new.class
            OR old.scope IS NOT new.scope OR old.label IS NOT new.label
            OR old.body IS NOT new.body OR old.keys IS NOT new.keys
            OR old.indexed IS NOT new.indexed
            OR old.tombstoned_at IS NOT new.tombstoned_at)
        BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'kw_seq';
            INSERT OR REPLACE INTO kw_changes (item_rowid, workspace, seq) VALUES (new.rowid,
                new.workspace, (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'kw_seq'));
        END;
        DROP TRIGGER items_fts_insert;
        DROP TRIGGER items_fts_delete;
        DROP TRIGGER items_fts_update;
        CREATE TRIGGER items_fts_insert AFTER INSERT ON items BEGIN
            INSERT INTO items_fts (rowid, ws, cls, sc, label, body)
            SELECT new.rowid,
                'x' || hex(new.workspace), 'x' || hex(new.class), 'x' || hex(new.scope),
                new.label, new.body || iif(new.keys = '', '', char(10) || new.keys)
            WHERE new.indexed = 1 AND new.tombstoned_at IS NULL;
        END;
        CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN
            INSERT INTO items_fts (items_fts, rowid, ws, cls, sc, label, body)
            SELECT 'delete', old.rowid,
                'x' || hex(old.workspace), 'x' || hex(old.class), 'x' || hex(old.scope),
                old.label, old.body || iif(old.keys = '', '', char(10) || old.keys)
            WHERE old.indexed = 1 AND old.tombstoned_at IS NULL;
        END;
        CREATE TRIGGER items_fts_update
        AFTER UPDATE OF workspace, class, scope, label, body, keys, indexed, tombstoned_at
        ON items
        BEGIN
            INSERT INTO items_fts (items_fts, rowid, ws, cls, sc, label, body)
            SELECT 'delete', old.rowid,
                'x' || hex(old.workspace), 'x' || hex(old.class), 'x' || hex(old.scope),
                old.label, old.body || iif(old.keys = '', '', char(10) || old.keys)
            WHERE old.indexed = 1 AND old.tombstoned_at IS NULL;
            INSERT INTO items_fts (rowid, ws, cls, sc, label, body)
            SELECT new.rowid,
                'x' || hex(new.workspace), 'x' || hex(new.class), 'x' || hex(new.scope),
                new.label, new.body || iif(new.keys = '', '', char(10) || new.keys)
            WHERE new.indexed = 1 AND new.tombstoned_at IS NULL;
        END;
        INSERT OR IGNORE INTO meta (key, value) VALUES ('mark:context_keys', 'pending');
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
        # Every change of an items row moves item_seq, so a reader holding items in memory
        # (itemcache.py) knows with one look whether they are still the file's.
        "0016_item_seq",
        """
        INSERT OR IGNORE INTO meta (key, value) VALUES ('item_seq', '0');
        CREATE TRIGGER item_seq_insert AFTER INSERT ON items BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'item_seq';
        END;
        CREATE TRIGGER item_seq_update AFTER UPDATE ON items BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'item_seq';
        END;
        CREATE TRIGGER item_seq_delete AFTER DELETE ON items BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'item_seq';
        END;
        """,
    ),
    SPACE_MIGRATION,  # the brain's embedding space, and a move's new vectors (moves.py)
    OUTBOX_SQLITE,  # work a write owes, committed with it (sql/outbox.py)
)


def migrate(
    conn: sqlite3.Connection, migrations: tuple[tuple[str, str], ...] = MIGRATIONS
) -> list[str]:
    """Apply pending migrations in order, each in its own transaction; return their names.

    Other modules sharing the database file (API keys, say) pass their own named list;
    all are recorded in one ``migrations`` table.
    """
    conn.execute(
        "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    done = {r[0] for r in conn.execute("SELECT name FROM migrations")}
    applied = []
    for name, sql in migrations:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("ROLLBACK")
                continue
            for statement in _statements(sql):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO migrations (name, applied_at) VALUES (?, datetime('now'))", (name,)
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(name)
    return applied


def _statements(sql: str) -> list[str]:
    """Split a migration script into statements, keeping trigger bodies whole."""
    out: list[str] = []
    buf = ""
    for line in sql.strip().splitlines():
        buf += line + "\n"
        if sqlite3.complete_statement(buf):
            out.append(buf.strip())
            buf = ""
    if buf.strip():
        out.append(buf.strip())
    return out
