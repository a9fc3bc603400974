"""API keys in the PostgreSQL database, under their own named migrations, so every server
over the database knows every key. Never joined with the brain's tables."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ...errors import InvalidInput, NotFound
from ...keys import PERMISSIONS, ApiKey, Permission, StoredKey
from .db import DEFAULT_TIMEOUT_S, Database
from .schema import migrate

__all__ = ["KEY_MIGRATIONS", "PostgresKeyStore"]

KEY_MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "keys_0001_api_keys",
        """
        CREATE TABLE api_keys (
            id text PRIMARY KEY,
            workspace text NOT NULL,
            user_id text NOT NULL,
            team_ids text NOT NULL DEFAULT '[]',
            agent boolean NOT NULL DEFAULT false,
            permissions text NOT NULL,
            label text NOT NULL DEFAULT '',
            secret_hash text NOT NULL,
            created_at timestamptz NOT NULL,
            revoked_at timestamptz
        );
        CREATE INDEX api_keys_workspace ON api_keys (workspace, created_at);
        """,
    ),
    (
        # The web UI's signed-out sessions (docs/ui.md): every server over this database
        # refuses them; a row is forgotten once its session would have expired anyway.
        "keys_0002_ended_sessions",
        """
        CREATE TABLE ended_sessions (
            id text PRIMARY KEY,
            key_id text NOT NULL,
            until timestamptz NOT NULL
        );
        CREATE INDEX ended_sessions_until ON ended_sessions (until);
        """,
    ),
)


class PostgresKeyStore:
    """``KeyStore`` over the PostgreSQL database at ``url``: lookups are primary-key reads."""

    def __init__(self, url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.url = url
        self._db = Database(url, timeout_s=timeout_s, max_size=4, what="key store")
        conn = self._db.connect()
        try:
            migrate(conn, KEY_MIGRATIONS)
        finally:
            conn.close()
        self._db.open()

    def add(self, key: ApiKey, secret_hash: str) -> ApiKey:
        with self._db.tx() as conn:
            row = conn.execute(
                "INSERT INTO api_keys (id, workspace, user_id, team_ids, agent, permissions, "
                "label, secret_hash, created_at, revoked_at) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (id) DO NOTHING RETURNING id",
                (
                    key.id,
                    key.workspace,
                    key.user_id,
                    json.dumps(sorted(key.team_ids)),
                    key.agent,
                    ",".join(sorted(key.permissions)),
                    key.label,
                    secret_hash,
                    key.created_at,
                    key.revoked_at,
                ),
            ).fetchone()
        if row is None:
            raise InvalidInput(f"key id {key.id} exists")
        return key

    def find(self, key_id: str) -> StoredKey | None:
        with self._db.read() as conn:
            row = conn.execute("SELECT * FROM api_keys WHERE id = %s", (key_id,)).fetchone()
        return None if row is None else StoredKey(_key_from_row(row), row["secret_hash"])

    def list_keys(self, workspace: str | None = None) -> list[ApiKey]:
        sql, params = "SELECT * FROM api_keys", []
        if workspace is not None:
            sql, params = sql + " WHERE workspace = %s", [workspace]
        with self._db.read() as conn:
            rows = conn.execute(sql + " ORDER BY created_at, id", params).fetchall()
        return [_key_from_row(r) for r in rows]

    def revoke(self, key_id: str, at: datetime) -> ApiKey:
        with self._db.tx() as conn:
            row = conn.execute(
                "UPDATE api_keys SET revoked_at = coalesce(revoked_at, %s) WHERE id = %s "
                "RETURNING *",
                (at, key_id),
            ).fetchone()
        if row is None:
            raise NotFound(f"no key {key_id}")
        return _key_from_row(row)

    def workspaces(self) -> list[str]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT DISTINCT workspace FROM api_keys").fetchall()
        return sorted(r["workspace"] for r in rows)

    def end_session(self, session_id: str, key_id: str, until: datetime) -> None:
        with self._db.tx() as conn:
            conn.execute("DELETE FROM ended_sessions WHERE until < now()")
            conn.execute(
                "INSERT INTO ended_sessions (id, key_id, until) VALUES (%s, %s, %s) "
                "ON CONFLICT (id) DO NOTHING",
                (session_id, key_id, until if until.tzinfo else until.replace(tzinfo=UTC)),
            )

    def session_ended(self, session_id: str) -> bool:
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT 1 FROM ended_sessions WHERE id = %s", (session_id,)
            ).fetchone()
        return row is not None

    def close(self) -> None:
        self._db.close()


def _key_from_row(row: Mapping[str, Any]) -> ApiKey:
    perms: frozenset[Permission] = frozenset(
        p for p in PERMISSIONS if p in row["permissions"].split(",")
    )
    return ApiKey(
        id=row["id"],
        workspace=row["workspace"],
        user_id=row["user_id"],
        permissions=perms,
        created_at=row["created_at"],
        team_ids=frozenset(json.loads(row["team_ids"])),
        agent=bool(row["agent"]),
        label=row["label"],
        revoked_at=row["revoked_at"],
    )
